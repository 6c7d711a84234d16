"""Re-keying a predicate's facts when its rule changes (ENGRAM.md §2: a key's timeline is a
function of the facts told, whenever the rule was declared).

A rule decides a fact's key (`graph.domain.cardinality`): `fact:<subject>:<PREDICATE>` under
`ONE`, one more part (the object or the value) under `MANY`. When a space declares a rule for a
predicate that already has facts keyed the other way, every current told fact of the predicate,
at every tier, is written again under the key the new rule gives, as a new revision at the
declaration's recorded time; the row it restates is superseded then, so a view as known before
the declaration answers as it did. The restated rows keep their content, valid time, privacy,
status and supporting evidence, and keep the order they were told in (`told_seq`), so the told
facts of a new `ONE` key are chosen between at read time exactly as if the rule had come first:

* where two of them, in one tier line, start at the same `validFrom`, the one told later stands
  and the earlier is superseded (as a later telling there replaces it); when both say the same
  value over the same time, the later keeps the earlier's evidence too (it corroborated it);
* a `ONE` key split under `MANY` gives each value its own key; a fact replaced under the old
  rule stays replaced.

    kept = rekeyed(rows, {row.id: new_key for row in rows})
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, LiteralString

from graph.commands.claim_rows import ClaimRow
from graph.commands.evidence import EvidencePlan
from graph.commands.revisions import WritePlan, load_key_states
from graph.commands.write_batch import write_all
from graph.commands.writing import WriteContext, new_id
from graph.domain import memory_types as mt
from graph.domain.cardinality import fact_key_under
from graph.domain.errors import ValidationFailed
from graph.domain.timeutil import to_native
from graph.domain.vocabulary import Cardinality, Privacy
from graph.store.db import run
from graph.store.rows import STORED_CLAIM

MAX_REKEYED = 100_000
"""The most told facts one declaration re-keys (in one transaction)."""

# Every current told fact of `$predicate`, at every tier, with the keys of its entities and
# when it was told (its own evidence is linked at each telling, corroborations included).
CURRENT_FACTS_OF_PREDICATE: LiteralString = (
    """
MATCH (c:Claim {spaceId: $spaceId, type: 'fact', predicate: $predicate})
WHERE c.supersededAt IS NULL AND c.erasedAt IS NULL
OPTIONAL MATCH (s:Entity {id: c.subjectId})
OPTIONAL MATCH (o:Entity {id: c.objectId})
OPTIONAL MATCH (c)-[e:SUPPORTED_BY]->()
WITH c, s, o, collect(DISTINCT e.recordedAt) AS toldAt
RETURN """
    + STORED_CLAIM
    + """ AS claim, s.key AS subjectKey, o.key AS objectKey, toldAt
LIMIT $limit
"""
)


def _subject_key(row: ClaimRow) -> str:
    """The subject's entity key as the row's own key names it (its entity is gone)."""
    kind, _, canonical = (mt.parse_key(row.key).part("subject") or "/").partition("/")
    return f"entity:{kind}:{canonical}"


@dataclass
class Restated:
    """A row that stands under its new key: when it was last told there (what orders it among
    the told facts of its key), and the rows that corroborated it there."""

    row: ClaimRow
    key: str
    told_at: datetime
    corroborating: list[ClaimRow] = field(default_factory=list)


def _says_the_same(a: ClaimRow, b: ClaimRow) -> bool:
    return (a.object_id, a.value_json, a.valid_to, a.status) == (
        b.object_id,
        b.value_json,
        b.valid_to,
        b.status,
    )


def rekeyed(
    rows: Sequence[ClaimRow],
    new_keys: Mapping[str, str],
    told_at: Mapping[str, Sequence[datetime]] | None = None,
) -> list[Restated]:
    """The rows that stand under their new keys, in the order they were told, as if every
    telling had been made under the new keys in the order it was made (pure planning; rows not
    returned are superseded without a successor).

    A row was told when it was recorded and again whenever a telling corroborated it
    (`told_at`: those times, from its evidence). Replayed in time order, in one tier line of a
    new key, a telling at the start of a standing row corroborates it when it says the same
    over the same time (the standing row keeps its place in the order), else replaces it.
    """
    tellings = sorted(
        (when, row.told_seq, n, row)
        for n, row in enumerate(rows)
        for when in {_recorded(row), *(told_at or {}).get(row.id, ())}
    )
    standing: dict[tuple[str, int, Any], Restated] = {}
    for when, _, _, row in tellings:
        slot = (new_keys[row.id], int(row.privacy), row.valid_from)
        earlier = standing.get(slot)
        if earlier is not None and earlier.row.id == row.id:
            continue
        if earlier is not None and _says_the_same(earlier.row, row):
            if row not in earlier.corroborating:
                earlier.corroborating.append(row)
            continue
        standing[slot] = Restated(row, new_keys[row.id], when)
    return sorted(standing.values(), key=lambda kept: (kept.told_at, kept.row.told_seq))


def _recorded(row: ClaimRow) -> datetime:
    assert row.recorded_at is not None, "only stored rows are re-keyed"
    return row.recorded_at


async def rekey_facts(ctx: WriteContext, predicate: str, cardinality: Cardinality) -> int:
    """Restate `predicate`'s current told facts under `cardinality` (every tier: a rule is the
    whole space's); how many were restated (none when every key is already right)."""
    whole = dataclasses.replace(ctx, max_privacy=Privacy.SECRET)
    found = await run(
        whole.tx,
        CURRENT_FACTS_OF_PREDICATE,
        spaceId=ctx.space_id,
        predicate=predicate,
        limit=MAX_REKEYED + 1,
    )
    if len(found) > MAX_REKEYED:
        raise ValidationFailed(
            f"predicate {predicate} has more than {MAX_REKEYED:,} current facts in this space, "
            "more than one declaration re-keys; forget or archive some first",
            field="cardinality",
        )
    rows, new_keys, told_at = [], {}, {}
    for entry in found:
        row = ClaimRow.from_props(entry["claim"])
        subject_key = entry["subjectKey"] or _subject_key(row)
        new_keys[row.id] = fact_key_under(
            cardinality, subject_key, predicate, entry["objectKey"], row.value()
        )
        told_at[row.id] = [to_native(when) for when in entry["toldAt"]]
        rows.append(row)
    if all(new_keys[row.id] == row.key for row in rows):
        return 0
    plan, evidence = WritePlan(), EvidencePlan()
    states = await load_key_states(whole, sorted(set(new_keys.values())))
    for row in rows:
        # Rows already keyed right are restated too: every told fact of a key then carries the
        # same recorded time, and the told order alone decides between same-start facts.
        if row.key in states:
            states[row.key].current = [r for r in states[row.key].current if r.id != row.id]
        plan.superseded.append(row.id)
    for seq, kept in enumerate(rekeyed(rows, new_keys, told_at)):
        row, state = kept.row, states[kept.key]
        new = row.restated(
            id=new_id(),
            key=kept.key,
            revision=state.next_revision(row.privacy),
            actor=ctx.actor,
            reason=f"re-keyed: {predicate} is now {cardinality.name}",
            told_seq=seq,
        )
        plan.create(new, state, revises=row.id)
        evidence.copy_support(row, new.id)
        for other in kept.corroborating:
            evidence.copy_support(other, new.id)
    await write_all(whole, plan, evidence)
    return len(rows)
