"""correct: SUPERSEDE, RETRACT or DISPUTE one claim revision — never edit it in place.

    fixed = await correct(graph, "alice", CorrectInput(
        claim_id=claim.id, kind=CorrectionKind.SUPERSEDE, value={"value": "light"},
        reason="user changed their mind", evidence=[EvidenceRef(observation_id=said_light)],
        expected_revision=claim.revision), actor=agent)

* SUPERSEDE writes a new revision with the new value and/or interval (by default the same
  interval: a correction of the record). With a later `validFrom` it is a change in the world:
  the old value is written again for the time before it. The old row gets `supersededAt` and a
  `CORRECTED_BY` link to the evidence that corrected it.
* RETRACT writes a revision with status `retracted` (history kept; it asserts no relation).
* DISPUTE writes a revision with status `disputed`, linked `CONTRADICTED_BY` to the contradicting
  evidence; with `against`, the other claim is marked disputed too and each is contradicted by
  the other's supporting evidence.
"""

from __future__ import annotations

from typing import Any, LiteralString

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, JsonValue, model_validator

from graph.commands.audit import AuditLog, check_idempotency_key, find_replays, request_hash
from graph.commands.claim_rows import ClaimContent, ClaimRow, claim_row
from graph.commands.entity_refs import resolve_entities
from graph.commands.evidence import EvidencePlan, ResolvedEvidence, resolve_evidence
from graph.commands.inline_evidence import record_inline
from graph.commands.references import MAX_EVIDENCE, EntityRef, EvidenceRef
from graph.commands.revisions import (
    KeyState,
    WritePlan,
    current_of_key,
    load_claims,
    load_key_states,
)
from graph.commands.write_batch import COPY_SUPPORT, write_all
from graph.commands.writing import WriteContext, run_command
from graph.domain import memory_types as mt
from graph.domain.actor import Actor
from graph.domain.errors import Forbidden, Forgotten, NotFound, RevisionConflict, ValidationFailed
from graph.domain.intervals import Interval, pieces_kept
from graph.domain.model import Claim, canonical_json
from graph.domain.vocabulary import (
    ClaimStatus,
    CorrectionKind,
    EvidenceKind,
    MemoryType,
    Privacy,
)
from graph.store.db import Graph
from graph.store.rows import STORED_CLAIM

MAX_REASON = 2000

TARGET_CLAIMS: LiteralString = (
    """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
WHERE c.spaceId = $spaceId
RETURN """
    + STORED_CLAIM
    + """ AS claim
"""
)

LINK_DISPUTE: LiteralString = """
MATCH (a:Claim {id: $aId})
MATCH (b:Claim {id: $bId})
CREATE (a)-[:DISPUTED_WITH {recordedAt: $now}]->(b)
"""


