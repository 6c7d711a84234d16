"""Planning a resolved `remember` batch: the rows one transaction writes.

* **Keys**: a fact's key is derived from its subject and predicate, plus its object (or value)
  only when the predicate is `MANY` (`graph.domain.cardinality`); a key the caller gives must
  name the subject, and have the shape of the rule when the space declared one or the write
  states one (under a default rule a given key is taken as it is: exports import unchanged).
* **Told facts** (ENGRAM.md §2): a new telling of a one-value key ends no other told fact — a
  view chooses between them — except the one told at the same `validFrom` in the writer's tier
  line, which it corroborates or replaces (`graph.commands.telling`); a versioned key's rows
  coexist. A claim holds from its `validFrom`, else from its evidence's observation time; the
  name an entity is created with holds from the open beginning.
* **Aliases**: a name that folds onto an entity's name without being one of its names
  ("Winnie the Pooh" for "Winnie-the-Pooh") is recorded as its alias — a revision of the entity
  claim shown now, at its start and tier.
* **Checks that need the batch**: an idempotency key used twice for different requests, the
  retention gate, `expectedRevision`.

    planned = await plan(ctx, resolved, path)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.commands.audit import AuditLog
from graph.commands.claim_rows import ClaimContent, ClaimRow, claim_row
from graph.commands.entity_refs import ResolvedEntity
from graph.commands.evidence import EvidencePlan, ResolvedEvidence
from graph.commands.predicate_rules import PredicateRules, load_rules
from graph.commands.references import EntityRef, EvidenceRef
from graph.commands.remember.input import Path, RememberInput, fact_key
from graph.commands.remember.resolve import BatchEntities, EntityUse, ResolvedBatch, WorkItem
from graph.commands.revisions import KeyState, WritePlan, load_key_states, told_fact
from graph.commands.telling import Corroborates, Telling, told_at_same_start
from graph.commands.writing import WriteContext
from graph.domain import memory_types as mt
from graph.domain.errors import Conflict, EngramError, RevisionConflict
from graph.domain.intervals import Interval
from graph.domain.memory_types import ConflictPolicy
from graph.domain.timeline import shown
from graph.domain.vocabulary import EvidenceKind, MemoryType, Privacy


@dataclass
class PlannedBatch:
    """The rows, links and audit events of a batch, and the claim each item answers with."""

    resolved: ResolvedBatch
    rows: WritePlan = field(default_factory=WritePlan)
    evidence: EvidencePlan = field(default_factory=EvidencePlan)
    audit: AuditLog = field(default_factory=AuditLog)
    answers: list[str] = field(default_factory=list)
    """The claim id each of the caller's items answers with, in order."""


def _key(found: ResolvedEntity | str) -> str:
    return found.key if isinstance(found, ResolvedEntity) else found


def key_of(w: WorkItem, entities: BatchEntities, rules: PredicateRules | None) -> str:
    if w.memory_type is not MemoryType.FACT:
        assert w.item.key is not None
        return w.item.key
    assert w.item.subject is not None and rules is not None
    # Keys are derived before the batch's new entities have ids: from their keys alone.
    tier = int(w.item.privacy)
    subject = _key(entities.found[(w.item.subject, tier)])
    obj = _key(entities.found[(w.item.object, tier)]) if w.item.object is not None else None
    return fact_key(w.item, subject, obj, rules)


def _loose(name: str) -> str:
    return " ".join(name.lower().split())


def aliases(
    keyed: list[tuple[WorkItem, str]],
    entities: BatchEntities,
    states: dict[str, KeyState],
    now: datetime,
) -> list[tuple[WorkItem, str]]:
    """`keyed` (items and their keys) with an alias revision before each item that named an
    entity by a spelling that folds onto one of its names but is none of them — at the tier of
    the name shown now (a writer at another tier adds none)."""
    added: set[str] = set()
    done: list[tuple[WorkItem, str]] = []
    for w, key in keyed:
        for ref in (w.item.subject, w.item.object):
            found = entities.found.get((ref, int(w.item.privacy))) if ref is not None else None
            if ref is None or ref.name is None or not isinstance(found, ResolvedEntity):
                continue
            state = states.get(found.key)
            rows = [r for r in state.current if r.type is MemoryType.ENTITY] if state else []
            named = shown([told_fact(r) for r in rows], now)
            row = next((r for r in rows if named and r.id == named.id), None)
            spelled = " ".join(ref.name.split())
            if row is None or row.privacy != w.item.privacy or found.key in added:
                continue
            names = [row.name or "", *(row.aliases or [])]
            if _loose(spelled) in {_loose(n) for n in names}:
                continue
            value = row.value() if isinstance(row.value(), dict) else {}
            alias = RememberInput(
                type=MemoryType.ENTITY,
                key=found.key,
                value={**value, "aliases": [*(row.aliases or []), spelled]},
                evidence=w.item.evidence,
                confidence=row.confidence,
                importance=row.importance,
                privacy=row.privacy,
                valid_from=row.valid_from,
                valid_to=row.valid_to,
            )
            added.add(found.key)
            done.append((WorkItem(w.index, alias, MemoryType.ENTITY, by_naming=True), found.key))
        done.append((w, key))
    return done


