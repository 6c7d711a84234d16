"""What a caller writes, always as an explicit `Actor` (its spaces, tier and grants) —
`memory.writes` of `graph.memory.Memory`: spaces, facts remembered and corrected, episodes and
what was said in them, artifacts, merges, and the spaces' predicate rules.

Each command checks the actor may write the space before anything is read, and runs in one
transaction: all of it or none. Inputs are the commands' pydantic models or plain data, parsed
with typed errors naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graph.commands import artifacts, correct, episodes, merge, predicate_rules, spaces
from graph.commands import remember as remembering
from graph.commands.spaces import Space
from graph.domain.actor import Actor
from graph.domain.inputs import as_input
from graph.domain.model import Artifact, Claim, Episode, Observation
from graph.domain.vocabulary import Cardinality
from graph.store.db import Graph
from graph.store.settings import Settings


class Writes:
    """The commands an agent or a person gives: each as an actor, in one transaction."""

    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.graph = graph
        self.settings = settings

    async def create_space(self, actor: Actor, name: str, description: str = "") -> Space:
        actor.check_write(name)
        return await spaces.create_space(self.graph, name, description, actor=actor)

    async def remember(
        self,
        actor: Actor,
        space: str,
        items: Sequence[remembering.RememberInput | Mapping[str, Any]],
        *,
        field: str | None = None,
    ) -> list[Claim]:
        """Create or revise claims in one transaction: all of them or none. With `field`, an
        item's invalid input names its place (`inputs[3].value.name`)."""
        actor.check_write(space)
        return await remembering.remember(self.graph, space, items, actor=actor, field=field)

    async def correct(
        self, actor: Actor, space: str, change: correct.CorrectInput | Mapping[str, Any]
    ) -> Claim:
        actor.check_write(space)
        done = as_input(correct.CorrectInput, change)
        return await correct.correct(self.graph, space, done, actor=actor)

    async def open_episode(
        self,
        actor: Actor,
        space: str,
        opening: episodes.OpenEpisodeInput | Mapping[str, Any] | None = None,
    ) -> Episode:
        actor.check_write(space)
        request = as_input(episodes.OpenEpisodeInput, opening or {})
        return await episodes.open_episode(self.graph, space, request, actor=actor)

    async def record_observation(
        self,
        actor: Actor,
        space: str,
        observation: episodes.ObservationInput | Mapping[str, Any],
    ) -> Observation:
        actor.check_write(space)
        request = as_input(episodes.ObservationInput, observation)
        return await episodes.record_observation(self.graph, space, request, actor=actor)

    async def record_observations(
        self, actor: Actor, space: str, observations: Sequence[Mapping[str, Any]]
    ) -> list[Observation]:
        """Append observations to open episodes in one transaction (all or none), in order."""
        actor.check_write(space)
        requests = [as_input(episodes.ObservationInput, o) for o in observations]
        return await episodes.record_observations(self.graph, space, requests, actor=actor)

    async def seal_episode(
        self, actor: Actor, space: str, sealing: episodes.SealEpisodeInput | Mapping[str, Any]
    ) -> Episode:
        actor.check_write(space)
        request = as_input(episodes.SealEpisodeInput, sealing)
        return await episodes.seal_episode(self.graph, space, request, actor=actor)

    async def add_artifact(
        self, actor: Actor, space: str, artifact: artifacts.ArtifactInput | Mapping[str, Any]
    ) -> Artifact:
        actor.check_write(space)
        request = as_input(artifacts.ArtifactInput, artifact)
        return await artifacts.add_artifact(
            self.graph, space, request, blob_root=self.settings.blobs, actor=actor
        )

    async def merge_entities(
        self, actor: Actor, space: str, request: merge.MergeInput | Mapping[str, Any]
    ) -> str:
        actor.check_write(space)
        merging = as_input(merge.MergeInput, request)
        return await merge.merge_entities(self.graph, space, merging, actor=actor)

    async def unmerge_entities(self, actor: Actor, space: str, merge_id: str, reason: str) -> bool:
        actor.check_write(space)
        return await merge.unmerge_entities(self.graph, space, merge_id, reason, actor=actor)

    async def declare_predicate(
        self, actor: Actor, space: str, predicate: str, cardinality: Cardinality
    ) -> predicate_rules.PredicateRule:
        """Declare `predicate` ONE or MANY in `space` for the facts written from now on."""
        [rule] = await self.declare_predicates(actor, space, [(predicate, cardinality)])
        return rule

    async def declare_predicates(
        self, actor: Actor, space: str, rules: Sequence[tuple[str, Cardinality]]
    ) -> list[predicate_rules.PredicateRule]:
        """Declare several predicates' rules in one transaction (all or none); an administrative
        act, for a key made with the rules grant."""
        actor.tier_in(space)
        actor.check_rules(space)
        return await predicate_rules.declare_predicates(self.graph, space, rules, actor=actor)
