"""remember: create or revise claims, with evidence, in one transaction — one vertical slice.

    [claim] = await remember(graph, "alice", [RememberInput(
        key="pref:ui:theme", value={"value": "dark"},
        evidence=[EvidenceRef(observation_id=said_dark)])], actor=agent)
    claim.revision, claim.status
    (1, <ClaimStatus.ACTIVE: 'active'>)

Read top to bottom, in the order a batch flows: `input` (what an item is, checked without the
database) → `resolve` (what the items refer to: replays, entities found or named in passing,
evidence) → `plan` (keys, told facts and their revisions, aliases, evidence links, audit) →
`write` (one statement, and the claims the items answer with). No step imports a later one.
Nothing is written unless every item passes: key grammar, value shape, entities, evidence, gate,
`expectedRevision`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graph.commands.remember.input import Path, RememberInput, paths, validate
from graph.commands.remember.lookup import Lookup
from graph.commands.remember.plan import plan
from graph.commands.remember.resolve import resolve
from graph.commands.remember.write import write
from graph.commands.writing import WriteContext, run_command
from graph.domain.actor import Actor
from graph.domain.errors import EngramError
from graph.domain.inputs import parse
from graph.domain.model import Claim
from graph.domain.vocabulary import MemoryType
from graph.store.db import Graph

__all__ = ["RememberInput", "remember", "remember_in", "validate"]


async def remember(
    graph: Graph,
    space: str,
    items: Sequence[RememberInput | Mapping[str, Any]],
    *,
    actor: Actor,
    field: str | None = None,
) -> list[Claim]:
    """Remember `items` (models, or plain data to validate) in one transaction (all or
    nothing); one claim revision per item. With `field`, a failure names its item
    (`inputs[3].subject`); the first invalid item in order is the one reported."""
    if not items:
        return []
    path = paths(field)
    parsed, types = _validated(items, path)

    lookup = Lookup(parsed, types)

    async def work(ctx: WriteContext) -> list[Claim]:
        return await _remember_in(ctx, lookup, path)

    return await run_command(graph, space, actor, work, reading=lookup.reading)


async def remember_in(ctx: WriteContext, items: Sequence[RememberInput]) -> list[Claim]:
    """`remember` inside a writing transaction that has begun (`begin_write`)."""
    path = paths(None)
    parsed, types = _validated(items, path)
    return await _remember_in(ctx, Lookup(parsed, types), path)


def _validated(
    items: Sequence[RememberInput | Mapping[str, Any]], path: Path
) -> tuple[list[RememberInput], list[MemoryType]]:
    """Each item parsed and checked, in order; the first that fails names its place."""
    parsed: list[RememberInput] = []
    types: list[MemoryType] = []
    for index, item in enumerate(items):
        try:
            parsed.append(
                item if isinstance(item, RememberInput) else parse(RememberInput, dict(item))
            )
            types.append(validate(parsed[-1]))
        except EngramError as failure:
            where = path(index, "")
            raise failure.at(where) if where else failure from None
    return parsed, types


async def _remember_in(ctx: WriteContext, lookup: Lookup, path: Path) -> list[Claim]:
    resolved = await resolve(ctx, lookup, path)
    return await write(ctx, await plan(ctx, resolved, path))
