"""`DateTime` as Engram accepts it: ISO-8601 text naming an instant that exists in UTC.

Strawberry's own DateTime parses `9999-12-31T23:00:00-05:00` and `0001-01-01T00:00:00+05:00`,
but neither instant is representable in UTC (year 10000, year 0): every read converts to UTC,
and the conversion would fail deep in a resolver as "Unexpected error.". Here such a value is
refused while the request's variables are coerced, with graphql-core's usual wording:

    Variable '$asOf' has invalid value: Value cannot represent a DateTime:
    "9999-12-31T23:00:00-05:00". The instant is outside years 1–9999 in UTC.

A bare date (`2024-03-01`) or month (`2024-03`) means its first instant, UTC (ENGRAM.md §5).
A date and time without an offset passes, as before: each resolver refuses it with a
`VALIDATION` error naming the argument.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import strawberry
from strawberry.exceptions import StrawberryInputCoercionError
from strawberry.types.scalar import ScalarDefinition

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_MONTH = re.compile(r"\d{4}-\d{2}")


def _parse_instant(value: object) -> datetime:
    if not isinstance(value, str):
        raise StrawberryInputCoercionError(
            f'Value cannot represent a DateTime: "{value}". Expected a string.'
        )
    if _MONTH.fullmatch(value):
        value += "-01"
    try:
        instant = datetime.fromisoformat(value)
        if _DATE.fullmatch(value):
            instant = instant.replace(tzinfo=UTC)  # a date means its first instant, UTC
        if instant.utcoffset() is not None:
            instant.astimezone(UTC)
    except OverflowError:
        raise StrawberryInputCoercionError(
            f'Value cannot represent a DateTime: "{value}". '
            "The instant is outside years 1–9999 in UTC."
        ) from None
    except ValueError as failure:
        raise StrawberryInputCoercionError(
            f'Value cannot represent a DateTime: "{value}". {failure}'
        ) from None
    return instant


def _serialize(value: datetime) -> str:
    return value.isoformat()


DATETIME: ScalarDefinition = strawberry.scalar(
    name="DateTime",
    description=(
        "An instant: ISO-8601 date and time with a UTC offset, within years 1–9999 in UTC; a "
        "bare YYYY-MM-DD or YYYY-MM means its first instant, UTC."
    ),
    serialize=_serialize,
    parse_value=_parse_instant,
)
"""Passed to the schema as the scalar for every `datetime` argument and field."""
