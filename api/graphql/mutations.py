"""The GraphQL mutations: each runs one graph/ command as the key's actor and answers its result
and `errors { code message field }` (nothing is written when there is an error).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import strawberry

from api.graphql.error_types import user_error
from api.graphql.input_types import (
    ArtifactInput,
    CorrectInput,
    LinkInput,
    MergeInput,
    ObservationInput,
    OpenEpisodeInput,
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
    UnmergePayload,
)
from api.graphql.types import (
    Artifact,
    Claim,
    EngramInfo,
    Episode,
    Observation,
    Space,
)
from graph.domain.errors import EngramError, ValidationFailed
from graph.domain.model import Claim as DomainClaim
from graph.domain.model import MemoryType as DomainMemoryType
from graph.memory import View

T = TypeVar("T")


async def _mutate(
    info: EngramInfo, space: str, work: Callable[[], Awaitable[T]], fail: Callable[[Any], T]
) -> T:
    """Run a mutation as the key; expected failures become `errors` in its payload."""
    try:
        return await work()
    except EngramError as failure:
        return fail([user_error(failure)])


async def _result_view(info: EngramInfo, space: str, written: list[DomainClaim]) -> View:
    """The view results of a write are shown in: now, at the writer's tier."""
    return await info.context.memory.written_view(info.context.actor, space, written)


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Create a memory space (name: 1–63 of a-z 0-9 _ -).")
    async def create_space(
        self, info: EngramInfo, name: str, description: str = ""
    ) -> CreateSpacePayload:
        async def work() -> CreateSpacePayload:
            created = await info.context.memory.create_space(info.context.actor, name, description)
            return CreateSpacePayload(space=Space.of(created))

        return await _mutate(info, name, work, lambda e: CreateSpacePayload(errors=e))

    @strawberry.mutation(description="Create or revise a claim with ≥ 1 evidence.")
    async def remember(self, info: EngramInfo, space: str, input: RememberInput) -> ClaimPayload:
        async def work() -> ClaimPayload:
            [claim] = await info.context.memory.remember(
                info.context.actor, space, [command_data(input)]
            )
            return ClaimPayload(claim=Claim.of(claim, await _result_view(info, space, [claim])))

        return await _mutate(info, space, work, lambda e: ClaimPayload(errors=e))

    @strawberry.mutation(description="Remember many claims in one transaction: all or nothing.")
    async def remember_many(
        self, info: EngramInfo, space: str, inputs: list[RememberInput]
    ) -> ClaimsPayload:
        async def work() -> ClaimsPayload:
            if len(inputs) > 1000:
                raise ValidationFailed("at most 1000 claims per call", field="inputs")
            items = [command_data(i) for i in inputs]
            done = await info.context.memory.remember(info.context.actor, space, items)
            view = await _result_view(info, space, done)
            return ClaimsPayload(claims=[Claim.of(c, view) for c in done])

        return await _mutate(info, space, work, lambda e: ClaimsPayload(errors=e))

    @strawberry.mutation(description="SUPERSEDE, RETRACT or DISPUTE a claim; never in place.")
    async def correct(self, info: EngramInfo, space: str, input: CorrectInput) -> ClaimPayload:
        async def work() -> ClaimPayload:
            claim = await info.context.memory.correct(
                info.context.actor, space, command_data(input)
            )
            return ClaimPayload(claim=Claim.of(claim, await _result_view(info, space, [claim])))

        return await _mutate(info, space, work, lambda e: ClaimPayload(errors=e))

    @strawberry.mutation(description="Assert a typed relation between two entities (a fact).")
    async def link(self, info: EngramInfo, space: str, input: LinkInput) -> ClaimPayload:
        async def work() -> ClaimPayload:
            [claim] = await info.context.memory.remember(
                info.context.actor, space, [_clean_link(input)]
            )
            return ClaimPayload(claim=Claim.of(claim, await _result_view(info, space, [claim])))

        return await _mutate(info, space, work, lambda e: ClaimPayload(errors=e))

    @strawberry.mutation(description="Open an episode (a conversation, a tool run, an import).")
    async def open_episode(
        self, info: EngramInfo, space: str, input: OpenEpisodeInput | None = None
    ) -> EpisodePayload:
        async def work() -> EpisodePayload:
            opening = command_data(input) if input is not None else {}
            opened = await info.context.memory.open_episode(info.context.actor, space, opening)
            return EpisodePayload(episode=Episode.of(opened))

        return await _mutate(info, space, work, lambda e: EpisodePayload(errors=e))

    @strawberry.mutation(description="Append an observation to an open episode.")
    async def record_observation(
        self, info: EngramInfo, space: str, input: ObservationInput
    ) -> ObservationPayload:
        async def work() -> ObservationPayload:
            recorded = await info.context.memory.record_observation(
                info.context.actor, space, command_data(input)
            )
            return ObservationPayload(observation=Observation.of(recorded))

        return await _mutate(info, space, work, lambda e: ObservationPayload(errors=e))

    @strawberry.mutation(description="Seal an open episode: it takes no more observations.")
    async def seal_episode(
        self, info: EngramInfo, space: str, input: SealEpisodeInput
    ) -> EpisodePayload:
        async def work() -> EpisodePayload:
            sealed = await info.context.memory.seal_episode(
                info.context.actor, space, command_data(input)
            )
            return EpisodePayload(episode=Episode.of(sealed))

        return await _mutate(info, space, work, lambda e: EpisodePayload(errors=e))

    @strawberry.mutation(description="Record a file or external reference usable as evidence.")
    async def add_artifact(
        self, info: EngramInfo, space: str, input: ArtifactInput
    ) -> ArtifactPayload:
        async def work() -> ArtifactPayload:
            added = await info.context.memory.add_artifact(
                info.context.actor, space, command_data(input)
            )
            return ArtifactPayload(artifact=Artifact.of(added))

        return await _mutate(info, space, work, lambda e: ArtifactPayload(errors=e))

    @strawberry.mutation(description="Merge a duplicate entity into a survivor; undoable.")
    async def merge_entities(self, info: EngramInfo, space: str, input: MergeInput) -> MergePayload:
        async def work() -> MergePayload:
            merge_id = await info.context.memory.merge_entities(
                info.context.actor, space, command_data(input)
            )
            return MergePayload(merge_id=strawberry.ID(merge_id))

        return await _mutate(info, space, work, lambda e: MergePayload(errors=e))

    @strawberry.mutation(description="Undo a merge from now on (views before keep it).")
    async def unmerge_entities(
        self, info: EngramInfo, space: str, merge_id: strawberry.ID, reason: str
    ) -> UnmergePayload:
        async def work() -> UnmergePayload:
            undone = await info.context.memory.unmerge_entities(
                info.context.actor, space, merge_id, reason
            )
            return UnmergePayload(undone=undone)

        return await _mutate(info, space, work, lambda e: UnmergePayload(errors=e))

    @strawberry.mutation(
        description="Erase what the selector selects, in every revision; it never comes back."
    )
    async def forget(
        self,
        info: EngramInfo,
        space: str,
        selector: SelectorInput,
        reason: str,
        idempotency_key: str | None = None,
    ) -> ForgetPayload:
        async def work() -> ForgetPayload:
            request = {
                "selector": command_data(selector),
                "reason": reason,
                **({"idempotency_key": idempotency_key} if idempotency_key else {}),
            }
            done = await info.context.memory.forget(info.context.actor, space, request)
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

        return await _mutate(info, space, work, lambda e: ForgetPayload(errors=e))

    @strawberry.mutation(description="Place a legal hold: forget and retention refuse it.")
    async def set_legal_hold(
        self, info: EngramInfo, space: str, selector: SelectorInput, reason: str
    ) -> LegalHoldPayload:
        async def work() -> LegalHoldPayload:
            hold = {"selector": command_data(selector), "reason": reason}
            hold_id = await info.context.memory.set_legal_hold(info.context.actor, space, hold)
            return LegalHoldPayload(hold_id=strawberry.ID(hold_id))

        return await _mutate(info, space, work, lambda e: LegalHoldPayload(errors=e))

    @strawberry.mutation(description="Release a legal hold from now on.")
    async def release_legal_hold(
        self, info: EngramInfo, space: str, hold_id: strawberry.ID, reason: str
    ) -> LegalHoldPayload:
        async def work() -> LegalHoldPayload:
            released = await info.context.memory.release_legal_hold(
                info.context.actor, space, hold_id, reason
            )
            return LegalHoldPayload(hold_id=hold_id, released=released)

        return await _mutate(info, space, work, lambda e: LegalHoldPayload(errors=e))


def _clean_link(link: LinkInput) -> dict[str, Any]:
    data = command_data(link)
    data["subject"] = data.pop("source")
    data["object"] = data.pop("target")
    data["predicate"] = data.pop("type")
    data["type"] = DomainMemoryType.FACT.value
    return data
