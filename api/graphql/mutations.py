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
from graph.commands import artifacts, correct, episodes, holds, merge
from graph.commands import remember as claims
from graph.commands import spaces as space_commands
from graph.domain.errors import EngramError, ValidationFailed
from graph.domain.inputs import parse
from graph.domain.model import MemoryType as DomainMemoryType
from graph.erasure import forget
from graph.reads.visibility import View

T = TypeVar("T")


async def _mutate(
    info: EngramInfo, space: str, work: Callable[[], Awaitable[T]], fail: Callable[[Any], T]
) -> T:
    """Run a mutation as the key; the command checks its grant and tier again (graph/ trusts
    no caller), this early check only spares a transaction."""
    try:
        info.context.principal.check_write(space)
        return await work()
    except EngramError as failure:
        return fail([user_error(failure)])


async def _result_view(info: EngramInfo, space: str) -> View:
    """The view results of a write are shown in: now, at the writer's tier."""
    return await info.context.view(space)


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Create a memory space (name: 1–63 of a-z 0-9 _ -).")
    async def create_space(
        self, info: EngramInfo, name: str, description: str = ""
    ) -> CreateSpacePayload:
        async def work() -> CreateSpacePayload:
            created = await space_commands.create_space(
                info.context.graph, name, description, actor=info.context.actor
            )
            return CreateSpacePayload(space=Space.of(created))

        return await _mutate(info, name, work, lambda e: CreateSpacePayload(errors=e))

    @strawberry.mutation(description="Create or revise a claim with ≥ 1 evidence.")
    async def remember(self, info: EngramInfo, space: str, input: RememberInput) -> ClaimPayload:
        async def work() -> ClaimPayload:
            item = parse(claims.RememberInput, command_data(input))
            [claim] = await claims.remember(
                info.context.graph, space, [item], actor=info.context.actor
            )
            return ClaimPayload(claim=Claim.of(claim, await _result_view(info, space)))

        return await _mutate(info, space, work, lambda e: ClaimPayload(errors=e))

    @strawberry.mutation(description="Remember many claims in one transaction: all or nothing.")
    async def remember_many(
        self, info: EngramInfo, space: str, inputs: list[RememberInput]
    ) -> ClaimsPayload:
        async def work() -> ClaimsPayload:
            if len(inputs) > 1000:
                raise ValidationFailed("at most 1000 claims per call", field="inputs")
            items = [parse(claims.RememberInput, command_data(i)) for i in inputs]
            done = await claims.remember(info.context.graph, space, items, actor=info.context.actor)
            view = await _result_view(info, space)
            return ClaimsPayload(claims=[Claim.of(c, view) for c in done])

        return await _mutate(info, space, work, lambda e: ClaimsPayload(errors=e))

    @strawberry.mutation(description="SUPERSEDE, RETRACT or DISPUTE a claim; never in place.")
    async def correct(self, info: EngramInfo, space: str, input: CorrectInput) -> ClaimPayload:
        async def work() -> ClaimPayload:
            change = parse(correct.CorrectInput, command_data(input))
            claim = await correct.correct(
                info.context.graph, space, change, actor=info.context.actor
            )
            return ClaimPayload(claim=Claim.of(claim, await _result_view(info, space)))

        return await _mutate(info, space, work, lambda e: ClaimPayload(errors=e))

    @strawberry.mutation(description="Assert a typed relation between two entities (a fact).")
    async def link(self, info: EngramInfo, space: str, input: LinkInput) -> ClaimPayload:
        async def work() -> ClaimPayload:
            item = parse(claims.RememberInput, _clean_link(input))
            [claim] = await claims.remember(
                info.context.graph, space, [item], actor=info.context.actor
            )
            return ClaimPayload(claim=Claim.of(claim, await _result_view(info, space)))

        return await _mutate(info, space, work, lambda e: ClaimPayload(errors=e))

    @strawberry.mutation(description="Open an episode (a conversation, a tool run, an import).")
    async def open_episode(
        self, info: EngramInfo, space: str, input: OpenEpisodeInput | None = None
    ) -> EpisodePayload:
        async def work() -> EpisodePayload:
            opening = parse(
                episodes.OpenEpisodeInput, command_data(input) if input is not None else {}
            )
            opened = await episodes.open_episode(
                info.context.graph, space, opening, actor=info.context.actor
            )
            return EpisodePayload(episode=Episode.of(opened))

        return await _mutate(info, space, work, lambda e: EpisodePayload(errors=e))

    @strawberry.mutation(description="Append an observation to an open episode.")
    async def record_observation(
        self, info: EngramInfo, space: str, input: ObservationInput
    ) -> ObservationPayload:
        async def work() -> ObservationPayload:
            observation = parse(episodes.ObservationInput, command_data(input))
            recorded = await episodes.record_observation(
                info.context.graph, space, observation, actor=info.context.actor
            )
            return ObservationPayload(observation=Observation.of(recorded))

        return await _mutate(info, space, work, lambda e: ObservationPayload(errors=e))

    @strawberry.mutation(description="Seal an open episode: it takes no more observations.")
    async def seal_episode(
        self, info: EngramInfo, space: str, input: SealEpisodeInput
    ) -> EpisodePayload:
        async def work() -> EpisodePayload:
            sealing = parse(episodes.SealEpisodeInput, command_data(input))
            sealed = await episodes.seal_episode(
                info.context.graph, space, sealing, actor=info.context.actor
            )
            return EpisodePayload(episode=Episode.of(sealed))

        return await _mutate(info, space, work, lambda e: EpisodePayload(errors=e))

    @strawberry.mutation(description="Record a file or external reference usable as evidence.")
    async def add_artifact(
        self, info: EngramInfo, space: str, input: ArtifactInput
    ) -> ArtifactPayload:
        async def work() -> ArtifactPayload:
            artifact = parse(artifacts.ArtifactInput, command_data(input))
            added = await artifacts.add_artifact(
                info.context.graph,
                space,
                artifact,
                blob_root=info.context.settings.blobs,
                actor=info.context.actor,
            )
            return ArtifactPayload(artifact=Artifact.of(added))

        return await _mutate(info, space, work, lambda e: ArtifactPayload(errors=e))

    @strawberry.mutation(description="Merge a duplicate entity into a survivor; undoable.")
    async def merge_entities(self, info: EngramInfo, space: str, input: MergeInput) -> MergePayload:
        async def work() -> MergePayload:
            request = parse(merge.MergeInput, command_data(input))
            merge_id = await merge.merge_entities(
                info.context.graph, space, request, actor=info.context.actor
            )
            return MergePayload(merge_id=strawberry.ID(merge_id))

        return await _mutate(info, space, work, lambda e: MergePayload(errors=e))

    @strawberry.mutation(description="Undo a merge from now on (views before keep it).")
    async def unmerge_entities(
        self, info: EngramInfo, space: str, merge_id: strawberry.ID, reason: str
    ) -> UnmergePayload:
        async def work() -> UnmergePayload:
            undone = await merge.unmerge_entities(
                info.context.graph, space, merge_id, reason, actor=info.context.actor
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
            request = parse(
                forget.ForgetInput,
                {
                    "selector": command_data(selector),
                    "reason": reason,
                    **({"idempotency_key": idempotency_key} if idempotency_key else {}),
                },
            )
            done = await forget.forget(
                info.context.graph,
                space,
                request,
                actor=info.context.actor,
                blob_root=info.context.settings.blobs,
            )
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
            info.context.principal.check_legal(space)
            hold = parse(holds.HoldInput, {"selector": command_data(selector), "reason": reason})
            hold_id = await holds.set_legal_hold(
                info.context.graph, space, hold, actor=info.context.actor
            )
            return LegalHoldPayload(hold_id=strawberry.ID(hold_id))

        return await _mutate(info, space, work, lambda e: LegalHoldPayload(errors=e))

    @strawberry.mutation(description="Release a legal hold from now on.")
    async def release_legal_hold(
        self, info: EngramInfo, space: str, hold_id: strawberry.ID, reason: str
    ) -> LegalHoldPayload:
        async def work() -> LegalHoldPayload:
            info.context.principal.check_legal(space)
            released = await holds.release_legal_hold(
                info.context.graph, space, hold_id, reason=reason, actor=info.context.actor
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
