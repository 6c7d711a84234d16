"""A small story to test against: a space, an open episode, things said and remembered."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from graph.commands.correct import CorrectInput, correct
from graph.commands.episodes import (
    ObservationInput,
    OpenEpisodeInput,
    open_episode,
    record_observation,
)
from graph.commands.remember import RememberInput, remember
from graph.commands.spaces import create_space
from graph.domain.actor import Actor
from graph.domain.inputs import parse
from graph.domain.model import Claim, Role
from graph.reads.visibility import View
from graph.store.db import Graph

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def day(n: int) -> datetime:
    """Midnight UTC `n` days after 2024-01-01."""
    return T0 + timedelta(days=n)


TEST_ACTOR = Actor.operator("test")
"""The stories' writer: an operator, every tier."""


@dataclass
class Story:
    graph: Graph
    space: str
    episode_id: str
    actor: Actor = TEST_ACTOR

    async def say(self, text: str, *, at: datetime | None = None, role: Role = Role.USER) -> str:
        """Record an observation; returns its id."""
        observation = await record_observation(
            self.graph,
            self.space,
            ObservationInput(episode_id=self.episode_id, content=text, observed_at=at, role=role),
            actor=self.actor,
        )
        return observation.id

    async def remember(self, evidence: str | list[str], **fields: Any) -> Claim:
        """Remember one claim citing the given observation id(s)."""
        ids = [evidence] if isinstance(evidence, str) else evidence
        data = {**fields, "evidence": [{"observation_id": i} for i in ids]}
        [claim] = await remember(
            self.graph, self.space, [parse(RememberInput, data)], actor=self.actor
        )
        return claim

    async def entity(self, key: str, name: str, *, at: datetime = T0, **value: Any) -> Claim:
        said = await self.say(f"{name} exists", at=at)
        return await self.remember(said, key=key, value={"name": name, **value})

    async def correct(self, **fields: Any) -> Claim:
        return await correct(self.graph, self.space, parse(CorrectInput, fields), actor=self.actor)

    async def view(self, as_of: datetime | None = None, known_at: datetime | None = None) -> View:
        return await View.open(self.graph, self.space, as_of=as_of, known_at=known_at)


async def new_story(graph: Graph, space: str = "alice", *, create: bool = True) -> Story:
    """A story in a new space (or, `create=False`, in one that exists), with a chat open."""
    if create:
        await create_space(graph, space, f"{space}'s memory", actor=Actor.operator("test"))
    episode = await open_episode(
        graph, space, OpenEpisodeInput(title="a chat"), actor=Actor.operator("test")
    )
    return Story(graph, space, episode.id)


async def count(graph: Graph, label: str) -> int:
    rows = await graph.read("MATCH (n) WHERE $label IN labels(n) RETURN count(n) AS n", label=label)
    return int(rows[0]["n"])
