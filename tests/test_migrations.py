"""Migrations: applied in order, recorded with checksums, idempotent, edits refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from graph.domain.errors import SetupError
from graph.runtime import Graph
from graph.store.migrate import default_directory, load, migrate, pending

SHIPPED = load()


async def drop_schema_and_ledger(graph: Graph) -> None:
    for row in await graph.read("SHOW CONSTRAINTS YIELD name RETURN name"):
        await graph.write(f"DROP CONSTRAINT {row['name']} IF EXISTS")  # type: ignore[arg-type]
    for row in await graph.read("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name"):
        await graph.write(f"DROP INDEX {row['name']} IF EXISTS")  # type: ignore[arg-type]
    await graph.write("MATCH (m:Migration) DELETE m")


def copy_of_migrations(tmp_path: Path) -> Path:
    target = tmp_path / "migrations"
    shutil.copytree(default_directory(), target, ignore=shutil.ignore_patterns("__*"))
    return target


async def test_migrate_applies_every_file_in_order_and_records_its_checksum(graph: Graph) -> None:
    await drop_schema_and_ledger(graph)
    try:
        applied = await migrate(graph)
        assert [m.name for m in applied] == [m.name for m in SHIPPED]
        assert [m.name for m in applied][:2] == ["V0001__constraints", "V0002__indexes"]
        ledger = await graph.read(
            "MATCH (m:Migration) RETURN m.version AS v, m.name AS name, m.checksum AS sum "
            "ORDER BY v"
        )
        assert ledger == [{"v": m.version, "name": m.name, "sum": m.checksum} for m in SHIPPED]
        constraints = {r["name"] for r in await graph.read("SHOW CONSTRAINTS YIELD name")}
        assert {"space_name", "claim_tier_revision", "audit_idempotency"} <= constraints
        indexes = {r["name"]: r["type"] for r in await graph.read("SHOW INDEXES YIELD name, type")}
        assert indexes["claim_text"] == "FULLTEXT"
        assert indexes["claim_space_key"] == "RANGE"
        full_text = await graph.read(
            "SHOW INDEXES YIELD name, type, options WHERE type = 'FULLTEXT' "
            "RETURN name, options.indexConfig.`fulltext.eventually_consistent` AS after_commit, "
            "options.indexConfig.`fulltext.analyzer` AS analyzer ORDER BY name"
        )
        assert full_text == [
            {"name": name, "after_commit": True, "analyzer": "standard-no-stop-words"}
            for name in ("claim_text", "observation_text")
        ]
    finally:
        await migrate(graph)


async def test_rerunning_migrate_is_a_no_op(graph: Graph) -> None:
    before = await graph.read("MATCH (m:Migration) RETURN m.name AS name, m.appliedAt AS at")
    assert await migrate(graph) == []
    assert await pending(graph) == []
    after = await graph.read("MATCH (m:Migration) RETURN m.name AS name, m.appliedAt AS at")
    assert after == before


async def test_an_edited_applied_migration_is_refused(graph: Graph, tmp_path: Path) -> None:
    directory = copy_of_migrations(tmp_path)
    edited = directory / "V0001__constraints.cypher"
    edited.write_text(edited.read_text() + "\n// a harmless comment is still an edit\n")
    with pytest.raises(SetupError, match=r"V0001__constraints was applied with checksum .* never"):
        await migrate(graph, directory)


async def test_a_new_migration_file_is_applied_once(graph: Graph, tmp_path: Path) -> None:
    directory = copy_of_migrations(tmp_path)
    (directory / "V9001__probe_index.cypher").write_text(
        "// test-only\nCREATE INDEX probe_index IF NOT EXISTS FOR (p:Probe) ON (p.x);\n"
    )
    try:
        assert [m.name for m in await migrate(graph, directory)] == ["V9001__probe_index"]
        assert await migrate(graph, directory) == []
        names = {r["name"] for r in await graph.read("SHOW INDEXES YIELD name")}
        assert "probe_index" in names
        with pytest.raises(SetupError, match="V9001__probe_index that this Engram does not ship"):
            await migrate(graph)
    finally:
        await graph.write("DROP INDEX probe_index IF EXISTS")
        await graph.write("MATCH (m:Migration {version: 9001}) DELETE m")


async def test_a_failing_migration_names_itself_and_is_not_recorded(
    graph: Graph, tmp_path: Path
) -> None:
    directory = copy_of_migrations(tmp_path)
    (directory / "V9002__broken.cypher").write_text("CREATE INDEX FOR nonsense;\n")
    with pytest.raises(SetupError, match="migration V9002__broken failed"):
        await migrate(graph, directory)
    assert await graph.read("MATCH (m:Migration {version: 9002}) RETURN m") == []


@pytest.mark.fast
def test_a_misnamed_migration_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "0003_add_things.cypher").write_text("RETURN 1;")
    with pytest.raises(SetupError, match=r"is not named V<4 digits>__<lower_snake>\.cypher"):
        load(tmp_path)
