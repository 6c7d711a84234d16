"""The MCP tools that change what is believed: `correct` and `forget` (see `mcp_tools`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import AwareDatetime, Field

from api.agent_mcp.mcp_arguments import EntityArg, Space
from api.agent_mcp.mcp_calls import (
    Caller,
    EpisodeId,
    EvidenceText,
    ObservedAt,
    SpeakerRole,
    answer,
    inline_evidence,
)
from api.agent_mcp.mcp_results import claims_json
from graph.domain.errors import ValidationFailed
from graph.domain.model import CorrectionKind, Role

ForgetWhat = Literal[
    "claim", "observation", "episode", "artifact", "entity", "subject_predicate", "space"
]


def register_changes(server: MCPServer, caller: Caller) -> None:
    """The tools that change what is believed: correct and forget."""

    @server.tool(structured_output=False)
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
        key: Annotated[str | None, Field(description="The claim's key (its current one).")] = None,
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
        valid_from: Annotated[
            AwareDatetime | None, Field(description="SUPERSEDE: new start (ISO-8601).")
        ] = None,
        valid_to: Annotated[
            AwareDatetime | None, Field(description="SUPERSEDE: new end, exclusive (ISO-8601).")
        ] = None,
        confidence: Annotated[float | None, Field(ge=0.0, le=1.0)] = None,
        expected_revision: Annotated[
            int | None, Field(ge=0, description="Refuse with REVISION_CONFLICT unless current.")
        ] = None,
        idempotency_key: Annotated[
            str | None, Field(description="A replay with the same key returns the first result.")
        ] = None,
    ) -> CallToolResult:
        """Correct a claim, never in place: SUPERSEDE, RETRACT or DISPUTE, given by key or
        claim_id, with evidence (observation ids and/or evidence_text). Answers the revision."""

        async def work() -> Any:  # `object` is an argument here
            memory, actor = await caller(ctx)
            actor.check_write(space)
            if (key is None) == (claim_id is None):
                raise ValidationFailed("give exactly one of key or claim_id", field="key")
            inline = inline_evidence(evidence_text, episode_id, observed_at, role)
            cited: list[dict[str, Any]] = [{"observation_id": i} for i in evidence]
            change: dict[str, Any] = {
                "kind": kind,
                "reason": reason,
                "evidence": cited + ([inline] if inline else []),
            }
            change |= {"claim_key": key} if key is not None else {"claim_id": claim_id}
            optional = {
                "value": value,
                "valid_from": valid_from,
                "valid_to": valid_to,
                "confidence": confidence,
                "expected_revision": expected_revision,
                "idempotency_key": idempotency_key,
            }
            change |= {k: v for k, v in optional.items() if v is not None}
            if object is not None:
                change["object"] = object.ref("object")
            claim = await memory.correct(actor, space, change)
            return (
                await claims_json(memory, await memory.written_view(actor, space, [claim]), [claim])
            )[0]

        return await answer(work())

    @server.tool(structured_output=False)
    async def forget(
        ctx: Context,
        space: Space,
        what: Annotated[
            ForgetWhat,
            Field(
                description="claim (by key or id: every revision), observation, episode or "
                "artifact (by id), entity (by key, name or id), subject_predicate (subject + "
                "predicate: every such claim), space (the whole space)."
            ),
        ],
        reason: Annotated[str, Field(min_length=1, description="Why, in a sentence.")],
        id: Annotated[str | None, Field(description="The resource's id.")] = None,
        key: Annotated[str | None, Field(description="A claim's or an entity's key.")] = None,
        name: Annotated[str | None, Field(description="An entity's current name.")] = None,
        subject: Annotated[EntityArg | None, Field(description="subject_predicate's.")] = None,
        predicate: Annotated[str | None, Field(description="subject_predicate's.")] = None,
    ) -> CallToolResult:
        """Erase content for good: texts, values and evidence of what is selected, in every
        revision; no read ever returns it again. Answers counts, never content."""

        async def work() -> object:
            memory, actor = await caller(ctx)
            actor.check_write(space)
            selector: dict[str, Any] = {"kind": what.upper()}
            named = {k: v for k, v in (("id", id), ("key", key), ("name", name)) if v is not None}
            if what == "space":
                if named or subject is not None or predicate is not None:
                    raise ValidationFailed("a space is forgotten by its name alone", field="what")
            elif what == "subject_predicate":
                if named or subject is None or predicate is None:
                    raise ValidationFailed(
                        "subject_predicate takes subject and predicate only", field="subject"
                    )
                view = await memory.view(actor, space)
                found = await memory.find_entity(view, subject.ref("subject"))
                selector |= {"subject": {"id": found.id}, "predicate": predicate}
            else:
                takes = {"claim": ("id", "key"), "entity": ("id", "key", "name")}.get(what, ("id",))
                if len(named) != 1 or not named.keys() <= set(takes) or subject or predicate:
                    raise ValidationFailed(
                        f"forgetting a {what} takes exactly one of {', '.join(takes)}", field="id"
                    )
                selector |= named
            done = await memory.forget(actor, space, {"selector": selector, "reason": reason})
            return done.as_result()

        return await answer(work())
