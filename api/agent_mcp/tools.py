"""Engram's MCP tools: each a thin call into `graph.memory.Memory` as the caller's `Actor`.

    remember  recall  messages  context  related  explain_relation  history  changes
    correct  forget

and the resource `engram://{space}/context` (the context snapshot). Answers are compact JSON
text (`results`); an Engram error is a tool error whose text starts with its stable code
(`NOT_FOUND: no claim with key …`), so a model can tell what to fix. What the caller's key does
not grant is answered exactly as if it did not exist.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from pydantic import Field

from api.agent_mcp.arguments import (
    AsOf,
    EntityArg,
    Instant,
    KnownAt,
    MemoryItemArg,
    MemoryTypeArg,
    RoleArg,
    Space,
)
from api.agent_mcp.change_tools import register_changes
from api.agent_mcp.results import (
    changes_json,
    claims_json,
    explanation_json,
    hits_json,
    messages_json,
    neighbourhood_json,
    snapshot_json,
)
from api.agent_mcp.tool_context import (
    Caller,
    EpisodeId,
    EvidenceText,
    ObservedAt,
    SpeakerRole,
    inline_evidence,
    tool,
)
from graph.domain.errors import EngramError
from graph.domain.vocabulary import Axis, Direction, Role
from graph.memory import Memory, View


def register_tools(server: MCPServer, caller: Caller) -> None:
    """Add Engram's tools and its context resource to `server`."""

    async def reading(
        ctx: Context, space: str, as_of: datetime | None = None, known_at: datetime | None = None
    ) -> tuple[Memory, View]:
        memory, actor = await caller(ctx)
        return memory, await memory.reads.view(actor, space, as_of, known_at)

    @tool(server)
    async def remember(
        ctx: Context,
        space: Space,
        items: Annotated[list[MemoryItemArg], Field(min_length=1, max_length=100)],
        evidence_text: EvidenceText = None,
        episode_id: EpisodeId = None,
        observed_at: ObservedAt = None,
        role: SpeakerRole = Role.USER,
    ) -> object:
        """Remember claims, with evidence, all in one transaction (all or none). A fact by
        names: {"type": "fact", "subject": {"name": "Alice", "kind": "person"}, "predicate":
        "WORKS_AT", "object": {"name": "Acme", "kind": "org"}} (an entity named with a kind is
        created if none has that name; a name fitting several is AMBIGUOUS_SUBJECT). A literal
        fact gives "value" instead of "object". Evidence: evidence_text (recorded in the same
        transaction and cited by every item) and/or observation ids per item; a refused call
        records nothing. Answers the claims."""

        memory, actor = await caller(ctx)
        actor.check_write(space)
        inline = inline_evidence(evidence_text, episode_id, observed_at, role)
        commands = [item.command(inline) for item in items]
        claims = await memory.writes.remember(actor, space, commands, field="items")
        return await claims_json(
            memory, await memory.reads.written_view(actor, space, claims), claims
        )

    @tool(server)
    async def recall(
        ctx: Context,
        space: Space,
        query: Annotated[str, Field(min_length=1, description="What to look for, in words.")],
        types: Annotated[
            list[MemoryTypeArg] | None,
            Field(description="Only these memory types (FACT, PREF, …)."),
        ] = None,
        first: Annotated[int, Field(ge=1, le=50, description="How many hits at most.")] = 12,
        as_of: AsOf = None,
        known_at: KnownAt = None,
        include_history: Annotated[
            bool,
            Field(
                description="Also find facts that ended or were replaced (e.g. a former "
                "employer); each hit's state is CURRENT, ENDED or SUPERSEDED."
            ),
        ] = False,
    ) -> object:
        """Search memory (full text + meaning + graph proximity): the best visible claims for
        the query, each with its subject, object, valid interval, evidence quotes and state."""

        memory, view = await reading(ctx, space, as_of, known_at)
        hits = await memory.reads.search(
            view, query, types=types, first=first, include_history=include_history
        )
        return await hits_json(memory, view, hits)

    @tool(server)
    async def messages(
        ctx: Context,
        space: Space,
        query: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=1000,
                description="What was said, in words; omit for the window's newest messages.",
            ),
        ] = None,
        from_: Annotated[
            Instant | None,
            Field(
                validation_alias="from", description="Said at or after this (ISO-8601 or a date)."
            ),
        ] = None,
        to: Annotated[Instant | None, Field(description="Said before this.")] = None,
        role: Annotated[
            RoleArg | None, Field(description="Only what USER, ASSISTANT, TOOL, … said.")
        ] = None,
        episode_id: Annotated[str | None, Field(description="Only this episode.")] = None,
        first: Annotated[int, Field(ge=1, le=100, description="How many at most.")] = 20,
        known_at: KnownAt = None,
    ) -> object:
        """Recall what was said — the messages themselves, not the claims drawn from them —
        by words and meaning, in a time window, by role or episode ("what did the user say
        about the trip last week"). Each: content, role, when, episode, score."""

        memory, view = await reading(ctx, space, None, known_at)
        found = await memory.reads.messages(
            view,
            query=query,
            start=from_,
            end=to,
            role=role,
            episode_id=episode_id,
            first=first,
        )
        return messages_json(found)

    @tool(server)
    async def context(
        ctx: Context,
        space: Space,
        budget_bytes: Annotated[
            int, Field(ge=256, le=65536, description="Size of the snapshot in bytes.")
        ] = 2048,
        about: Annotated[
            EntityArg | None, Field(description="The entity the conversation is about.")
        ] = None,
        as_of: AsOf = None,
        known_at: KnownAt = None,
    ) -> object:
        """The core snapshot to keep in mind about a space: profile, its current facts (about's
        first), preferences, active goals and tasks, recent decisions — as text within
        budget_bytes, with the keys it drew on."""

        memory, view = await reading(ctx, space, as_of, known_at)
        subject = about.ref("about") if about is not None else None
        snapshot = await memory.reads.context(view, budget_bytes=budget_bytes, about=subject)
        return snapshot_json(space, snapshot)

    @tool(server)
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
    ) -> object:
        """The entities around one entity through visible relations, each with its hop
        distance, and the relations between them (type, valid interval, claim key)."""

        memory, view = await reading(ctx, space, as_of, known_at)
        found = await memory.reads.related(
            view,
            entity.ref("entity"),
            hops=hops,
            relation_types=relation_types,
            direction=direction,
            first=first,
        )
        return neighbourhood_json(found)

    @tool(server)
    async def explain_relation(
        ctx: Context,
        space: Space,
        from_: Annotated[
            EntityArg, Field(validation_alias="from", description="Where the paths start.")
        ],
        to: Annotated[EntityArg, Field(description="Where the paths end.")],
        max_hops: Annotated[int, Field(ge=1, le=4, description="Longest path, 1–4.")] = 3,
        first: Annotated[int, Field(ge=1, le=20, description="Paths at most.")] = 5,
        as_of: AsOf = None,
        known_at: KnownAt = None,
    ) -> object:
        """Why two entities are connected: the shortest visible paths, each hop with its
        relation, direction, valid interval, the claim asserting it and its evidence quotes."""

        memory, view = await reading(ctx, space, as_of, known_at)
        found = await memory.reads.explain_relation(
            view, from_.ref("from"), to.ref("to"), max_hops=max_hops, first=first
        )
        return explanation_json(found)

    @tool(server)
    async def history(
        ctx: Context,
        space: Space,
        key: Annotated[str, Field(description="The claim's key, e.g. pref:ui:theme.")],
        known_at: KnownAt = None,
    ) -> object:
        """Every revision of one claim, oldest first, with its valid interval, recorded
        interval, status, reason and evidence."""

        memory, view = await reading(ctx, space, None, known_at)
        return await claims_json(memory, view, await memory.reads.claim_history(view, key))

    @tool(server)
    async def changes(
        ctx: Context,
        space: Space,
        from_: Annotated[
            Instant,
            Field(
                validation_alias="from",
                description="Where to start, inclusive (ISO-8601 or a date).",
            ),
        ],
        to: Annotated[Instant, Field(description="Where to stop, exclusive (ISO-8601 or a date).")],
        axis: Annotated[
            Axis,
            Field(
                description="VALID: what began or ended being so in the world then (as known "
                "at known_at); RECORDED: what Engram learned, corrected or forgot then."
            ),
        ] = Axis.RECORDED,
        about: Annotated[EntityArg | None, Field(description="Only changes about this.")] = None,
        first: Annotated[int, Field(ge=1, le=500, description="Changes at most.")] = 100,
        known_at: KnownAt = None,
    ) -> object:
        """What changed between two instants: each change's kind (BEGAN, ENDED, CORRECTED,
        FORGOTTEN), when, and the claim (with the revision a correction replaced); a
        forgetting shows only its kind, when and how many things went."""

        memory, view = await reading(ctx, space, None, known_at)
        subject = about.ref("about") if about is not None else None
        found = await memory.reads.changes(view, from_, to, axis=axis, about=subject, first=first)
        return await changes_json(memory, view, found)

    register_changes(server, caller)
    register_context_resource(server, caller)


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
            snapshot = await memory.reads.context(await memory.reads.view(actor, space))
        except EngramError as error:
            raise ResourceError(f"{error.code}: {error.message}") from None
        return snapshot.text
