"""Resolving a `remember` batch: what its items refer to, before anything is planned.

* **Replays**: an item whose idempotency key was used before answers the first result and
  resolves nothing (its entities or evidence may have been forgotten since).
* **Entities**: each subject and object is found as the writer sees the space now (a name: as
  borne now, else as ever borne — `entity_refs`), or among the entity claims of the same batch,
  or created: a name with a kind that fits nothing names a new entity in passing — an entity
  claim `entity:<kind>:<name folded>` (`byNaming`), named from the open beginning of valid time,
  resting on the evidence of the item that named it, placed before that item. Several fits are
  `AMBIGUOUS_SUBJECT` with their keys.
* **Evidence**: cited observations and artifacts are checked; evidence texts are planned as
  observations of this transaction (once per text and tier).

Everything is read at once (`lookup.Lookup.found`), then resolved in Python.

    batch = await resolve(ctx, Lookup(items, types), path)
    [(w.index, w.memory_type, w.by_naming) for w in batch.work]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graph.commands.audit import Replay
from graph.commands.entity_refs import ResolvedEntity, not_found, only_candidate
from graph.commands.evidence import ResolvedEvidence, resolved_evidence
from graph.commands.inline_evidence import InlinePlan, inline_texts
from graph.commands.references import EntityRef
from graph.commands.remember.input import Path, RememberInput, validate
from graph.commands.remember.lookup import Lookup
from graph.commands.revisions import KeyState
from graph.commands.writing import WriteContext
from graph.domain import memory_types as mt
from graph.domain.errors import AmbiguousSubject, EngramError, Forbidden, ValidationFailed
from graph.domain.vocabulary import MemoryType


@dataclass(frozen=True)
class WorkItem:
    """An item the batch writes: one the caller gave (`index` its place), or an entity claim the
    batch adds for the item at `index` (`by_naming`)."""

    index: int
    item: RememberInput
    memory_type: MemoryType
    by_naming: bool = False


EntityUse = tuple[EntityRef, int]
"""A reference as an item at a tier makes it: the same name may mean another node (of the same
key) at another tier."""


@dataclass
class BatchEntities:
    """Each reference's entity at the tier it is used: found (`ResolvedEntity`) or the key of
    one this batch writes."""

    found: dict[EntityUse, ResolvedEntity | str] = field(default_factory=dict)
    created: dict[int, list[RememberInput]] = field(default_factory=dict)
    """Entity claims the batch adds, before the item (by index) that named them."""


@dataclass
class ResolvedBatch:
    """A batch with everything it refers to resolved; what planning starts from."""

    items: list[RememberInput]
    work: list[WorkItem]
    """The items to plan, in order: each caller's item after the entity claims it named."""
    hashes: dict[str, tuple[str, str]]
    """Each idempotency key's action and request hash."""
    replays: dict[str, Replay]
    entities: BatchEntities
    evidence: dict[Any, ResolvedEvidence]
    """Cited evidence by target id, and evidence texts by `(ref, tier)`."""
    inline: InlinePlan
    key_states: dict[str, KeyState]
    """The state of the keys the batch named before its entities were resolved (planning reads
    any other it needs)."""


def _names_of(item: RememberInput) -> list[tuple[str, ...]]:
    value = item.value if isinstance(item.value, dict) else {}
    canonical = (item.key or "").split(":", 2)[-1]
    aliases = value.get("aliases")
    names = [value.get("name") or canonical, *(aliases if isinstance(aliases, list) else [])]
    return [tuple(mt.name_words(n)) for n in names if isinstance(n, str)]


