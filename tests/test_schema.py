"""schema.graphql is exported from the code; drift fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from api.graphql.schema import sdl

pytestmark = pytest.mark.fast

ROOT = Path(__file__).resolve().parents[1]


def test_committed_schema_matches_the_code() -> None:
    committed = (ROOT / "schema.graphql").read_text()
    assert committed == sdl(), "schema.graphql is stale: run `engram schema --write`"
