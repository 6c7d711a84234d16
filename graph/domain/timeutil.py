"""Conversions between Neo4j temporal values and timezone-aware Python datetimes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from neo4j.time import DateTime


def to_native(value: Any) -> datetime:
    """A Neo4j DateTime (or Python datetime) as an aware Python datetime in UTC."""
    if isinstance(value, DateTime):
        value = value.to_native()
    if not isinstance(value, datetime):
        raise TypeError(f"expected a datetime, got {type(value).__name__}")
    if value.tzinfo is None:
        raise ValueError("naive datetime: Engram only stores instants with an offset")
    return value.astimezone(UTC)


def to_native_or_none(value: Any) -> datetime | None:
    return None if value is None else to_native(value)


def utc_now() -> datetime:
    return datetime.now(UTC)
