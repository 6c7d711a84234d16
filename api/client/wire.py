"""How the client's values travel: sent as GraphQL variables (`to_wire`), asked for
(`selection`) and read back (`from_wire`), each derived from the record or input's own fields,
so a field is declared once — on its dataclass.

    selection(Space)                        # '{ id name description recordedAt }'
    from_wire(Space, {"id": "…", "name": "alice", "description": "", "recordedAt": "…"})
    to_wire(EntityRef(name="Alice", kind=EntityKind.PERSON))   # {'name': 'Alice', 'kind': 'PERSON'}

A field's GraphQL name is its own in camelCase, or the `wire` of its metadata where GraphQL
spells it otherwise (`source: Entity = field(metadata={"wire": "from"})`). Enums travel by
name (the vocabulary's `PERSON`, not the stored `person`), instants as ISO-8601 with their
offset.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from datetime import datetime
from enum import Enum
from typing import Any, Final, Literal, TypeAlias, TypeVar

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
"""A claim's value, as the API's `JSON` scalar carries it."""


class Unset(Enum):
    UNSET = "UNSET"


UNSET: Final = Unset.UNSET
"""Leave a field out (where leaving it out and sending null mean different things)."""
Unsettable: TypeAlias = Literal[Unset.UNSET]

R = TypeVar("R")


def wire_name(field: dataclasses.Field[Any]) -> str:
    head, *rest = field.name.split("_")
    return str(field.metadata.get("wire", head + "".join(part.title() for part in rest)))


def to_wire(value: Any) -> Any:
    """`value` as GraphQL variables take it: an input dataclass as an object of its given
    fields (None and UNSET left out), enums by name, instants in ISO-8601."""
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, datetime):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            wire_name(f): to_wire(given)
            for f in dataclasses.fields(value)
            if (given := getattr(value, f.name)) is not None and given is not UNSET
        }
    if isinstance(value, Mapping):
        return {k: to_wire(v) for k, v in value.items() if v is not UNSET}
    if isinstance(value, list | tuple):
        return [to_wire(v) for v in value]
    return value


def _fields(kind: type) -> tuple[tuple[str, str, Any], ...]:
    """Each field of a record: its name, its GraphQL name and its type."""
    return _fields_of(kind)


@functools.cache
def _fields_of(kind: type) -> tuple[tuple[str, str, Any], ...]:
    hints = typing.get_type_hints(kind, localns={"JSONValue": Any})
    return tuple((f.name, wire_name(f), hints[f.name]) for f in dataclasses.fields(kind))


def _inner(hint: Any) -> Any:
    """The type a field holds, its `None` and `list[...]` taken off."""
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        [kept] = [a for a in typing.get_args(hint) if a is not type(None)]
        return _inner(kept)
    if origin is list:
        return _inner(typing.get_args(hint)[0])
    return hint


def selection(kind: type) -> str:
    """The GraphQL selection set asking for every field of the record `kind`, nested records
    included."""
    parts = []
    for _, name, hint in _fields(kind):
        inner = _inner(hint)
        nested = dataclasses.is_dataclass(inner)
        parts.append(f"{name} {selection(inner)}" if nested else name)
    return "{ " + " ".join(parts) + " }"


def from_wire(kind: type[R], data: Mapping[str, Any]) -> R:
    """The record `kind` read from the GraphQL data its `selection` asked for."""
    values = {name: _read(hint, data[wired]) for name, wired, hint in _fields(kind)}
    return kind(**values)


def _read(hint: Any, raw: Any) -> Any:
    if raw is None:
        return None
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        [kept] = [a for a in typing.get_args(hint) if a is not type(None)]
        return _read(kept, raw)
    if origin is list:
        [item] = typing.get_args(hint)
        return [_read(item, r) for r in raw]
    if isinstance(hint, type):
        if issubclass(hint, Enum):
            return hint[raw]
        if issubclass(hint, datetime):
            return datetime.fromisoformat(raw)
        if dataclasses.is_dataclass(hint):
            return from_wire(hint, raw)
    return raw
