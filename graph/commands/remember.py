"""remember: create or revise claims, with evidence, in one transaction.

    >>> [claim] = await remember(graph, "alice", [RememberInput(
    ...     key="pref:ui:theme", value={"value": "dark"},
    ...     evidence=[EvidenceRef(observation_id=said_dark)])], actor=agent)
    >>> claim.revision, claim.status
    (1, <ClaimStatus.ACTIVE: 'active'>)

A second remember of a key follows its type's policy: **overwrite** supersedes the rows it
replaces (what held before the new `validFrom` is written again as its own row, so `asOf`
earlier still answers the old value); **versioned** adds a coexisting row. Re-stating the value a
current row already holds over the same time adds evidence to that row instead of a revision.
Nothing is written unless every item passes: key grammar, value shape, entities, evidence, gate,
`expectedRevision`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, JsonValue, model_validator

from graph.commands.audit import AuditLog, check_idempotency_key, find_replays, request_hash
from graph.commands.entity_refs import EntityRef, find_entities_and_sessions
from graph.commands.evidence import (
    MAX_EVIDENCE,
    EvidencePlan,
    EvidenceRef,
    ResolvedEvidence,
    resolve_evidence,
)
from graph.commands.inline_evidence import inline_texts, session_keys_of
from graph.commands.predicate_rules import load_rules
from graph.commands.remember_plan import batch_entities, checked_item, key_of, results_of
from graph.commands.remember_refs import Path, entity_refs_of, plan_entities
from graph.commands.revisions import (
    WritePlan,
    load_key_states,
)
from graph.commands.telling import Telling
from graph.commands.write_batch import write_all
from graph.commands.writing import WriteContext, run_command
from graph.domain import memory_types as mt
from graph.domain.actor import Actor
from graph.domain.cardinality import Cardinality
from graph.domain.errors import (
    EngramError,
    Forbidden,
    ValidationFailed,
)
from graph.domain.inputs import parse
from graph.domain.model import Claim, MemoryType, Privacy, canonical_json
from graph.store.db import Graph


class RememberInput(BaseModel):
    """One claim to remember. Give `key` (its type follows), or for a `fact` the subject,
    predicate and object (the key is derived)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: MemoryType | None = None
    key: str | None = None
    subject: EntityRef | None = None
    predicate: str | None = None
    object: EntityRef | None = None
    value: JsonValue = None
    confidence: float = Field(default=0.9, ge=0.0, le=1.0)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    privacy: Privacy = Privacy.NORMAL
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    evidence: list[EvidenceRef] = Field(min_length=1, max_length=MAX_EVIDENCE)
    idempotency_key: str | None = None
    expected_revision: int | None = Field(default=None, ge=0)
    pinned: bool = False
    cardinality: Cardinality | None = None
    """A fact's rule for this write (must agree with the space's declared one)."""

    @model_validator(mode="after")
    def _consistent(self) -> RememberInput:
        if self.valid_from and self.valid_to and self.valid_to <= self.valid_from:
            raise ValueError("valid_to must be after valid_from")
        return self

    def memory_type(self) -> MemoryType:
        if self.key is not None:
            parsed = mt.parse_key(self.key)
            if self.type is not None and self.type is not parsed.type:
                raise ValidationFailed(
                    f"type {self.type} does not match key {self.key!r}", field="type"
                )
            return parsed.type
        if self.type is None:
            raise ValidationFailed("give a key (or, for a fact, type 'fact')", field="key")
        if self.type is not MemoryType.FACT:
            raise ValidationFailed(f"a {self.type} claim needs its key", field="key")
        return self.type


def validate(item: RememberInput) -> MemoryType:
    """Everything checkable without the database; raises a typed error."""
    check_idempotency_key(item.idempotency_key)
    memory_type = item.memory_type()
    if len(canonical_json(item.value).encode()) > mt.MAX_VALUE_BYTES:
        raise ValidationFailed(f"value is larger than {mt.MAX_VALUE_BYTES} bytes", field="value")
    if memory_type is MemoryType.FACT:
        if item.subject is None or item.predicate is None:
            raise ValidationFailed("a fact needs a subject and a predicate", field="predicate")
        if not mt.is_predicate(item.predicate):
            raise ValidationFailed(
                f"predicate {item.predicate!r} must be UPPER_SNAKE_CASE (≤ 64) and not one of "
                "Engram's own relationship types",
                field="predicate",
            )
        if (item.object is None) == (item.value is None):
            raise ValidationFailed("a fact has exactly one of object or value", field="object")
        if item.key is not None:
            parsed = mt.parse_key(item.key)
            if parsed.part("predicate") != item.predicate:
                raise ValidationFailed(
                    f"key {item.key!r} names predicate {parsed.part('predicate')!r}, "
                    f"not {item.predicate!r}",
                    field="key",
                )
    else:
        if item.cardinality is not None:
            raise ValidationFailed("only facts have a cardinality", field="cardinality")
        if item.predicate is not None or item.object is not None:
            raise ValidationFailed(
                f"only facts have a predicate and an object, not {memory_type}", field="predicate"
            )
        if memory_type is MemoryType.ENTITY and item.subject is not None:
            raise ValidationFailed("an entity claim is about itself: no subject", field="subject")
        assert item.key is not None
        mt.check_value(mt.parse_key(item.key), item.value)
    return memory_type


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
    path = _paths(field)
    parsed, types = _validated(items, path)

    async def work(ctx: WriteContext) -> list[Claim]:
        return await _remember_in(ctx, parsed, types, path)

    return await run_command(graph, space, actor, work)