def _alias_keys(work: list[WorkItem], entities: BatchEntities) -> list[str]:
    """The entities named by a spelling other than their display name (alias candidates)."""
    keys = []
    for w in work:
        for ref in (w.item.subject, w.item.object):
            if ref is None or ref.name is None:
                continue
            found = entities.found.get((ref, int(w.item.privacy)))
            if isinstance(found, ResolvedEntity) and _loose(ref.name) != _loose(found.name):
                keys.append(found.key)
    return keys


def batch_entities(
    ctx: WriteContext,
    entities: BatchEntities,
    states: dict[str, KeyState],
    rows: WritePlan,
    work: list[WorkItem],
    keys: list[str],
) -> dict[EntityUse, ResolvedEntity]:
    """Every reference's entity, those the batch names given their ids now (each at the
    lowest tier of the batch's entity claims of its key: every use of it is at that tier or
    above, as `resolve.name_entities` sees to)."""
    tiers: dict[str, Privacy] = {}
    names: dict[str, str] = {}
    for w, key in zip(work, keys, strict=True):
        if w.memory_type is MemoryType.ENTITY:
            tiers[key] = min(tiers.get(key, w.item.privacy), w.item.privacy)
            value = w.item.value if isinstance(w.item.value, dict) else {}
            name = value.get("name")
            if isinstance(name, str):
                names.setdefault(key, name)
    resolved: dict[EntityUse, ResolvedEntity] = {}
    for use, found in entities.found.items():
        if isinstance(found, ResolvedEntity):
            resolved[use] = found
        else:
            tier = tiers[found]
            entity_id = rows.entity_for(ctx, found, states[found], tier)
            canonical = found.split(":", 2)[2]
            name = names.get(found, canonical)
            resolved[use] = ResolvedEntity(entity_id, found, canonical, name, int(tier))
    return resolved


def cite_key(ref: EvidenceRef, item: RememberInput) -> Any:
    """What a piece of evidence of `item` is resolved under (`ResolvedBatch.evidence`)."""
    return ref.target_id if ref.text is None else (ref, int(item.privacy))


async def plan(ctx: WriteContext, resolved: ResolvedBatch, path: Path) -> PlannedBatch:
    """Plan every row of `resolved` (refusing with the first item's failure, by its field)."""
    planned = PlannedBatch(resolved)
    work = resolved.work
    has_facts = any(w.memory_type is MemoryType.FACT for w in work)
    rules = await load_rules(ctx) if has_facts else None
    keyed: list[tuple[WorkItem, str]] = []
    for w in work:
        try:
            keyed.append((w, key_of(w, resolved.entities, rules)))
        except EngramError as failure:
            raise _at(failure, path(w.index, "")) from None
    looked_at = _alias_keys(work, resolved.entities)
    needed = {key for _, key in keyed} | set(looked_at)
    states = {key: resolved.key_states[key] for key in needed & resolved.key_states.keys()}
    if unread := needed - states.keys():
        states |= await load_key_states(ctx, sorted(unread))
    if looked_at:
        keyed = aliases(keyed, resolved.entities, states, ctx.now)
    work, keys = [w for w, _ in keyed], [key for _, key in keyed]
    entities = batch_entities(ctx, resolved.entities, states, planned.rows, work, keys)
    answers: dict[int, str] = {
        index: resolved.replays[item.idempotency_key].result["claimId"]
        for index, item in enumerate(resolved.items)
        if item.idempotency_key in resolved.replays
    }
    in_batch: dict[str, tuple[RememberInput, str]] = {}
    for position, (w, key) in enumerate(zip(work, keys, strict=True)):
        try:
            claim_id = _earlier_in_batch(in_batch, w.item)
            if claim_id is None:
                cited = _admitted(planned, w, key, states[key])
                told = Telling(position, w.by_naming)
                claim_id = _told(ctx, planned, w, key, states[key], entities, cited, told)
        except EngramError as failure:
            raise _at(failure, path(w.index, "")) from None
        if w.by_naming:
            planned.audit.add("remember", [claim_id], result={"claimId": claim_id})
            continue
        answers[w.index] = claim_id
        idempotency_key = w.item.idempotency_key
        if idempotency_key is not None and idempotency_key not in in_batch:
            in_batch[idempotency_key] = (w.item, claim_id)
            planned.audit.add(
                "remember",
                [claim_id],
                idempotency_key=idempotency_key,
                request_hash=resolved.hashes[idempotency_key][1],
                result={"claimId": claim_id},
            )
        elif idempotency_key is None:
            planned.audit.add("remember", [claim_id], result={"claimId": claim_id})
    planned.answers = [answers[index] for index in range(len(resolved.items))]
    return planned


