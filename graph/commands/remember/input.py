"""What `remember` takes: one claim to remember, checked as far as it can be without the
database. The GraphQL input, the MCP arguments and the client's item say the same fields
(tests/test_input_parity.py holds them to it).

    RememberInput(type=MemoryType.FACT, subject=EntityRef(name="Mara Lind", kind="person"),
                  predicate="WORKS_AT", object=EntityRef(name="Globex", kind="org"),
                  evidence=[EvidenceRef(text="Mara: I work at Globex")])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, JsonValue, model_validator

from graph.commands.audit import check_idempotency_key
from graph.commands.references import MAX_EVIDENCE, EntityRef, EvidenceRef
from graph.domain import memory_types as mt
from graph.domain.cardinality import fact_key_under
from graph.domain.errors import ValidationFailed
from graph.domain.model import canonical_json
from graph.domain.vocabulary import Cardinality, MemoryType, Privacy

if TYPE_CHECKING:
    from graph.commands.predicate_rules import PredicateRules


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


def fact_key(
    item: RememberInput, subject_key: str, object_key: str | None, rules: PredicateRules
) -> str:
    """The key of a fact: given (checked against its parts and the predicate's rule) or
    derived from subject + predicate (+ object or value for a `MANY` predicate)."""
    predicate = item.predicate or ""
    cardinality = rules.of(predicate, literal=object_key is None, given=item.cardinality)
    derived = fact_key_under(cardinality, subject_key, predicate, object_key, item.value)
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


Path = Callable[[int, str], str]
"""The field path of an item's input: `(index, "subject")` → `inputs[3].subject`."""


def paths(field: str | None) -> Path:
    """Field paths of a batch given as the argument `field` (None: items alone)."""

    def path(index: int, rest: str) -> str:
        where = f"{field}[{index}]" if field is not None else ""
        return ".".join(part for part in (where, rest) if part)

    return path
