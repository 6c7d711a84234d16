"""Engram's MCP tools: each a thin call into `graph.memory.Memory` as the caller's `Actor`.

    remember  recall  context  related  explain_relation  history  correct  forget

and the resource `engram://{space}/context` (the context snapshot). Answers are compact JSON
text (`mcp_results`); an Engram error is a tool error whose text starts with its stable code
(`NOT_FOUND: no claim with key …`), so a model can tell what to fix. What the caller's key does
not grant is answered exactly as if it did not exist.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import CallToolResult, TextContent
from pydantic import AwareDatetime, Field

from api.agent_mcp.mcp_arguments import AsOf, EntityArg, KnownAt, MemoryItemArg, Space
from api.agent_mcp.mcp_results import (
    claims_json,
    dumps,
    explanation_json,
    hits_json,
    neighbourhood_json,
    snapshot_json,
)
from graph.domain.actor import Actor
from graph.domain.errors import EngramError, ValidationFailed
from graph.domain.model import Claim, CorrectionKind, MemoryType, Privacy, Role
from graph.domain.read_records import Direction
from graph.memory import Memory, View

Caller = Callable[[Context], Awaitable[tuple[Memory, Actor]]]
"""Who calls and through which memory: the HTTP request's key, or the stdio command's actor."""

ForgetWhat = Literal[
    "claim", "observation", "episode", "artifact", "entity", "subject_predicate", "space"
]


def refusal(error: EngramError) -> CallToolResult:
    """An Engram error as a tool error a model reads: `CODE: message (field …)`."""
    field = f" (field {error.field})" if error.field else ""
    text = f"{error.code}: {error.message}{field}"
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


async def answer(work: Awaitable[object]) -> CallToolResult:
    try:
        value = await work
    except EngramError as error:
        return refusal(error)
    return CallToolResult(content=[TextContent(type="text", text=dumps(value))])


async def _current_revision(memory: Memory, view: View, key: str) -> Claim:
    """The one current revision of `key` (NOT_FOUND as if absent when the view cannot see it)."""
    history = await memory.claim_history(view, key)
    current = [c for c in history if c.superseded_at is None]
    if len(current) != 1:
        ids = ", ".join(c.id for c in current) or "none"
        raise ValidationFailed(
            f"claim {key!r} has {len(current)} current revisions ({ids}); give claim_id",
            field="key",
        )
    return current[0]


async def _inline_observation(
    memory: Memory,
    actor: Actor,
    space: str,
    text: str | None,
    episode_id: str | None,
    observed_at: datetime | None,
    role: Role,
    privacy: Privacy,
) -> list[str]:
    """Record `text` (in `episode_id`, or a conversation episode opened for it) and cite it."""
    if text is None:
        if episode_id is not None or observed_at is not None:
            raise ValidationFailed("episode_id and observed_at go with evidence_text", field="")
        return []
    if episode_id is None:
        opened = await memory.open_episode(actor, space, {"title": "mcp", "privacy": privacy})
        episode_id = opened.id
    observation: dict[str, Any] = {
        "episode_id": episode_id,
        "content": text,
        "role": role,
        "privacy": privacy,
    }
    if observed_at is not None:
        observation["observed_at"] = observed_at
    recorded = await memory.record_observation(actor, space, observation)
    return [recorded.id]


EvidenceText = Annotated[
    str | None,
    Field(
        description="What was said or seen that supports this, verbatim (e.g. the user's "
        "message). It is recorded as an observation first and cited as evidence."
    ),
]
EpisodeId = Annotated[
    str | None,
    Field(description="Episode to record evidence_text in; default a new conversation episode."),
]
ObservedAt = Annotated[
    AwareDatetime | None,
    Field(description="When evidence_text was said (ISO-8601 with offset); default now."),
]
SpeakerRole = Annotated[
    Role, Field(description="Who said evidence_text: user, assistant, tool, system, document.")
]


def register_tools(server: MCPServer, caller: Caller) -> None:
    """Add Engram's tools and its context resource to `server`."""

    async def reading(
        ctx: Context, space: str, as_of: datetime | None = None, known_at: datetime | None = None
    ) -> tuple[Memory, View]:
        memory, actor = await caller(ctx)
        return memory, await memory.view(actor, space, as_of, known_at)

    @server.tool(structured_output=False)
    async def remember(
        ctx: Context,
        space: Space,
        items: Annotated[list[MemoryItemArg], Field(min_length=1, max_length=100)],
        evidence_text: EvidenceText = None,
        episode_id: EpisodeId = None,
        observed_at: ObservedAt = None,
        role: SpeakerRole = Role.USER,
    ) -> CallToolResult:
        """Remember claims, with evidence, all in one transaction (all or none). A fact:
        {"type": "fact", "subject": {"name": "Alice"}, "predicate": "WORKS_AT", "object":
        {"key": "entity:org:acme"}}; an entity: {"key": "entity:person:alice", "value":
        {"name": "Alice"}}. Evidence: give evidence_text (recorded first, then cited by every
        item) and/or observation ids per item. If the claims are refused after evidence_text was
        recorded, the error names the observation id to cite on retry. Answers the claims."""

        async def work() -> object:
            memory, actor = await caller(ctx)
            actor.check_write(space)
            tier = max((Privacy[i.privacy.upper()] for i in items), default=Privacy.NORMAL)
            cited = await _inline_observation(
                memory, actor, space, evidence_text, episode_id, observed_at, role, tier
            )
            try:
                claims = await memory.remember(actor, space, [i.command(cited) for i in items])
            except EngramError as refused:
                if cited:
                    refused.message += f" (evidence_text was recorded as observation {cited[0]})"
                raise
            return await claims_json(
                memory, await memory.written_view(actor, space, claims), claims
            )

        return await answer(work())

    @server.tool(structured_output=False)
    async def recall(
        ctx: Context,
        space: Space,
        query: Annotated[str, Field(min_length=1, description="What to look for, in words.")],
        types: Annotated[
            list[MemoryType] | None, Field(description="Only these memory types.")
        ] = None,
        first: Annotated[int, Field(ge=1, le=50, description="How many hits at most.")] = 12,
        as_of: AsOf = None,
        known_at: KnownAt = None,
    ) -> CallToolResult:
        """Search memory (full text + meaning + graph proximity): the best visible claims for
        the query, each with its subject, object, valid interval and evidence quotes."""

        async def work() -> object:
            memory, view = await reading(ctx, space, as_of, known_at)
            hits = await memory.search(view, query, types=types, first=first)
            return await hits_json(memory, view, hits)

        return await answer(work())

    @server.tool(structured_output=False)
    async def context(
        ctx: Context,
        space: Space,
        budget_bytes: Annotated[
            int, Field(ge=256, le=65536, description="Size of the snapshot in bytes.")
        ] = 2048,
        as_of: AsOf = None,
        known_at: KnownAt = None,
    ) -> CallToolResult:
        """The core snapshot to keep in mind about a space: profile, preferences, active goals
        and tasks, recent decisions — as text within budget_bytes, with the keys it drew on."""

        async def work() -> object:
            memory, view = await reading(ctx, space, as_of, known_at)
            return snapshot_json(space, await memory.context(view, budget_bytes=budget_bytes))

        return await answer(work())

    @server.tool(structured_output=False)
    async def related(
        ctx: Context,
        space: Space,
        entity: EntityArg,
        hops: Annotated[int, Field(ge=1, le=4, description="How far to walk, 1–4.")] = 1,
        relation_types: Annotated[
            list[str] | None, Field(description='Only these relations, e.g. ["WORKS_AT"].')
        ] = None,
        direction: Annotated[Direction, Field(description="OUT, IN or BOTH.")] = Direction.BOTH,
        first: Annotated[int, Field(ge=1, le=200, description="Entities at most.")] = 50,
        as_of: AsOf = None,
        known_at: KnownAt = None,
    ) -> CallToolResult:
        """The entities around one entity through visible relations, each with its hop
        distance, and the relations between them (type, valid interval, claim key)."""

        async def work() -> object:
            memory, view = await reading(ctx, space, as_of, known_at)
            found = await memory.related(
                view,
                entity.ref("entity"),
                hops=hops,
                relation_types=relation_types,
                direction=direction,
                first=first,
            )
            return neighbourhood_json(found)

        return await answer(work())

    @server.tool(structured_output=False)
    async def explain_relation(
        ctx: Context,
        space: Space,
        source: Annotated[EntityArg, Field(description="Where the paths start.")],
        target: Annotated[EntityArg, Field(description="Where the paths end.")],
        max_hops: Annotated[int, Field(ge=1, le=4, description="Longest path, 1–4.")] = 3,
        first: Annotated[int, Field(ge=1, le=20, description="Paths at most.")] = 5,
        as_of: AsOf = None,
        known_at: KnownAt = None,
    ) -> CallToolResult:
        """Why two entities are connected: the shortest visible paths, each hop with its
        relation, direction, valid interval, the claim asserting it and its evidence quotes."""

        async def work() -> object:
            memory, view = await reading(ctx, space, as_of, known_at)
            found = await memory.explain_relation(
                view, source.ref("source"), target.ref("target"), max_hops=max_hops, first=first
            )
            return await explanation_json(memory, view, found)

        return await answer(work())

    @server.tool(structured_output=False)
    async def history(
        ctx: Context,
        space: Space,
        key: Annotated[str, Field(description="The claim's key, e.g. pref:ui:theme.")],
        known_at: KnownAt = None,
    ) -> CallToolResult:
        """Every revision of one claim, oldest first, with its valid interval, recorded
        interval, status, reason and evidence."""

        async def work() -> object:
            memory, view = await reading(ctx, space, None, known_at)
            return await claims_json(memory, view, await memory.claim_history(view, key))

        return await answer(work())

    register_changes(server, caller)
    register_context_resource(server, caller)


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
    ) -> CallToolResult:
        """Correct a claim, never in place: SUPERSEDE, RETRACT or DISPUTE, given by key or
        claim_id, with evidence (observation ids and/or evidence_text). Answers the revision."""

        async def work() -> Any:  # `object` is an argument here
            memory, actor = await caller(ctx)
            actor.check_write(space)
            if (key is None) == (claim_id is None):
                raise ValidationFailed("give exactly one of key or claim_id", field="key")
            target = claim_id
            if key is not None:
                view = await memory.view(actor, space)
                target = (await _current_revision(memory, view, key)).id
            cited = await _inline_observation(
                memory, actor, space, evidence_text, episode_id, observed_at, role, Privacy.NORMAL
            )
            change: dict[str, Any] = {
                "claim_id": target,
                "kind": kind,
                "reason": reason,
                "evidence": [{"observation_id": i} for i in [*evidence, *cited]],
            }
            optional = {
                "value": value,
                "valid_from": valid_from,
                "valid_to": valid_to,
                "confidence": confidence,
                "expected_revision": expected_revision,
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
            if what == "claim" and key is not None and id is None:
                view = await memory.view(actor, space)
                selector["id"] = (await memory.claim_history(view, key))[-1].id
            elif what == "entity" and id is None and (key is None) != (name is None):
                view = await memory.view(actor, space)
                ref = {"key": key} if key is not None else {"name": name}
                selector["id"] = (await memory.find_entity(view, ref)).id
            elif what == "subject_predicate":
                if subject is None or predicate is None:
                    raise ValidationFailed("give subject and predicate", field="subject")
                view = await memory.view(actor, space)
                found = await memory.find_entity(view, subject.ref("subject"))
                selector |= {"subject": {"id": found.id}, "predicate": predicate}
            elif id is not None:
                selector["id"] = id
            elif what != "space":
                raise ValidationFailed(f"forgetting a {what} needs its id", field="id")
            done = await memory.forget(actor, space, {"selector": selector, "reason": reason})
            return done.as_result()

        return await answer(work())


def register_context_resource(server: MCPServer, caller: Caller) -> None:
    @server.resource(
        "engram://{space}/context",
        name="context",
        description="A space's context snapshot (profile, preferences, goals, tasks, decisions).",
        mime_type="text/plain",
    )
    async def context_snapshot(space: str, ctx: Context) -> str:
        memory, actor = await caller(ctx)
        try:
            snapshot = await memory.context(await memory.view(actor, space))
        except EngramError as error:
            raise ResourceError(f"{error.code}: {error.message}") from None
        return snapshot.text
