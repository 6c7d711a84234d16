"""Memory types: key grammar, value shapes, conflict policy and the retention gate.

    parse_key("pref:writing:tone")
    ParsedKey(type=<MemoryType.PREF: 'pref'>, parts=('writing', 'tone'))
    POLICIES[MemoryType.PREF]
    <ConflictPolicy.OVERWRITE: 'overwrite'>
    check_gate(MemoryType.PROFILE, confidence=0.5, authorities={Authority.USER_STATED})
    GateRefused: profile claims need confidence ≥ 0.8 (got 0.5); …

Keys are readable and stable: `<type>:<part>:…`, no whitespace, at most 512 characters; the last
part may contain ':' (URLs). Every rule here is deterministic and explains itself when it refuses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Any

from graph.domain.errors import GateRefused, ValidationFailed
from graph.domain.vocabulary import Authority, EntityKind, MemoryType

MAX_KEY_LENGTH = 512
MAX_VALUE_BYTES = 16_384

PREF_SCOPES = ("writing", "coding", "tools", "ui", "other")
TASK_STATUSES = ("todo", "doing", "done", "blocked")
OPEN_TASK_STATUSES = ("todo", "doing", "blocked")
GOAL_STATUSES = ("active", "achieved", "abandoned", "paused")

PREDICATE = re.compile(r"^[A-Z][A-Z0-9_]{0,63}$")
"""Relation types and fact predicates; spliced into Cypher only after this check."""

RESERVED_PREDICATES = frozenset(
    {
        "MERGED_INTO",
        "ABOUT",
        "REVISES",
        "SUPPORTED_BY",
        "CONTRADICTED_BY",
        "CORRECTED_BY",
        "HAS_OBSERVATION",
        "SUPERSEDES",
        "DISPUTED_WITH",
    }
)
"""Engram's own relationship types: a fact may not pose as one (a fact `MERGED_INTO` would
otherwise redirect every lookup of its subject)."""


def is_predicate(text: str) -> bool:
    return bool(PREDICATE.match(text)) and text not in RESERVED_PREDICATES


_PART = re.compile(r"^[^\s:]+$")
_LAST_PART = re.compile(r"^\S+$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

PARTS: dict[MemoryType, tuple[str, ...]] = {
    MemoryType.PROFILE: ("subject",),
    MemoryType.PREF: ("scope", "name"),
    MemoryType.GOAL: ("project_or_topic", "name"),
    MemoryType.TASK: ("project", "task_id"),
    MemoryType.DECISION: ("project", "topic"),
    MemoryType.ENTITY: ("kind", "canonical"),
    MemoryType.EVENT: ("scope", "date", "slug"),
    MemoryType.CASE: ("domain", "slug"),
    MemoryType.PATTERN: ("domain", "name"),
    MemoryType.FACT: ("subject", "predicate", "object"),
}
"""The parts after `<type>:`; a fact key may omit its object part (a literal-valued fact)."""


class ConflictPolicy(StrEnum):
    """What a second `remember` of an existing key does."""

    OVERWRITE = "overwrite"
    """The new revision supersedes the current one; history kept."""
    VERSIONED = "versioned"
    """Revisions coexist; the newest (or most confident) wins when composing."""


POLICIES: dict[MemoryType, ConflictPolicy] = {
    MemoryType.PROFILE: ConflictPolicy.VERSIONED,
    MemoryType.PREF: ConflictPolicy.OVERWRITE,
    MemoryType.GOAL: ConflictPolicy.OVERWRITE,
    MemoryType.TASK: ConflictPolicy.OVERWRITE,
    MemoryType.DECISION: ConflictPolicy.VERSIONED,
    MemoryType.ENTITY: ConflictPolicy.OVERWRITE,
    MemoryType.EVENT: ConflictPolicy.VERSIONED,
    MemoryType.CASE: ConflictPolicy.OVERWRITE,
    MemoryType.PATTERN: ConflictPolicy.OVERWRITE,
    MemoryType.FACT: ConflictPolicy.OVERWRITE,
}


def overwrites(memory_type: MemoryType) -> bool:
    """Whether a new revision of this type's key supersedes the current one."""
    return POLICIES[memory_type] is ConflictPolicy.OVERWRITE


@dataclass(frozen=True)
class Gate:
    min_confidence: float
    needs_authority: Authority | None = None


GATES: dict[MemoryType, Gate] = {
    MemoryType.PROFILE: Gate(0.8, Authority.USER_STATED),
    MemoryType.PREF: Gate(0.6, Authority.USER_STATED),
    MemoryType.GOAL: Gate(0.6),
    MemoryType.TASK: Gate(0.0),
    MemoryType.DECISION: Gate(0.7),
    MemoryType.ENTITY: Gate(0.5),
    MemoryType.EVENT: Gate(0.0),
    MemoryType.CASE: Gate(0.5),
    MemoryType.PATTERN: Gate(0.5),
    MemoryType.FACT: Gate(0.5),
}
"""The retention gate: below these a write is refused, with the reason; events take anything."""


