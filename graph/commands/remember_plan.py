"""Planning the rows of one `remember` batch once its references are resolved: each item's
checks that need the batch (idempotency key, gate, `expectedRevision`), its revision under its
type's policy, its evidence links, and the claims the batch answers with.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from graph.commands.claim_rows import ClaimContent, ClaimRow, claim_row
from graph.commands.entity_refs import EntityRef, ResolvedEntity
from graph.commands.evidence import EvidencePlan, EvidenceRef, ResolvedEvidence
from graph.commands.predicate_rules import PredicateRules
from graph.commands.remember_refs import BatchEntities, fact_key
from graph.commands.revisions import KeyState, WritePlan, load_claims
from graph.commands.telling import Corroborates, Telling, told_at_same_start
from graph.commands.writing import WriteContext
from graph.domain import memory_types as mt
from graph.domain.errors import Conflict, RevisionConflict
from graph.domain.intervals import Interval
from graph.domain.model import Claim, EvidenceKind, MemoryType, Policy, Privacy
from graph.store.rows import claim_record

if TYPE_CHECKING:
    from graph.commands.remember import RememberInput


def batch_entities(
    ctx: WriteContext,
    batch: BatchEntities,
    states: dict[str, KeyState],
    plan: WritePlan,
    work: list[tuple[int, RememberInput, MemoryType, bool]],
    keys: dict[int, str],
) -> dict[EntityRef, ResolvedEntity]:
    """Every reference's entity, those the batch creates given their ids now (each at the
    tier of the first entity claim of its key in the batch)."""
    tiers: dict[str, Privacy] = {}
    names: dict[str, str] = {}
    for position, (_, item, memory_type, _) in enumerate(work):
        if memory_type is MemoryType.ENTITY:
            tiers.setdefault(keys[position], item.privacy)
            value = item.value if isinstance(item.value, dict) else {}
            name = value.get("name")
            if isinstance(name, str):
                names.setdefault(keys[position], name)
    resolved: dict[EntityRef, ResolvedEntity] = {}
    for ref, found in batch.found.items():
        if isinstance(found, ResolvedEntity):
            resolved[ref] = found
        else:
            entity_id = plan.entity_for(ctx, found, states[found], tiers[found])
            canonical = found.split(":", 2)[2]
            resolved[ref] = ResolvedEntity(entity_id, found, canonical, names.get(found, canonical))
    return resolved


def checked_item(
    ctx: WriteContext,
    item: RememberInput,
    memory_type: MemoryType,
    key: str,
    state: KeyState,
    entities: dict[EntityRef, ResolvedEntity],
    evidence: dict[Any, ResolvedEvidence],
    plan: WritePlan,
    evidence_plan: EvidencePlan,
    in_batch: dict[str, tuple[RememberInput, str]],
    told: Telling,
) -> str:
    """Plan one item after the checks that need the batch: its idempotency key, the gate and
    `expectedRevision`; answers its claim id."""
    if item.idempotency_key in in_batch:
        earlier_item, earlier_id = in_batch[item.idempotency_key]
        if earlier_item != item:
            raise Conflict(
                f"idempotency key {item.idempotency_key!r} is used twice in one batch "
                "for different requests",
                field="idempotencyKey",
            )
        return earlier_id
    cited = [evidence[cite_key(ref, item)] for ref in item.evidence]
    mt.check_gate(memory_type, confidence=item.confidence, authorities={e.authority for e in cited})
    head = state.head_at(item.privacy)
    if item.expected_revision is not None and item.expected_revision != head:
        raise RevisionConflict(
            f"{key} is at revision {head}, not {item.expected_revision}",
            field="expectedRevision",
        )
    return _plan_item(
        ctx, item, memory_type, key, state, entities, cited, plan, evidence_plan, told
    )


def cite_key(ref: EvidenceRef, item: RememberInput) -> Any:
    return ref.target_id if ref.text is None else (ref, int(item.privacy))


async def results_of(
    ctx: WriteContext,
    result_ids: list[str],
    plan: WritePlan,
    evidence_plan: EvidencePlan,
    evidence: dict[Any, ResolvedEvidence],
) -> list[Claim]:
    """The claims a remember answers with: rows written now are built from what was written
    (no second read of a large batch; a row superseded again in the same batch ends where it
    begins), stored rows corroborated and replayed rows are loaded, and so are rows written now
    that got copies of a stored row's evidence (only the database has those)."""
    copied = {copy["toId"] for copy in evidence_plan.copies}
    written = {row.id: row for row in plan.rows if row.id not in copied}
    by_target = {e.ref.target_id: e for e in evidence.values()}
    links: dict[str, list[dict[str, Any]]] = {}
    for link in evidence_plan.links:
        if link["claimId"] in written:
            cited = by_target[link["targetId"]]
            links.setdefault(link["claimId"], []).append(cited.projection(link, ctx.now))
    unwritten = [i for i in result_ids if i not in written]
    loaded = await load_claims(ctx, unwritten) if unwritten else {}
    return [
        claim_record(written[i].stored_props(ctx.now), links.get(i, []), known_at=None)
        if i in written
        else loaded[i]
        for i in result_ids
    ]


