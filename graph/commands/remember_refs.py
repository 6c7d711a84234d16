"""What the items of one `remember` refer to: entities found or created by the batch, and the
keys facts get.

An entity reference is found as the writer sees the space now, or among the entity claims of the
same batch (a batch may create an entity and state facts about it). A name with a kind that fits
nothing creates the entity: key `entity:<kind>:<name-hyphenated>`, named as given, resting on the
evidence of the item that named it. Several fits are `AMBIGUOUS_SUBJECT` with their keys.

A fact's key is derived from its subject and predicate, plus its object (or value) only when the
predicate is `MANY` (`graph.domain.cardinality`). A key the caller gives must name the subject; it
must also have the shape of the rule when the space declared one or the write states one (under a
default rule a given key is taken as it is, so exports written before a rule import unchanged).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graph.commands.entity_refs import EntityRef, ResolvedEntity, only_candidate
from graph.commands.predicate_rules import PredicateRules
from graph.commands.writing import WriteContext
from graph.domain import memory_types as mt
from graph.domain.cardinality import Cardinality, value_part
from graph.domain.errors import AmbiguousSubject, EngramError, ValidationFailed
from graph.domain.model import MemoryType

if TYPE_CHECKING:
    from graph.commands.remember import RememberInput

Path = Callable[[int, str], str]
"""The field path of an item's input: `(index, "subject")` → `inputs[3].subject`."""


@dataclass
class BatchEntities:
    """Each reference's entity: found (`ResolvedEntity`) or the key of one this batch writes."""

    found: dict[EntityRef, ResolvedEntity | str] = field(default_factory=dict)
    created: dict[int, list[RememberInput]] = field(default_factory=dict)
    """Entity claims the batch adds, before the item (by index) that named them."""


def _names_of(item: RememberInput) -> list[tuple[str, ...]]:
    value = item.value if isinstance(item.value, dict) else {}
    canonical = (item.key or "").split(":", 2)[-1]
    aliases = value.get("aliases")
    names = [value.get("name") or canonical, *(aliases if isinstance(aliases, list) else [])]
    return [tuple(mt.name_words(n)) for n in names if isinstance(n, str)]


def entity_refs_of(items: list[tuple[int, RememberInput, MemoryType]]) -> list[EntityRef]:
    """The subjects and objects of `items`, in order."""
    return [ref for _, item, _ in items for ref in (item.subject, item.object) if ref is not None]


def plan_entities(
    ctx: WriteContext,
    items: list[tuple[int, RememberInput, MemoryType]],
    path: Path,
    candidates: dict[EntityRef, dict[str, dict[str, Any]]],
) -> BatchEntities:
    """Find or plan the entity of every subject and object of `items` (`(index, item, type)`),
    given every visible entity each may mean (`entity_refs.find_entities`)."""
    from graph.commands.remember import RememberInput, validate

    written = {item.key: item for _, item, t in items if t is MemoryType.ENTITY and item.key}
    # The batch's own entity claims by each name they give, so a name is matched against them
    # in one look-up, not by reading all of them again for every reference.
    spoken: dict[tuple[str, ...], set[str]] = {}
    for key, entity in written.items():
        for words in _names_of(entity):
            spoken.setdefault(words, set()).add(key)
    refs = [
        (index, item, ref, role)
        for index, item, _ in items
        for ref, role in ((item.subject, "subject"), (item.object, "object"))
        if ref is not None
    ]
    batch = BatchEntities()
    for index, item, ref, role in refs:
        if ref in batch.found:
            continue
        rows = candidates[ref]
        derived = ref.derived_key()
        in_batch = {ref.key} & written.keys() if ref.key else set()
        if ref.name is not None:
            in_batch |= {
                key
                for key in spoken.get(tuple(mt.name_words(ref.name)), set())
                if ref.kind is None or key.startswith(f"entity:{ref.kind}:")
            }
        if derived is not None and derived in written:
            in_batch.add(derived)
        keys = rows.keys() | in_batch
        if len(keys) > 1:
            raise AmbiguousSubject(
                f"{ref.describe()} names {len(keys)} entities ({', '.join(sorted(keys))}); "
                "refer to one by key or id",
                field=path(index, role),
            )
        if rows:
            batch.found[ref] = only_candidate(ctx, ref, rows, path(index, role))
            continue
        words = tuple(mt.name_words(ref.name or ""))
        if in_batch and (derived not in in_batch or derived in spoken.get(words, set())):
            batch.found[ref] = in_batch.pop()
            continue
        if derived is None or ref.name is None:
            only_candidate(ctx, ref, rows, path(index, role))  # raises NOT_FOUND
            continue
        # A new entity, or one this batch names otherwise (a rename told with it): the name the
        # write used names it from the open beginning of valid time.
        created = RememberInput(
            type=MemoryType.ENTITY,
            key=derived,
            value={"name": " ".join(ref.name.split())},
            evidence=item.evidence,
            confidence=item.confidence,
            importance=item.importance,
            privacy=item.privacy,
        )
        try:
            validate(created)
        except EngramError as failure:
            raise ValidationFailed(
                f"{ref.describe()} cannot name a new entity: {failure.message}",
                field=path(index, f"{role}.name"),
            ) from None
        batch.created.setdefault(index, []).append(created)
        written.setdefault(derived, created)
        for spoken_words in _names_of(created):
            spoken.setdefault(spoken_words, set()).add(derived)
        batch.found[ref] = derived
    return batch


def fact_key(
    item: RememberInput,
    subject_key: str,
    object_key: str | None,
    rules: PredicateRules,
) -> str:
    """The key of a fact: given (checked against its parts and the predicate's rule) or
    derived from subject + predicate (+ object or value for a `MANY` predicate)."""
    predicate = item.predicate or ""
    cardinality = rules.of(predicate, literal=object_key is None, given=item.cardinality)
    if cardinality is Cardinality.ONE:
        derived = mt.fact_key(subject_key, predicate, None)
    elif object_key is not None:
        derived = mt.fact_key(subject_key, predicate, object_key)
    else:
        derived = f"{mt.fact_key(subject_key, predicate, None)}:{value_part(item.value)}"
    if item.key is None or item.key == derived:
        return derived
    parsed, expected = mt.parse_key(item.key), mt.parse_key(derived)
    if parsed.part("subject") != expected.part("subject"):
        raise ValidationFailed(
            f"key {item.key!r} names subject {parsed.part('subject')!r}, "
            f"but the subject is {expected.part('subject')!r}",
            field="key",
        )
    if item.cardinality is None and item.predicate not in rules.declared:
        return item.key  # a key given under a default rule is the caller's (old exports)
    if cardinality is Cardinality.ONE and parsed.part("object") is not None:
        raise ValidationFailed(
            f"{predicate} holds one value per subject here, so its key is {derived!r} "
            "(no object part)",
            field="key",
        )
    if cardinality is Cardinality.MANY and object_key is not None:
        raise ValidationFailed(
            f"{predicate} holds many values here, so this fact's key is {derived!r}", field="key"
        )
    return item.key