@dataclass(frozen=True)
class ParsedKey:
    type: MemoryType
    parts: tuple[str, ...]

    def part(self, name: str) -> str | None:
        names = PARTS[self.type]
        index = names.index(name)
        return self.parts[index] if index < len(self.parts) else None


def parse_key(key: str) -> ParsedKey:
    """Validate `key` against its type's grammar."""
    if not key or len(key) > MAX_KEY_LENGTH:
        raise ValidationFailed(f"a key is 1–{MAX_KEY_LENGTH} characters", field="key")
    head, _, rest = key.partition(":")
    try:
        memory_type = MemoryType(head)
    except ValueError:
        known = ", ".join(t.value for t in MemoryType)
        raise ValidationFailed(
            f"key {key!r} must start with a memory type ({known}) and ':'", field="key"
        ) from None
    names = PARTS[memory_type]
    parts = tuple(rest.split(":", len(names) - 1)) if rest else ()
    minimum = 2 if memory_type is MemoryType.FACT else len(names)
    if len(parts) < minimum or any(not part for part in parts):
        shape = ":".join(f"<{n}>" for n in names)
        raise ValidationFailed(f"key {key!r} must look like {head}:{shape}", field="key")
    for part in parts[:-1]:
        if not _PART.match(part):
            raise ValidationFailed(f"key {key!r} has whitespace or ':' in a part", field="key")
    if not _LAST_PART.match(parts[-1]):
        raise ValidationFailed(f"key {key!r} has whitespace in its last part", field="key")
    parsed = ParsedKey(memory_type, parts)
    _check_parts(key, parsed)
    return parsed