class CorrectInput(BaseModel):
    """A correction of one current claim revision: by `claim_id`, or by `claim_key` (the key's
    current revision, which must be one)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    claim_id: str | None = None
    claim_key: str | None = None
    kind: CorrectionKind
    reason: str = Field(min_length=1, max_length=MAX_REASON)
    evidence: list[EvidenceRef] = Field(default_factory=list, max_length=MAX_EVIDENCE)
    value: JsonValue = None
    object: EntityRef | None = None
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    privacy: Privacy | None = None
    against_claim_id: str | None = None
    expected_revision: int | None = Field(default=None, ge=0)
    idempotency_key: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> CorrectInput:
        if (self.claim_id is None) == (self.claim_key is None):
            raise ValueError("give exactly one of claim_id or claim_key")
        changes = {"value", "object", "valid_from", "valid_to", "confidence", "importance"}
        if self.kind is not CorrectionKind.SUPERSEDE and changes & self.model_fields_set:
            raise ValueError(f"only SUPERSEDE changes a claim's content, not {self.kind}")
        if self.kind is not CorrectionKind.DISPUTE and self.against_claim_id is not None:
            raise ValueError("only DISPUTE names a claim it is against")
        if self.kind is CorrectionKind.DISPUTE:
            if not self.evidence and self.against_claim_id is None:
                raise ValueError("a dispute cites contradicting evidence or a claim it is against")
        elif not self.evidence:
            raise ValueError(f"{self.kind} needs at least one evidence")
        if self.valid_from and self.valid_to and self.valid_to <= self.valid_from:
            raise ValueError("valid_to must be after valid_from")
        return self


async def correct(graph: Graph, space: str, change: CorrectInput, *, actor: Actor) -> Claim:
    """Apply one correction in one transaction; returns the new revision."""
    check_idempotency_key(change.idempotency_key)

    async def work(ctx: WriteContext) -> Claim:
        return await _correct_in(ctx, change)

    return await run_command(graph, space, actor, work)


async def correct_in(ctx: WriteContext, change: CorrectInput) -> Claim:
    """`correct` inside a writing transaction that has begun (`begin_write`)."""
    check_idempotency_key(change.idempotency_key)
    return await _correct_in(ctx, change)


async def _correct_in(ctx: WriteContext, change: CorrectInput) -> Claim:
    fingerprint = request_hash("correct", change.model_dump(mode="json"))
    if change.idempotency_key is not None:
        replays = await find_replays(ctx, {change.idempotency_key: ("correct", fingerprint)})
        if change.idempotency_key in replays:
            claim_id = replays[change.idempotency_key].result["claimId"]
            return (await load_claims(ctx, [claim_id]))[claim_id]

    claim_id = change.claim_id or await current_of_key(ctx, change.claim_key or "")
    ids = [claim_id] + ([change.against_claim_id] if change.against_claim_id else [])
    found = {
        row["claim"]["id"]: ClaimRow.from_props(row["claim"])
        for row in await ctx.run(TARGET_CLAIMS, ids=ids)
    }
    targets = [_existing_target(ctx, found.get(claim_id), claim_id) for claim_id in ids]
    target = targets[0]
    states = await load_key_states(ctx, [t.key for t in targets])
    state = states[target.key]
    head = state.head_at(target.privacy)
    if change.expected_revision is not None and change.expected_revision != head:
        raise RevisionConflict(
            f"{target.key} is at revision {head}, not {change.expected_revision}",
            field="expectedRevision",
        )
    for row in targets:
        _still_current(row)
    # Evidence text is kept at the tier of the rows it is linked to (old and new).
    tier = max(int(target.privacy), int(change.privacy or 0))
    refs = [(ref, f"evidence[{n}]") for n, ref in enumerate(change.evidence)]
    evidence: dict[Any, ResolvedEvidence] = dict(await resolve_evidence(ctx, refs))
    evidence.update(await record_inline(ctx, [(ref, tier, where) for ref, where in refs]))
    cited = [
        evidence[ref.target_id if ref.text is None else (ref, tier)] for ref in change.evidence
    ]

    plan = WritePlan()
    evidence_plan = EvidencePlan()
    old_row = state.row(target.id)
    reason = change.reason
    if change.kind is CorrectionKind.SUPERSEDE:
        new_row = await _supersede(ctx, change, old_row, state, plan, evidence_plan, cited)
    elif change.kind is CorrectionKind.RETRACT:
        if old_row.status is ClaimStatus.RETRACTED:
            raise ValidationFailed(f"claim {target.id} is already retracted", field="kind")
        plan.supersede(ctx, old_row, state)
        new_row = plan.restate(
            ctx, old_row, state, old_row.interval(), status=ClaimStatus.RETRACTED, reason=reason
        )
        for resolved in cited:
            evidence_plan.link(new_row, EvidenceKind.CONTRADICTED_BY, resolved)
    else:
        new_row = _dispute(ctx, old_row, state, plan, evidence_plan, reason)
        for resolved in cited:
            evidence_plan.link(new_row, EvidenceKind.CONTRADICTED_BY, resolved)
    for resolved in cited:
        evidence_plan.link(old_row, EvidenceKind.CORRECTED_BY, resolved)

    other_row: ClaimRow | None = None
    if change.against_claim_id is not None:
        other = targets[1]
        if other.id == target.id:
            raise ValidationFailed("a claim cannot dispute itself", field="againstClaimId")
        other_state = states[other.key]
        other_old = other_state.row(other.id)
        other_row = _dispute(ctx, other_old, other_state, plan, evidence_plan, reason)

    audit = AuditLog()
    audit.add(
        "correct",
        [new_row.id, *([other_row.id] if other_row else [])],
        idempotency_key=change.idempotency_key,
        request_hash=fingerprint,
        result={"claimId": new_row.id},
        detail=str(change.kind),
    )
    await write_all(ctx, plan, evidence_plan, audit)
    if other_row is not None:
        # Each disputed side is contradicted by what supports the other.
        copies = [
            {"fromId": other_row.id, "toId": new_row.id, "kind": "CONTRADICTED_BY"},
            {"fromId": new_row.id, "toId": other_row.id, "kind": "CONTRADICTED_BY"},
        ]
        for copy in copies:
            copy["note"] = f"supports the disputing claim {copy['fromId']}"
        await ctx.run(COPY_SUPPORT, copies=copies)
        await ctx.run(LINK_DISPUTE, aId=new_row.id, bId=other_row.id)

    return (await load_claims(ctx, [new_row.id]))[new_row.id]


def _existing_target(ctx: WriteContext, row: ClaimRow | None, claim_id: str) -> ClaimRow:
    if row is None or row.privacy > ctx.max_privacy:
        raise NotFound(f"no claim {claim_id!r} in this space", field="claimId")
    if row.erased_at is not None:
        raise Forgotten(f"claim {claim_id!r} was forgotten", field="claimId")
    return row


def _still_current(row: ClaimRow) -> None:
    if row.superseded_at is not None:
        raise RevisionConflict(
            f"claim {row.id!r} (revision {row.revision} of {row.key}) was already "
            "superseded; correct its current revision",
            field="claimId",
        )


def _dispute(
    ctx: WriteContext,
    old_row: ClaimRow,
    state: KeyState,
    plan: WritePlan,
    evidence_plan: EvidencePlan,
    reason: str,
) -> ClaimRow:
    if old_row.status is ClaimStatus.RETRACTED:
        raise ValidationFailed(f"claim {old_row.id} is retracted; nothing to dispute")
    plan.supersede(ctx, old_row, state)
    row = plan.restate(
        ctx, old_row, state, old_row.interval(), status=ClaimStatus.DISPUTED, reason=reason
    )
    evidence_plan.copy_support(old_row, row.id)
    return row


async def _supersede(
    ctx: WriteContext,
    change: CorrectInput,
    old_row: ClaimRow,
    state: KeyState,
    plan: WritePlan,
    evidence_plan: EvidencePlan,
    cited: list[Any],
) -> ClaimRow:
    memory_type = old_row.type
    given = change.model_fields_set
    value = change.value if "value" in given else old_row.value()
    parsed = mt.parse_key(old_row.key)
    if memory_type is not MemoryType.FACT:
        mt.check_value(parsed, value)
    if len(canonical_json(value).encode()) > mt.MAX_VALUE_BYTES:
        raise ValidationFailed(f"value is larger than {mt.MAX_VALUE_BYTES} bytes", field="value")
    object_id = old_row.object_id
    object_name = None
    if change.object is not None:
        if old_row.object_id is None:
            raise ValidationFailed("this claim has a literal value, not an object", field="object")
        if parsed.part("object") is not None:
            raise ValidationFailed(
                f"the object is part of key {old_row.key!r}; retract this fact and remember "
                "the new one",
                field="object",
            )
        resolved = (await resolve_entities(ctx, [(change.object, "object")]))[change.object]
        object_id = resolved.id
        object_name = " ".join(change.object.name.split()) if change.object.name else resolved.name
    confidence = change.confidence if change.confidence is not None else old_row.confidence
    mt.check_gate(memory_type, confidence=confidence, authorities={e.authority for e in cited})
    old_interval = old_row.interval()
    start = change.valid_from if "valid_from" in given else old_interval.start
    end = change.valid_to if "valid_to" in given else old_interval.end
    try:
        interval = Interval(start, end)
    except ValueError:
        raise ValidationFailed(
            "the corrected interval ends before it starts", field="validTo"
        ) from None

    privacy = change.privacy if change.privacy is not None else old_row.privacy
    if privacy > ctx.max_privacy:
        raise Forbidden(
            f"this key may not write at privacy {privacy.name.lower()}", field="privacy"
        )
    plan.supersede(ctx, old_row, state)
    for piece in pieces_kept(old_interval, interval, keep_tail=False):
        kept = plan.restate(ctx, old_row, state, piece)
        evidence_plan.copy_support(old_row, kept.id)
    if mt.overwrites(memory_type) and interval.start != old_interval.start:
        # Told facts stand side by side (the view chooses between them), but one tier line
        # holds one told fact per `validFrom`: a correction moved onto another fact's start
        # replaces it, as a new telling there would.
        for other in [r for r in state.line(privacy) if r.valid_from == interval.start]:
            plan.supersede(ctx, other, state)
    names = await _names(ctx, old_row, object_id, object_name, privacy)
    row = claim_row(
        ctx,
        key=old_row.key,
        revision=state.next_revision(privacy),
        memory_type=memory_type,
        content=ClaimContent(old_row.subject_id, old_row.predicate, object_id, value),
        confidence=confidence,
        importance=change.importance if change.importance is not None else old_row.importance,
        privacy=privacy,
        pinned=old_row.pinned,
        interval=interval,
        subject_name=names[0],
        object_name=names[1],
        reason=change.reason,
    )
    row.fact_id = old_row.fact_id or old_row.id
    plan.create(row, state, revises=old_row.id)
    validity_only = (
        old_row.status in (ClaimStatus.ACTIVE, ClaimStatus.DISPUTED)
        and interval != old_interval
        and row.value_json == old_row.value_json
        and object_id == old_row.object_id
        and privacy == old_row.privacy
        and confidence == old_row.confidence
        and row.importance == old_row.importance
    )
    if validity_only:
        # Only the validity changed: what showed the fact still shows it for the time it held,
        # and the correction's evidence says why it holds for less (or more) of it.
        evidence_plan.copy_support(old_row, row.id)
        kind = EvidenceKind.CORRECTED_BY
    else:
        kind = EvidenceKind.SUPPORTED_BY
    for resolved_evidence in cited:
        evidence_plan.link(row, kind, resolved_evidence)
    return row


ENTITY_NAMES: LiteralString = """
UNWIND $ids AS id
MATCH (e:Entity {id: id})
RETURN e.id AS id, coalesce(e.name, e.canonical) AS name, e.privacy AS privacy
"""


async def _names(
    ctx: WriteContext,
    row: ClaimRow,
    object_id: str | None,
    object_name: str | None,
    privacy: Privacy,
) -> tuple[str | None, str | None]:
    """The names the corrected claim's text carries; refused when an entity it names is above
    the claim's tier (its readers could not read the entity, nor its name)."""
    ids = [i for i in (row.subject_id, object_id) if i]
    if not ids:
        return None, object_name
    rows = await ctx.run(ENTITY_NAMES, ids=ids)
    if row.type is not MemoryType.ENTITY:
        for found in rows:
            if found["privacy"] > privacy:
                role = "subject" if found["id"] == row.subject_id else "object"
                new_object = found["id"] == object_id != row.object_id
                raise ValidationFailed(
                    f"the {role} has no name a {privacy.name.lower()} reader may read, and a "
                    "claim shows the names it carries: keep the claim at its tier",
                    field="object" if new_object else "privacy",
                )
    names = {r["id"]: r["name"] for r in rows}
    subject = names.get(row.subject_id or "")
    return subject, object_name or (names.get(object_id) if object_id else None)
