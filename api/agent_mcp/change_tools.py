"""The MCP tools that change what is believed: `correct` and `forget` (see `tools`), in
GraphQL's words: `claim_key`/`claim_id`, `kind`, a `selector` like GraphQL's `SelectorInput`."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from api.agent_mcp.arguments import EntityArg, Instant, PrivacyArg, Space, named, names_of
from api.agent_mcp.results import claims_json
from api.agent_mcp.tool_context import (
    Caller,
    EpisodeId,
    EvidenceText,
    ObservedAt,
    SpeakerRole,
    inline_evidence,
    tool,
)
from graph.domain.vocabulary import CorrectionKind, Role, SelectorKind

SelectorKindArg = Annotated[
    SelectorKind,
    BeforeValidator(named(SelectorKind)),
    names_of(
        SelectorKind,
        "CLAIM (by id: that told fact; by key: every told fact of the key), OBSERVATION, "
        "EPISODE or ARTIFACT (by id), ENTITY (by id, key or name), SUBJECT_PREDICATE (subject "
        "and predicate: every such claim), SPACE (the whole space).",
    ),
]


class SelectorArg(BaseModel):
    """What to forget, as GraphQL's `SelectorInput`: a kind and what names the resource."""

    model_config = ConfigDict(extra="forbid")

    kind: SelectorKindArg
    id: str | None = Field(default=None, description="The resource's id.")
    key: str | None = Field(default=None, description="A claim's or an entity's key.")
    name: str | None = Field(default=None, description="An entity's name.")
    subject: EntityArg | None = Field(default=None, description="SUBJECT_PREDICATE's subject.")
    predicate: str | None = Field(default=None, description="SUBJECT_PREDICATE's predicate.")

    def data(self) -> dict[str, Any]:
        given: dict[str, Any] = {"kind": self.kind}
        given |= {k: v for k, v in (("id", self.id), ("key", self.key), ("name", self.name)) if v}
        if self.subject is not None:
            given["subject"] = self.subject.ref("selector.subject")
        if self.predicate is not None:
            given["predicate"] = self.predicate
        return given


def register_changes(server: MCPServer, caller: Caller) -> None:
    """The tools that change what is believed: correct and forget."""

    @tool(server)
    async def correct(
        ctx: Context,
        space: Space,
        kind: Annotated[
            CorrectionKind,
            Field(
                description="SUPERSEDE (a new revision with the changes), RETRACT (no longer "
                "held, history kept) or DISPUTE (marked disputed, contradicting evidence linked)."
            ),
        ],
        reason: Annotated[str, Field(min_length=1, description="Why, in a sentence.")],
        claim_key: Annotated[
            str | None, Field(description="The claim's key (the told fact shown now).")
        ] = None,
        claim_id: Annotated[str | None, Field(description="Or the revision's id.")] = None,
        evidence: Annotated[list[str], Field(description="Observation ids.")] = [],  # noqa: B006
        evidence_text: EvidenceText = None,
        episode_id: EpisodeId = None,
        observed_at: ObservedAt = None,
        role: SpeakerRole = Role.USER,
        value: Annotated[Any, Field(description="SUPERSEDE: the new JSON value.")] = None,
        object: Annotated[
            EntityArg | None, Field(description="SUPERSEDE: the new object entity.")
        ] = None,
        valid_from: Annotated[Instant | None, Field(description="SUPERSEDE: new start.")] = None,
        valid_to: Annotated[
            Instant | None, Field(description="SUPERSEDE: new end, exclusive.")
        ] = None,
        confidence: Annotated[float | None, Field(ge=0.0, le=1.0)] = None,
        importance: Annotated[float | None, Field(ge=0.0, le=1.0)] = None,
        privacy: Annotated[PrivacyArg | None, Field(description="SUPERSEDE: new tier.")] = None,
        against_claim_id: Annotated[
            str | None, Field(description="DISPUTE: the claim this one is disputed against.")
        ] = None,
        expected_revision: Annotated[
            int | None, Field(ge=0, description="Refuse with REVISION_CONFLICT unless current.")
        ] = None,
        idempotency_key: Annotated[
            str | None, Field(description="A replay with the same key returns the first result.")
        ] = None,
    ) -> Any:
        """Correct a claim, never in place: SUPERSEDE, RETRACT or DISPUTE, given by claim_key
        or claim_id, with evidence (observation ids and/or evidence_text). Answers the
        revision."""

        memory, actor = await caller(ctx)
        actor.check_write(space)
        inline = inline_evidence(evidence_text, episode_id, observed_at, role)
        cited: list[dict[str, Any]] = [{"observation_id": i} for i in evidence]
        change: dict[str, Any] = {
            "kind": kind,
            "reason": reason,
            "evidence": cited + ([inline] if inline else []),
        }
        optional = {
            "claim_key": claim_key,
            "claim_id": claim_id,
            "value": value,
            "valid_from": valid_from,
            "valid_to": valid_to,
            "confidence": confidence,
            "importance": importance,
            "privacy": privacy,
            "against_claim_id": against_claim_id,
            "expected_revision": expected_revision,
            "idempotency_key": idempotency_key,
        }
        change |= {k: v for k, v in optional.items() if v is not None}
        if object is not None:
            change["object"] = object.ref("object")
        claim = await memory.writes.correct(actor, space, change)
        return (
            await claims_json(
                memory, await memory.reads.written_view(actor, space, [claim]), [claim]
            )
        )[0]

    @tool(server)
    async def forget(
        ctx: Context,
        space: Space,
        selector: Annotated[SelectorArg, Field(description="What to forget.")],
        reason: Annotated[str, Field(min_length=1, description="Why, in a sentence.")],
        idempotency_key: Annotated[
            str | None, Field(description="A replay with the same key returns the first result.")
        ] = None,
    ) -> Any:
        """Erase content for good: texts, values and evidence of what is selected, in every
        revision — and what existed only because of it (the messages only it cites, the
        entities only it names); no read ever returns it again. Answers counts, never
        content."""

        memory, actor = await caller(ctx)
        actor.check_write(space)
        request: dict[str, Any] = {"selector": selector.data(), "reason": reason}
        if idempotency_key is not None:
            request["idempotency_key"] = idempotency_key
        done = await memory.forgetting.forget(actor, space, request)
        return done.as_result()