def _is_date(text: str) -> bool:
    if not _DATE.match(text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _check_parts(key: str, parsed: ParsedKey) -> None:
    if parsed.type is MemoryType.PREF and parsed.part("scope") not in PREF_SCOPES:
        raise ValidationFailed(
            f"key {key!r}: a preference scope is one of {', '.join(PREF_SCOPES)}", field="key"
        )
    if parsed.type is MemoryType.ENTITY:
        kind = parsed.part("kind")
        if kind not in {k.value for k in EntityKind}:
            kinds = ", ".join(k.value for k in EntityKind)
            raise ValidationFailed(f"key {key!r}: an entity kind is one of {kinds}", field="key")
    if parsed.type is MemoryType.EVENT and not _is_date(parsed.part("date") or ""):
        raise ValidationFailed(f"key {key!r}: an event key's date is YYYY-MM-DD", field="key")
    if parsed.type is MemoryType.FACT and not is_predicate(parsed.part("predicate") or ""):
        raise ValidationFailed(
            f"key {key!r}: a fact key's predicate is UPPER_SNAKE_CASE and not one of "
            "Engram's own relationship types",
            field="key",
        )


def key_part(text: str) -> str:
    """`text` made safe as a key part: whitespace and ':' percent-encoded."""
    return re.sub(r"[\s:%]", lambda m: f"%{ord(m.group()):02X}", text)


_NAME_SEPARATORS = re.compile(r"[\s_-]+")


def name_words(name: str) -> list[str]:
    """A name as compared — names fold one way (ENGRAM.md §2): case, runs of spaces, `-` and `_`
    never tell two names apart; other punctuation does (`C`, `C#` and `C++` stay three).

        name_words("Winnie-the-Pooh") == name_words("winnie  the_pooh")
        True
    """
    return [word for word in _NAME_SEPARATORS.split(name.lower()) if word]


def spoken_names(names: Iterable[str]) -> str:
    """The `spokenNames` of an entity claim with these names (its name first, then aliases):
    each as compared, between newlines, so a name is one of them exactly when the string
    contains its `name_needle` (a compared name holds no newline).

        spoken_names(["Ada  Lovelace", "Countess"])
        '\\nada lovelace\\ncountess\\n'
    """
    return "\n" + "".join(" ".join(name_words(name)) + "\n" for name in names)


def name_needle(name: str) -> str:
    """What an entity claim's `spokenNames` contains when `name` is one of its names."""
    return "\n" + " ".join(name_words(name)) + "\n"


def entity_key(kind: str, name: str) -> str:
    """The key of an entity created by name: `entity:<kind>:<name as lowercase-hyphenated>`."""
    return f"entity:{kind}:{key_part('-'.join(name_words(name)))}"


def fact_key(subject_key: str, predicate: str, object_key: str | None) -> str:
    """The derived key of a fact: `fact:<kind>/<canonical>:<PREDICATE>[:<kind>/<canonical>]`."""

    def short(entity_key: str) -> str:
        _, kind, canonical = entity_key.split(":", 2)
        return f"{kind}/{key_part(canonical)}"

    key = f"fact:{short(subject_key)}:{predicate}"
    return key if object_key is None else f"{key}:{short(object_key)}"


def check_value(parsed: ParsedKey, value: Any) -> None:
    """Check the value shape the memory-types spec gives each type."""
    memory_type = parsed.type
    if memory_type is MemoryType.FACT:
        return
    if not isinstance(value, dict):
        raise ValidationFailed(f"a {memory_type} value is a JSON object", field="value")

    def must_match(field_name: str, part_name: str) -> None:
        given = value.get(field_name)
        expected = parsed.part(part_name)
        if given is not None and str(given) != expected:
            raise ValidationFailed(
                f"value.{field_name} is {given!r} but the key says {expected!r}",
                field=f"value.{field_name}",
            )

    def must_be_one_of(field_name: str, allowed: tuple[str, ...], required: bool) -> None:
        given = value.get(field_name)
        if given is None and not required:
            return
        if given not in allowed:
            raise ValidationFailed(
                f"value.{field_name} must be one of {', '.join(allowed)}",
                field=f"value.{field_name}",
            )

    def must_be_text(field_name: str) -> None:
        given = value.get(field_name)
        if not isinstance(given, str) or not given.strip():
            raise ValidationFailed(
                f"a {memory_type} value needs a non-empty text {field_name!r}",
                field=f"value.{field_name}",
            )

    if memory_type is MemoryType.PREF:
        must_match("scope", "scope")
        must_match("name", "name")
        if "value" not in value:
            raise ValidationFailed("a preference value needs 'value'", field="value.value")
    elif memory_type is MemoryType.TASK:
        must_be_one_of("status", TASK_STATUSES, required=True)
        must_match("task_id", "task_id")
    elif memory_type is MemoryType.GOAL:
        must_be_one_of("status", GOAL_STATUSES, required=False)
    elif memory_type is MemoryType.DECISION:
        must_be_text("decision")
    elif memory_type is MemoryType.EVENT:
        must_be_text("title")
        must_match("date", "date")
    elif memory_type is MemoryType.ENTITY:
        must_match("kind", "kind")
        must_match("canonical", "canonical")
        name = value.get("name")
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise ValidationFailed("value.name is a non-empty text", field="value.name")
        aliases = value.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise ValidationFailed("value.aliases is a list of texts", field="value.aliases")


def check_gate(memory_type: MemoryType, *, confidence: float, authorities: set[Authority]) -> None:
    """The retention gate: refuse, with the reason, what this type must not keep."""
    gate = GATES[memory_type]
    advice = (
        "; uncertain content is accepted only as an event (type 'event')"
        if memory_type is not MemoryType.EVENT
        else ""
    )
    if confidence < gate.min_confidence:
        raise GateRefused(
            f"{memory_type} claims need confidence ≥ {gate.min_confidence} "
            f"(got {confidence}){advice}",
            field="confidence",
        )
    if gate.needs_authority is not None and gate.needs_authority not in authorities:
        raise GateRefused(
            f"{memory_type} claims need at least one evidence of authority "
            f"{gate.needs_authority} (got {', '.join(sorted(authorities)) or 'none'}){advice}",
            field="evidence",
        )


def claim_text(
    memory_type: MemoryType,
    key: str,
    value: Any,
    *,
    subject: str | None = None,
    predicate: str | None = None,
    obj: str | None = None,
) -> str:
    """A claim's words as a person reads them, never a key or a prefix: a fact with the names
    the write used and its predicate in words (`Mara Lind works at Globex`, `Alex age 34`), an
    entity by its names, any other claim by its key's parts and its value (`ui theme: dark`).
    It is what search ranks and what the meaning vector is made of; `HEAD_OF_STATE` is
    `head of state` (Lucene would keep `head_of_state` one token)."""
    if memory_type is MemoryType.FACT:
        said = obj if obj is not None else summarize(value)
        return " ".join(f"{subject} {predicate_words(predicate or '')} {said}".split())
    about = " ".join(key.split(":")[1:])
    said = summarize(_main_part(value))
    return f"{about}: {said}" if said else about


_MAIN_FIELDS = ("value", "decision", "title")
"""The field that says what a keyed claim says (a preference's value, a decision, an event's
or a goal's title); the key's own parts repeated in the value are not said again."""
_KEY_FIELDS = frozenset({"scope", "name", "task_id", "date", "kind", "canonical", "project"})


def _main_part(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    main = next((value[f] for f in _MAIN_FIELDS if value.get(f) is not None), None)
    rest = {f: v for f, v in value.items() if f not in _MAIN_FIELDS and f not in _KEY_FIELDS}
    if main is None:
        return {f: v for f, v in value.items() if f not in _KEY_FIELDS} or value
    return f"{summarize(main)} ({summarize(rest)})" if summarize(rest) else main


def predicate_words(predicate: str) -> str:
    """A predicate in words: `HEAD_OF_STATE` → `head of state`, `WORKS_AT` → `works at`."""
    return predicate.replace("_", " ").lower()


def summarize(value: Any) -> str:
    """A readable one-paragraph rendering of a JSON value."""
    if isinstance(value, dict):
        parts = []
        for name, item in value.items():
            if isinstance(item, dict | list):
                parts.append(f"{name}: {summarize(item)}")
            elif item is not None:
                parts.append(f"{name}: {item}")
        return "; ".join(parts)
    if isinstance(value, list):
        return ", ".join(summarize(item) for item in value)
    return "" if value is None else str(value)
