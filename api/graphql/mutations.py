"""The GraphQL mutations: each runs one command through the memory door as the key's actor and
answers its result, or `errors { code message field }` (`ErrorsInPayload`; nothing is written
when there is an error).
"""

from __future__ import annotations

from typing import Any

import strawberry

from api.graphql.extensions import mutation
from api.graphql.input_types import (
    ArtifactInput,
    CorrectInput,
    LinkInput,
    MergeInput,
    ObservationInput,
    OpenEpisodeInput,
    PredicateRuleInput,
    RememberInput,
    SealEpisodeInput,
    SelectorInput,
    command_data,
)
from api.graphql.payloads import (
    ArtifactPayload,
    ClaimPayload,
    ClaimsPayload,
    CreateSpacePayload,
    EpisodePayload,
    ForgetPayload,
    ForgetReceipt,
    LegalHoldPayload,
    MergePayload,
    ObservationPayload,
    PredicateRule,
    PredicateRulePayload,
    PredicateRulesPayload,
    UnmergePayload,
)
from api.graphql.types import Artifact, Claim, EngramInfo, Episode, Observation, Space
from graph.domain.errors import ValidationFailed
from graph.domain.model import Claim as DomainClaim
from graph.domain.vocabulary import Cardinality
from graph.domain.vocabulary import MemoryType as DomainMemoryType
from graph.memory import View


async def _result_view(info: EngramInfo, space: str, written: list[DomainClaim]) -> View:
    """The view results of a write are shown in: now, at the writer's tier."""
    return await info.context.memory.reads.written_view(info.context.actor, space, written)