async def remember_in(ctx: WriteContext, items: Sequence[RememberInput]) -> list[Claim]:
    """`remember` inside a writing transaction that has begun (`begin_write`)."""
    path = _paths(None)
    parsed, types = _validated(items, path)
    return await _remember_in(ctx, parsed, types, path)


def _paths(field: str | None) -> Path:
    def path(index: int, rest: str) -> str:
        where = f"{field}[{index}]" if field is not None else ""
        return ".".join(part for part in (where, rest) if part)

    return path


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
            raise _at(failure, path(index, "")) from None
    return parsed, types


def _at(failure: EngramError, where: str) -> EngramError:
    return failure.at(where) if where else failure


async def _remember_in(
    ctx: WriteContext, items: list[RememberInput], types: list[MemoryType], path: Path
) -> list[Claim]:
    hashes = {
        item.idempotency_key: ("remember", request_hash("remember", item.model_dump(mode="json")))
        for item in items
        if item.idempotency_key is not None
    }
    replays = await find_replays(ctx, hashes)
    # A replay returns the first result and resolves nothing: its entities or evidence may
    # have been forgotten since, which the loaded result reports as FORGOTTEN.
    fresh = [
        (index, item, t)
        for index, (item, t) in enumerate(zip(items, types, strict=True))
        if item.idempotency_key not in replays
    ]
    for index, item, _ in fresh:
        if item.privacy > ctx.max_privacy:
            tier = item.privacy.name.lower()
            raise Forbidden(
                f"this key may not write at privacy {tier}", field=path(index, "privacy")
            )
    # The session episodes evidence texts go to are read with the entities (one round trip):
    # an entity created for an item cites that item's evidence at its tier, so needs no other.
    texts = [(ref, int(item.privacy), "") for _, item, _ in fresh for ref in item.evidence]
    candidates, sessions = await find_entities_and_sessions(
        ctx, entity_refs_of(fresh), session_keys_of(ctx, texts)
    )
    batch = plan_entities(ctx, fresh, path, candidates)
    work = [
        (index, extra, MemoryType.ENTITY, True)
        for index, _, _ in fresh
        for extra in batch.created.get(index, [])
    ]
    work = sorted(
        work + [(index, item, t, False) for index, item, t in fresh], key=lambda w: (w[0], not w[3])
    )
    cited = [
        (ref, int(item.privacy), path(index, f"evidence[{n}]"))
        for index, item, _, _ in work
        for n, ref in enumerate(item.evidence)
    ]
    evidence: dict[Any, ResolvedEvidence] = dict(
        await resolve_evidence(ctx, [(ref, where) for ref, _, where in cited])
    )
    inline = await inline_texts(ctx, cited, sessions)
    evidence.update(inline.resolved)
    rules = await load_rules(ctx) if any(t is MemoryType.FACT for _, _, t, _ in work) else None

    keys: dict[int, str] = {}
    for position, (index, item, memory_type, _) in enumerate(work):
        try:
            keys[position] = key_of(item, memory_type, batch, rules)
        except EngramError as failure:
            raise _at(failure, path(index, "")) from None
    states = await load_key_states(ctx, list(keys.values()))
    plan = WritePlan()
    entities = batch_entities(ctx, batch, states, plan, work, keys)
    evidence_plan = EvidencePlan()
    audit = AuditLog()
    results: dict[int, str] = {
        index: replays[item.idempotency_key].result["claimId"]
        for index, item in enumerate(items)
        if item.idempotency_key in replays
    }
    in_batch: dict[str, tuple[RememberInput, str]] = {}
    for position, (index, item, memory_type, created) in enumerate(work):
        key = keys[position]
        try:
            claim_id = checked_item(
                ctx,
                item,
                memory_type,
                key,
                states[key],
                entities,
                evidence,
                plan,
                evidence_plan,
                in_batch,
                Telling(seq=position, by_naming=created),
            )
        except EngramError as failure:
            raise _at(failure, path(index, "")) from None
        if created:
            audit.add("remember", [claim_id], result={"claimId": claim_id})
            continue
        results[index] = claim_id
        if item.idempotency_key is not None and item.idempotency_key not in in_batch:
            in_batch[item.idempotency_key] = (item, claim_id)
            audit.add(
                "remember",
                [claim_id],
                idempotency_key=item.idempotency_key,
                request_hash=hashes[item.idempotency_key][1],
                result={"claimId": claim_id},
            )
        elif item.idempotency_key is None:
            audit.add("remember", [claim_id], result={"claimId": claim_id})
    await write_all(ctx, inline, plan, evidence_plan, audit)
    result_ids = [results[index] for index in range(len(items))]
    return await results_of(ctx, result_ids, plan, evidence_plan, evidence)
