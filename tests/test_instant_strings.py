"""Instants that hot reads return as Cypher `toString` text parse back to the stored instant."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from graph.domain.timeutil import to_native
from graph.runtime import Graph

STORED = datetime(2024, 3, 5, 6, 7, 8, 123456, tzinfo=UTC)


@pytest.mark.parametrize(
    ("cypher", "expected"),
    [
        ("toString($at)", STORED),
        ("toString(datetime({epochSeconds: 0}))", datetime(1970, 1, 1, tzinfo=UTC)),
        (
            "toString(datetime('2024-03-05T07:07:08.123456789+01:00'))",
            STORED,  # nanoseconds are cut to the microseconds Python keeps
        ),
        ("toString(datetime('2024-03-05T07:07:08.123456[Europe/Paris]'))", STORED),
    ],
)
async def test_a_cypher_instant_string_parses_to_the_same_utc_instant(
    graph: Graph, cypher: str, expected: datetime
) -> None:
    [row] = await graph.read("RETURN " + cypher + " AS text", at=STORED)  # type: ignore[arg-type]
    parsed = to_native(row["text"])
    assert (parsed, parsed.tzinfo) == (expected, UTC)


@pytest.mark.fast
def test_an_offset_is_kept_as_the_same_instant_in_utc() -> None:
    assert to_native("2024-03-05T08:07:08.123456+02:00") == STORED
    assert to_native(
        datetime(2024, 3, 5, 8, 7, 8, 123456, tzinfo=timezone(timedelta(hours=2)))
    ) == (STORED)