def _at(failure: EngramError, where: str) -> EngramError:
    return failure.at(where) if where else failure


def _earlier_in_batch(
    in_batch: dict[str, tuple[RememberInput, str]], item: RememberInput
) -> str | None:
    """The claim id an earlier item of the batch with this item's idempotency key answered
    (`CONFLICT` when that item asked for something else); None when there is none."""
    if item.idempotency_key not in in_batch:
        return None
    earlier_item, earlier_id = in_batch[item.idempotency_key]
    if earlier_item != item:
        raise Conflict(
            f"idempotency key {item.idempotency_key!r} is used twice in one batch "
            "for different requests",
            field="idempotencyKey",
        )
    return earlier_id


def _admitted(
    planned: PlannedBatch, w: WorkItem, key: str, state: KeyState
) -> list[ResolvedEvidence]:
    """The evidence an item cites, once the item passes the gate and its `expectedRevision`."""
    item = w.item
    cited = [planned.resolved.evidence[cite_key(ref, item)] for ref in item.evidence]
    mt.check_gate(
        w.memory_type, confidence=item.confidence, authorities={e.authority for e in cited}
    )
    head = state.head_at(item.privacy)
    if item.expected_revision is not None and item.expected_revision != head:
        raise RevisionConflict(
            f"{key} is at revision {head}, not {item.expected_revision}",
            field="expectedRevision",
        )
    return cited


def _told(
    ctx: WriteContext,
    planned: PlannedBatch,
    w: WorkItem,
    key: str,
    state: KeyState,
    entities: dict[EntityUse, ResolvedEntity],
    cited: list[ResolvedEvidence],
    told: Telling,
) -> str:
    item, memory_type, rows = w.item, w.memory_type, planned.rows
    # An entity is timeless unless told (ENGRAM.md §2): the name it is created with holds from
    # the open beginning of valid time when the write gives no `validFrom`. Any other claim — a
    # later name of an entity too ("Acme Corp is now Acme Global") — holds from its evidence's
    # observation time unless told. A name given in passing is the first of its tier's line
    # when that line is empty (a writer above may see names of other lines).
    valid_from: datetime | None = item.valid_from
    named = state.line(item.privacy) if w.by_naming else state.current
    if valid_from is None and (memory_type is not MemoryType.ENTITY or named):
        valid_from = min(e.observed_at for e in cited)
    interval = Interval(valid_from, item.valid_to)
    tier = int(item.privacy)
    subject = entities[(item.subject, tier)] if item.subject is not None else None
    obj = entities[(item.object, tier)] if item.object is not None else None
    if memory_type is MemoryType.ENTITY:
        subject_id: str | None = rows.entity_for(ctx, key, state, item.privacy)
    else:
        subject_id = subject.id if subject else None
    content = ClaimContent(subject_id, item.predicate, obj.id if obj else None, item.value)
    policy = mt.POLICIES[memory_type]

    # A key's rows at each tier are a line of their own: a write changes only its own tier's
    # line, so no reader below a tier ever sees its rows ended by a write it cannot see.
    replaced: list[ClaimRow] = []
    if policy is ConflictPolicy.OVERWRITE:
        decision = told_at_same_start(state.line(item.privacy), content, interval)
        if isinstance(decision, Corroborates):
            for resolved in cited:
                planned.evidence.link(decision.row, EvidenceKind.SUPPORTED_BY, resolved)
            return decision.row.id
        replaced = decision.rows
        for old in replaced:
            rows.supersede(ctx, old, state)

    first_revision = state.head_at(item.privacy) == 0
    row = claim_row(
        ctx,
        key=key,
        revision=state.next_revision(item.privacy),
        memory_type=memory_type,
        content=content,
        confidence=item.confidence,
        importance=item.importance,
        privacy=item.privacy,
        pinned=item.pinned,
        interval=interval,
        subject_name=_name_used(item.subject, subject),
        object_name=_name_used(item.object, obj),
        reason=None if first_revision else f"{policy} policy: remembered again",
    )
    row.fact_id = (replaced[0].fact_id or replaced[0].id) if replaced else row.id
    row.told_seq = told.seq
    row.by_naming = told.by_naming
    if policy is ConflictPolicy.OVERWRITE:
        revises = replaced[0].id if replaced else None
    else:
        revises = state.latest_current_id(item.privacy)
    rows.create(row, state, revises=revises)
    for resolved in cited:
        planned.evidence.link(row, EvidenceKind.SUPPORTED_BY, resolved)
    return row.id


def _name_used(ref: EntityRef | None, entity: ResolvedEntity | None) -> str | None:
    """What a claim's text calls an entity: the name the write gave (its name now when the two
    differ only in case and spacing), else its name now."""
    if ref is None or entity is None:
        return None
    if ref.name is None or _loose(ref.name) == _loose(entity.name):
        return entity.name
    return " ".join(ref.name.split())
