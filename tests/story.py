"""A small story to test against: a space, an open episode, things said and remembered —
told through the door, `graph.memory.Memory`, as the stories' operator."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from graph.domain.actor import Actor
from graph.domain.model import Claim
from graph.domain.vocabulary import Role
from graph.memory import Memory, View
from graph.runtime import Graph, Settings

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def day(n: int) -> datetime:
    """Midnight UTC `n` days after 2024-01-01."""
    return T0 + timedelta(days=n)


TEST_ACTOR = Actor.operator("test")
"""The stories' writer: an operator, every tier."""


@cache
def story_settings() -> Settings:
    """Settings for a story's own memory: nothing but a private, throwaway data directory (its
    blobs, if it ever stores any)."""
    return Settings(data_dir=Path(tempfile.mkdtemp(prefix="engram-story-")), dev=True)


@dataclass
class Story:
    graph: Graph
    space: str
    episode_id: str
    actor: Actor = TEST_ACTOR
    memory: Memory = field(init=False)

    def __post_init__(self) -> None:
        self.memory = Memory(self.graph, story_settings())

    async def say(self, text: str, *, at: datetime | None = None, role: Role = Role.USER) -> str:
        """Record an observation; returns its id."""
        observation = await self.memory.writes.record_observation(
            self.actor,
            self.space,
            {"episode_id": self.episode_id, "content": text, "observed_at": at, "role": role},
        )
        return observation.id

    async def remember(self, evidence: str | list[str], **fields: Any) -> Claim:
        """Remember one claim citing the given observation id(s)."""
        ids = [evidence] if isinstance(evidence, str) else evidence
        data = {**fields, "evidence": [{"observation_id": i} for i in ids]}
        [claim] = await self.memory.writes.remember(self.actor, self.space, [data])
        return claim

    async def entity(self, key: str, name: str, *, at: datetime = T0, **value: Any) -> Claim:
        said = await self.say(f"{name} exists", at=at)
        return await self.remember(said, key=key, value={"name": name, **value})

    async def correct(self, **fields: Any) -> Claim:
        return await self.memory.writes.correct(self.actor, self.space, fields)

    async def view(self, as_of: datetime | None = None, known_at: datetime | None = None) -> View:
        return await self.memory.reads.view(self.actor, self.space, as_of=as_of, known_at=known_at)


async def new_story(graph: Graph, space: str = "alice", *, create: bool = True) -> Story:
    """A story in a new space (or, `create=False`, in one that exists), with a chat open."""
    memory = Memory(graph, story_settings())
    if create:
        await memory.writes.create_space(TEST_ACTOR, space, f"{space}'s memory")
    episode = await memory.writes.open_episode(TEST_ACTOR, space, {"title": "a chat"})
    return Story(graph, space, episode.id)


async def count(graph: Graph, label: str) -> int:
    rows = await graph.read("MATCH (n) WHERE $label IN labels(n) RETURN count(n) AS n", label=label)
    return int(rows[0]["n"])