def name_entities(
    ctx: WriteContext,
    items: list[WorkItem],
    path: Path,
    candidates: dict[EntityRef, dict[str, dict[str, Any]]],
) -> BatchEntities:
    """Find or name in passing the entity of every subject and object of `items`, given every
    visible entity each may mean (`entity_refs.find_entities`).

    A claim never carries a name its readers cannot read: an item at a tier below every name of
    the entity it names gives the entity that name at its own tier (a name it spoke); one that
    refers to such an entity by key or id is refused."""
    written = {
        w.item.key: w.item for w in items if w.memory_type is MemoryType.ENTITY and w.item.key
    }
    tiers: dict[str, set[int]] = {}
    for w in items:
        if w.memory_type is MemoryType.ENTITY and w.item.key:
            tiers.setdefault(w.item.key, set()).add(int(w.item.privacy))
    # The batch's own entity claims by each name they give, so a name is matched against them
    # in one look-up, not by reading all of them again for every reference.
    spoken: dict[tuple[str, ...], set[str]] = {}
    for key, entity in written.items():
        for words in _names_of(entity):
            spoken.setdefault(words, set()).add(key)
    batch = BatchEntities()
    for w in items:
        tier = int(w.item.privacy)
        for ref, role in ((w.item.subject, "subject"), (w.item.object, "object")):
            if ref is None or (ref, tier) in batch.found:
                continue
            where = path(w.index, role)
            rows = candidates[ref]
            derived = ref.derived_key()
            in_batch = {ref.key} & written.keys() if ref.key else set()
            words = tuple(mt.name_words(ref.name or ""))
            if ref.name is not None:
                in_batch |= {
                    key
                    for key in spoken.get(words, set())
                    if ref.kind is None or key.startswith(f"entity:{ref.kind}:")
                }
            if derived is not None and derived in written:
                in_batch.add(derived)
            keys = rows.keys() | in_batch
            if len(keys) > 1:
                raise AmbiguousSubject(
                    f"{ref.describe()} names {len(keys)} entities ({', '.join(sorted(keys))}); "
                    "refer to one by key or id",
                    field=where,
                )
            named_here = False
            if rows:
                visible = only_candidate(ctx, ref, rows, where)
                if visible.privacy <= tier:
                    batch.found[(ref, tier)] = visible
                    continue
                target = visible.key  # named only above this item's tier
            elif in_batch and (derived not in in_batch or derived in spoken.get(words, set())):
                target = in_batch.pop()
            elif derived is None or ref.name is None:
                raise not_found(ctx, ref, where)
            else:
                target = derived  # a new entity, or one this batch names otherwise (a rename)
                named_here = True
            if named_here or not any(t <= tier for t in tiers.get(target, ())):
                if ref.name is None:
                    level = w.item.privacy.name.lower()
                    raise ValidationFailed(
                        f"{target} has no name a {level} reader may read, and a claim shows the "
                        "names it carries: name it here, or write the claim at its tier",
                        field=where,
                    )
                # The name the write used names it at the item's tier, from the open beginning
                # of valid time.
                created = _named_in_passing(w.item, ref, target, path(w.index, f"{role}.name"))
                batch.created.setdefault(w.index, []).append(created)
                written.setdefault(target, created)
                tiers.setdefault(target, set()).add(tier)
                for spoken_words in _names_of(created):
                    spoken.setdefault(spoken_words, set()).add(target)
            batch.found[(ref, tier)] = target
    return batch


def _named_in_passing(item: RememberInput, ref: EntityRef, key: str, where: str) -> RememberInput:
    created = RememberInput(
        type=MemoryType.ENTITY,
        key=key,
        value={"name": " ".join((ref.name or "").split())},
        evidence=item.evidence,
        confidence=item.confidence,
        importance=item.importance,
        privacy=item.privacy,
    )
    try:
        validate(created)
    except EngramError as failure:
        raise ValidationFailed(
            f"{ref.describe()} cannot name a new entity: {failure.message}", field=where
        ) from None
    return created


async def resolve(ctx: WriteContext, lookup: Lookup, path: Path) -> ResolvedBatch:
    """Resolve what the items of `lookup` (checked by `input.validate`) refer to."""
    items, types = lookup.items, lookup.types
    found = await lookup.found(ctx)
    fresh = [
        WorkItem(index, item, memory_type)
        for index, (item, memory_type) in enumerate(zip(items, types, strict=True))
        if item.idempotency_key not in found.replays
    ]
    for w in fresh:
        if w.item.privacy > ctx.max_privacy:
            tier = w.item.privacy.name.lower()
            raise Forbidden(
                f"this key may not write at privacy {tier}", field=path(w.index, "privacy")
            )
    entities = name_entities(ctx, fresh, path, found.candidates)
    work = [
        WorkItem(w.index, created, MemoryType.ENTITY, by_naming=True)
        for w in fresh
        for created in entities.created.get(w.index, [])
    ]
    work = sorted(work + fresh, key=lambda w: (w.index, not w.by_naming))
    cited = [
        (ref, int(w.item.privacy), path(w.index, f"evidence[{n}]"))
        for w in work
        for n, ref in enumerate(w.item.evidence)
    ]
    evidence: dict[Any, ResolvedEvidence] = dict(
        resolved_evidence(
            ctx, [(ref, where) for ref, _, where in cited], found.observations, found.artifacts
        )
    )
    inline = await inline_texts(ctx, cited, found.sessions)
    evidence.update(inline.resolved)
    return ResolvedBatch(
        items, work, found.hashes, found.replays, entities, evidence, inline, found.key_states
    )