def key_of(
    item: RememberInput,
    memory_type: MemoryType,
    batch: BatchEntities,
    rules: PredicateRules | None,
) -> str:
    if memory_type is not MemoryType.FACT:
        assert item.key is not None
        return item.key
    assert item.subject is not None and rules is not None
    # Keys are derived before the batch's new entities have ids: from their keys alone.
    subject = _key(batch.found[item.subject])
    obj = _key(batch.found[item.object]) if item.object is not None else None
    return fact_key(item, subject, obj, rules)


def _key(found: ResolvedEntity | str) -> str:
    return found.key if isinstance(found, ResolvedEntity) else found


def _plan_item(
    ctx: WriteContext,
    item: RememberInput,
    memory_type: MemoryType,
    key: str,
    state: KeyState,
    entities: dict[EntityRef, ResolvedEntity],
    cited: list[ResolvedEvidence],
    plan: WritePlan,
    evidence_plan: EvidencePlan,
    told: Telling,
) -> str:
    # An entity is timeless unless told (ENGRAM.md §2): the name it is created with holds from
    # the open beginning of valid time when the write gives no `validFrom`. Any other claim — a
    # later name of an entity too ("Acme Corp is now Acme Global") — holds from its evidence's
    # observation time unless told.
    valid_from: datetime | None = item.valid_from
    if valid_from is None and (memory_type is not MemoryType.ENTITY or state.current):
        valid_from = min(e.observed_at for e in cited)
    interval = Interval(valid_from, item.valid_to)
    subject = entities[item.subject] if item.subject is not None else None
    obj = entities[item.object] if item.object is not None else None
    subject_id: str | None
    if memory_type is MemoryType.ENTITY:
        subject_id = plan.entity_for(ctx, key, state, item.privacy)
    else:
        subject_id = subject.id if subject else None
    content = ClaimContent(subject_id, item.predicate, obj.id if obj else None, item.value)
    policy = mt.POLICIES[memory_type]

    # A key's rows at each tier are a line of their own: a write changes only its own tier's
    # line, so no reader below a tier ever sees its rows ended by a write it cannot see.
    replaced: list[ClaimRow] = []
    if policy is Policy.OVERWRITE:
        # Told facts of a one-value key stand side by side and a view shows, at each instant,
        # the latest-starting one (graph.domain.timeline), so a new fact ends none of them —
        # except the fact told before at the same `validFrom`, which it corroborates (the same
        # value and end) or replaces (another value or end: "left Acme in 2022").
        decision = told_at_same_start(state.line(item.privacy), content, interval)
        if isinstance(decision, Corroborates):
            for resolved in cited:
                evidence_plan.link(decision.row, EvidenceKind.SUPPORTED_BY, resolved)
            return decision.row.id
        replaced = decision.rows
        for old in replaced:
            plan.supersede(ctx, old, state)

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
    row.fact_id = replaced[0].fact_id or replaced[0].id if replaced else row.id
    row.told_seq = told.seq
    row.by_naming = told.by_naming
    if policy is Policy.OVERWRITE:
        revises = replaced[0].id if replaced else None
    else:
        revises = state.latest_current_id(item.privacy)
    plan.create(row, state, revises=revises)
    for resolved in cited:
        evidence_plan.link(row, EvidenceKind.SUPPORTED_BY, resolved)
    return row.id


def _name_used(ref: EntityRef | None, entity: ResolvedEntity | None) -> str | None:
    """What a claim's text calls an entity: the name the write gave, else its name now."""
    if ref is None or entity is None:
        return None
    return " ".join(ref.name.split()) if ref.name is not None else entity.name
