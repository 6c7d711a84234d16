"""Legal holds: while one covers data, neither forget nor retention may erase it (`LEGAL_HOLD`).

A hold keeps its selector, not a frozen list of ids, so what it covers is resolved again at every
check: a hold on a subject + predicate also covers claims with them written after the hold.

    hold_id = await set_legal_hold(graph, "alice", HoldInput(selector=..., reason="case 7"),
                                   actor=counsel)
    await release_legal_hold(graph, "alice", hold_id, reason="case closed", actor=counsel)

Holds stay in named Cypher, written only here (and swept with a forgotten space's nodes by the
purge outbox), not with neomodel like API keys: placing or releasing one is a write command like
any other — it ticks its space's recorded-time clock, checks the space and the actor's tier and
writes its `AuditEvent`, all in one Engram transaction — and neomodel cannot write in a
transaction it did not begin (no public call hands it Engram's). A neomodel hold would be a
second transaction, so a hold could exist without its audit event or its recorded time from the
space's clock.
`check_holds` reads holds in the forget's own transaction, which is what makes them bind.
"""

from __future__ import annotations

import json
from contextlib import suppress
from dataclasses import dataclass, replace
from typing import LiteralString

from pydantic import BaseModel, ConfigDict, Field

from graph.commands.audit import AuditLog, Undo, undo_once
from graph.commands.references import EntityRef
from graph.commands.writing import WriteContext, new_id, run_command
from graph.domain.actor import Actor
from graph.domain.errors import Forgotten, LegalHold, NotFound
from graph.domain.vocabulary import Privacy
from graph.erasure.selectors import Selection, Selector, SelectorKind, select
from graph.store.db import Graph

CREATE_HOLD: LiteralString = """
CREATE (h:LegalHold)
SET h = $props, h.recordedAt = $now
"""

ACTIVE_HOLDS: LiteralString = """
MATCH (h:LegalHold {spaceId: $spaceId})
WHERE h.releasedAt IS NULL
RETURN h.id AS id, h.selectorJson AS selector, h.reason AS reason,
       coalesce(h.privacy, 3) AS privacy
"""

EVIDENCE_OF_CLAIMS: LiteralString = """
UNWIND $ids AS id
MATCH (:Claim {id: id})-[:SUPPORTED_BY|CONTRADICTED_BY|CORRECTED_BY]->(t)
RETURN id AS claimId, collect(DISTINCT t.id) AS evidence
"""

RELEASE_HOLD = Undo(
    query="""
MATCH (h:LegalHold {id: $id})
WHERE h.spaceId = $spaceId AND coalesce(h.privacy, 3) <= $maxPrivacy
WITH h, h.releasedAt IS NOT NULL AS wasReleased
SET h.releasedAt = coalesce(h.releasedAt, $now),
    h.releaseReason = coalesce(h.releaseReason, $reason)
RETURN wasReleased
""",
    action="releaseLegalHold",
    what="legal hold",
    field="holdId",
    already="wasReleased",
)


class HoldInput(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    selector: Selector
    reason: str = Field(min_length=1, max_length=2000)


async def set_legal_hold(graph: Graph, space: str, hold: HoldInput, *, actor: Actor) -> str:
    """Place a hold; returns its id. The selector must select something that exists."""

    actor.check_legal(space)

    async def work(ctx: WriteContext) -> str:
        selection = await select(ctx, hold.selector)
        selector = hold.selector
        if selection.subject_id is not None:
            # Held by id: a later rename, or another entity taking the name, changes nothing.
            selector = selector.model_copy(update={"subject": EntityRef(id=selection.subject_id)})
        hold_id = new_id()
        props = {
            "id": hold_id,
            "spaceId": ctx.space_id,
            # Only a legal holder at this tier or above may see and release it.
            "privacy": int(ctx.max_privacy),
            "selectorJson": selector.model_dump_json(),
            "reason": hold.reason,
            "actor": ctx.actor,
        }
        await ctx.run(CREATE_HOLD, props=props)
        await AuditLog().add("setLegalHold", [hold_id], detail=hold.selector.kind.value).write(ctx)
        return hold_id

    return await run_command(graph, space, actor, work)


async def release_legal_hold(
    graph: Graph, space: str, hold_id: str, *, reason: str, actor: Actor
) -> bool:
    """Release a hold from now on; False when it was released already."""
    actor.check_legal(space)
    return await undo_once(graph, space, actor, RELEASE_HOLD, hold_id, reason)


@dataclass(frozen=True)
class ActiveHold:
    id: str
    reason: str
    whole_space: bool
    privacy: int
    covers: frozenset[str]


async def active_holds(ctx: WriteContext) -> list[ActiveHold]:
    """The holds in force, each with the ids it covers now.

    A hold covers what its selector selects at every tier, whoever asks: it was placed by
    someone with the legal grant, and it binds every writer."""
    holds: list[ActiveHold] = []
    everything = replace(ctx, max_privacy=Privacy.SECRET)
    for row in await ctx.run(ACTIVE_HOLDS):
        held_selector = Selector.model_validate(json.loads(row["selector"]))
        whole = held_selector.kind is SelectorKind.SPACE
        covers: set[str] = set()
        if not whole:
            # NotFound / Forgotten: nothing is left that the hold could cover.
            with suppress(NotFound, Forgotten):
                covers = (await select(everything, held_selector)).all_ids()
        holds.append(ActiveHold(row["id"], row["reason"], whole, row["privacy"], frozenset(covers)))
    return holds


async def held_ids(ctx: WriteContext) -> tuple[set[str], list[tuple[str, str, bool]]]:
    """Ids active holds cover now, and the holds (id, reason, covers the whole space)."""
    holds = await active_holds(ctx)
    covered = set().union(*(hold.covers for hold in holds))
    return covered, [(hold.id, hold.reason, hold.whole_space) for hold in holds]


async def check_holds(ctx: WriteContext, selection: Selection) -> set[str]:
    """Refuse with LEGAL_HOLD when an active hold covers anything in `selection` — or anything
    a held claim rests on, since erasing its evidence would strip it or cascade it to
    retracted. Returns the ids holds cover (so erasure leaves held evidence alone)."""
    holds = await active_holds(ctx)
    if not holds:
        return set()
    chosen = selection.all_ids()
    covered = set().union(*(hold.covers for hold in holds))
    rests_on = {
        row["claimId"]: set(row["evidence"])
        for row in await ctx.run(EVIDENCE_OF_CLAIMS, ids=sorted(covered))
    }
    refusing = [
        hold
        for hold in holds
        if hold.whole_space
        or selection.whole_space
        or (hold.covers.union(*(rests_on.get(i, set()) for i in hold.covers)) & chosen)
    ]
    if refusing:
        _refuse(ctx, refusing)
    return covered


def _refuse(ctx: WriteContext, holds: list[ActiveHold]) -> None:
    """LEGAL_HOLD; only a caller with the legal grant, at the tier a hold was placed at or
    above, learns which hold it is and why."""
    named = [h for h in holds if ctx.legal and h.privacy <= ctx.max_privacy]
    if len(named) == len(holds) == 1:
        raise LegalHold(
            f"legal hold {named[0].id} ({named[0].reason}) covers this data; release it first",
            field="selector",
        )
    if named and len(named) == len(holds):
        listed = ", ".join(f"{h.id} ({h.reason})" for h in named)
        raise LegalHold(
            f"legal holds {listed} cover this data; release them first", field="selector"
        )
    raise LegalHold("a legal hold covers this data", field="selector")