@strawberry.type
class Mutation:
    @mutation("Create a memory space (name: 1–63 of a-z 0-9 _ -).")
    async def create_space(
        self, info: EngramInfo, name: str, description: str = ""
    ) -> CreateSpacePayload:
        created = await info.context.memory.writes.create_space(
            info.context.actor, name, description
        )
        return CreateSpacePayload(space=Space.of(created))

    @mutation(
        "Declare a predicate ONE (one value per subject at each instant: the fact told with the "
        "latest validFrom shows) or MANY (values coexist) in a space; facts already written are "
        "re-keyed under it as new revisions (views as known before answer as they did)."
    )
    async def declare_predicate(
        self, info: EngramInfo, space: str, predicate: str, cardinality: Cardinality
    ) -> PredicateRulePayload:
        rule = await info.context.memory.writes.declare_predicate(
            info.context.actor, space, predicate, cardinality
        )
        return PredicateRulePayload(rule=PredicateRule.of(rule))

    @mutation("Declare several predicates' rules at once (all or none), as declarePredicate.")
    async def declare_predicates(
        self, info: EngramInfo, space: str, rules: list[PredicateRuleInput]
    ) -> PredicateRulesPayload:
        declared = await info.context.memory.writes.declare_predicates(
            info.context.actor, space, [(r.predicate, r.cardinality) for r in rules]
        )
        return PredicateRulesPayload(rules=[PredicateRule.of(rule) for rule in declared])

    @mutation("Create or revise a claim with ≥ 1 evidence.")
    async def remember(self, info: EngramInfo, space: str, input: RememberInput) -> ClaimPayload:
        [claim] = await info.context.memory.writes.remember(
            info.context.actor, space, [command_data(input)]
        )
        return ClaimPayload(claim=Claim.of(claim, await _result_view(info, space, [claim])))

    @mutation("Remember many claims in one transaction: all or nothing.")
    async def remember_many(
        self, info: EngramInfo, space: str, inputs: list[RememberInput]
    ) -> ClaimsPayload:
        if len(inputs) > 1000:
            raise ValidationFailed("at most 1000 claims per call", field="inputs")
        items = [command_data(i) for i in inputs]
        done = await info.context.memory.writes.remember(
            info.context.actor, space, items, field="inputs"
        )
        view = await _result_view(info, space, done)
        return ClaimsPayload(claims=[Claim.of(c, view) for c in done])

    @mutation("SUPERSEDE, RETRACT or DISPUTE a claim; never in place.")
    async def correct(self, info: EngramInfo, space: str, input: CorrectInput) -> ClaimPayload:
        claim = await info.context.memory.writes.correct(
            info.context.actor, space, command_data(input)
        )
        return ClaimPayload(claim=Claim.of(claim, await _result_view(info, space, [claim])))

    @mutation("Assert a typed relation between two entities (a fact).")
    async def link(self, info: EngramInfo, space: str, input: LinkInput) -> ClaimPayload:
        [claim] = await info.context.memory.writes.remember(
            info.context.actor, space, [_clean_link(input)]
        )
        return ClaimPayload(claim=Claim.of(claim, await _result_view(info, space, [claim])))

    @mutation("Open an episode (a conversation, a tool run, an import).")
    async def open_episode(
        self, info: EngramInfo, space: str, input: OpenEpisodeInput | None = None
    ) -> EpisodePayload:
        opening = command_data(input) if input is not None else {}
        opened = await info.context.memory.writes.open_episode(info.context.actor, space, opening)
        return EpisodePayload(episode=Episode.of(opened))

    @mutation("Append an observation to an open episode.")
    async def record_observation(
        self, info: EngramInfo, space: str, input: ObservationInput
    ) -> ObservationPayload:
        recorded = await info.context.memory.writes.record_observation(
            info.context.actor, space, command_data(input)
        )
        return ObservationPayload(observation=Observation.of(recorded))

    @mutation("Seal an open episode: it takes no more observations.")
    async def seal_episode(
        self, info: EngramInfo, space: str, input: SealEpisodeInput
    ) -> EpisodePayload:
        sealed = await info.context.memory.writes.seal_episode(
            info.context.actor, space, command_data(input)
        )
        return EpisodePayload(episode=Episode.of(sealed))

    @mutation("Record a file or external reference usable as evidence.")
    async def add_artifact(
        self, info: EngramInfo, space: str, input: ArtifactInput
    ) -> ArtifactPayload:
        added = await info.context.memory.writes.add_artifact(
            info.context.actor, space, command_data(input)
        )
        return ArtifactPayload(artifact=Artifact.of(added))

    @mutation("Merge a duplicate entity into a survivor; undoable.")
    async def merge_entities(self, info: EngramInfo, space: str, input: MergeInput) -> MergePayload:
        merge_id = await info.context.memory.writes.merge_entities(
            info.context.actor, space, command_data(input)
        )
        return MergePayload(merge_id=strawberry.ID(merge_id))

    @mutation("Undo a merge from now on (views before keep it).")
    async def unmerge_entities(
        self, info: EngramInfo, space: str, merge_id: strawberry.ID, reason: str
    ) -> UnmergePayload:
        undone = await info.context.memory.writes.unmerge_entities(
            info.context.actor, space, merge_id, reason
        )
        return UnmergePayload(undone=undone)

    @mutation("Erase what the selector selects, in every revision; it never comes back.")
    async def forget(
        self,
        info: EngramInfo,
        space: str,
        selector: SelectorInput,
        reason: str,
        idempotency_key: str | None = None,
    ) -> ForgetPayload:
        request = {
            "selector": command_data(selector),
            "reason": reason,
            **({"idempotency_key": idempotency_key} if idempotency_key else {}),
        }
        done = await info.context.memory.forgetting.forget(info.context.actor, space, request)
        return ForgetPayload(
            receipt=ForgetReceipt(
                tombstone_id=strawberry.ID(done.tombstone_id),
                watermark=done.watermark,
                made_inactive=done.made_inactive,
                whole_space=done.whole_space,
                replayed=done.replayed,
                **done.erased,
            )
        )

    @mutation("Place a legal hold: forget and retention refuse it.")
    async def set_legal_hold(
        self, info: EngramInfo, space: str, selector: SelectorInput, reason: str
    ) -> LegalHoldPayload:
        hold = {"selector": command_data(selector), "reason": reason}
        hold_id = await info.context.memory.forgetting.set_legal_hold(
            info.context.actor, space, hold
        )
        return LegalHoldPayload(hold_id=strawberry.ID(hold_id))

    @mutation("Release a legal hold from now on.")
    async def release_legal_hold(
        self, info: EngramInfo, space: str, hold_id: strawberry.ID, reason: str
    ) -> LegalHoldPayload:
        released = await info.context.memory.forgetting.release_legal_hold(
            info.context.actor, space, hold_id, reason
        )
        return LegalHoldPayload(hold_id=hold_id, released=released)


def _clean_link(link: LinkInput) -> dict[str, Any]:
    data = command_data(link)
    data["subject"] = data.pop("source")
    data["object"] = data.pop("target")
    data["predicate"] = data.pop("type")
    data["type"] = DomainMemoryType.FACT.value
    return data
