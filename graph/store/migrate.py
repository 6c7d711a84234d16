"""Versioned, checksummed Cypher migrations (`migrations/V0001__what.cypher`, …).

    applied = await migrate(graph)            # applies what is pending, in order
    [m.name for m in applied]
    ['V0001__core_constraints']

Each file runs in its own transaction; its ledger entry `(:Migration {version, name, checksum,
appliedAt, durationMs})` is written right after. Statements must be idempotent (`IF NOT EXISTS`):
if the process dies between the two, the next run applies the file again. Editing an applied file
is refused.

A file that rewrites data in batches (`CALL (…) { … } IN TRANSACTIONS OF n ROWS`, so that a
large database is not changed in one transaction) runs its statements one by one, each in an
auto-commit transaction (the only kind a batched statement may run in); when it stops midway
the next run applies it again from its first statement, which idempotence makes safe.

The ledger entries are neomodel's (`MigrationRecord`), read and written only here; the entry was
always its own transaction, so neomodel's own transactions change no guarantee. The ledger's
unique `version` stays the Cypher `ENSURE_LEDGER`, run before anything is read: it is the one
constraint that must exist before the migrations that declare every other one, and neomodel would
give it another name than the one existing databases have (a test holds the two together).
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import LiteralString

from neo4j import AsyncManagedTransaction
from neomodel import (
    AsyncStructuredNode,
    DateTimeNeo4jFormatProperty,
    IntegerProperty,
    StringProperty,
    adb,
)

from graph.domain.errors import SetupError
from graph.store.db import Graph, run
from graph.store.neomodel_bridge import in_neomodel
from graph.store.text_indexes import AWAIT_INDEXES_ONLINE

_BATCHED = re.compile(r"\bIN\s+TRANSACTIONS\b", re.IGNORECASE)
_FILE_NAME = re.compile(r"^V(?P<version>\d{4})__(?P<what>[a-z0-9_]+)\.cypher$")

ENSURE_LEDGER: LiteralString = (
    "CREATE CONSTRAINT migration_version IF NOT EXISTS "
    "FOR (m:Migration) REQUIRE m.version IS UNIQUE"
)


class MigrationRecord(AsyncStructuredNode):
    """One applied migration in the ledger."""

    __label__ = "Migration"
    version = IntegerProperty(required=True, unique_index=True)
    name = StringProperty(required=True)
    checksum = StringProperty(required=True)
    applied_at = DateTimeNeo4jFormatProperty(db_property="appliedAt")
    duration_ms = IntegerProperty(db_property="durationMs")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    checksum: str
    statements: tuple[str, ...]


def default_directory() -> Path:
    """The migrations shipped with Engram (the top-level `migrations/` package)."""
    return Path(str(resources.files("migrations")))


def load(directory: Path | None = None) -> list[Migration]:
    """The migration files of `directory`, in version order, validated."""
    directory = directory or default_directory()
    migrations: dict[int, Migration] = {}
    for path in sorted(directory.glob("*.cypher")):
        match = _FILE_NAME.match(path.name)
        if match is None:
            raise SetupError(
                f"migration file {path.name!r} is not named V<4 digits>__<lower_snake>.cypher"
            )
        version = int(match["version"])
        if version in migrations:
            raise SetupError(f"two migration files have version {version:04d}")
        raw = path.read_bytes()
        migrations[version] = Migration(
            version=version,
            name=path.stem,
            checksum=hashlib.sha256(raw).hexdigest(),
            statements=_statements(raw.decode("utf-8")),
        )
    return [migrations[v] for v in sorted(migrations)]


async def pending(
    graph: Graph, directory: Path | None = None, *, ensure_ledger: bool = True
) -> list[Migration]:
    """Migrations not yet applied; raises if an applied one was edited or is unknown here.

    `ensure_ledger=False` only reads (a readiness probe: routable to a reader, no schema write
    per probe); without the ledger's constraint the ledger is simply empty then."""
    if ensure_ledger:
        await graph.write(ENSURE_LEDGER)

    async def applied_records() -> list[MigrationRecord]:
        async with adb.read_transaction:
            found: list[MigrationRecord] = await MigrationRecord.nodes.order_by("version").all()
            return found

    records = await in_neomodel(graph, applied_records())
    applied = {record.version: record for record in records}
    known = load(directory)
    by_version = {m.version: m for m in known}
    for version, record in applied.items():
        migration = by_version.get(version)
        if migration is None:
            raise SetupError(
                f"the database has migration {record.name} that this Engram does not ship; "
                "run a newer Engram against it"
            )
        if migration.checksum != record.checksum:
            raise SetupError(
                f"migration {migration.name} was applied with checksum {record.checksum[:12]}… "
                f"but the file now has {migration.checksum[:12]}…; an applied migration must "
                "never be edited — add a new migration instead"
            )
    return [m for m in known if m.version not in applied]


async def migrate(graph: Graph, directory: Path | None = None) -> list[Migration]:
    """Apply pending migrations in order; returns those applied (empty when up to date)."""

    done: list[Migration] = []
    for migration in await pending(graph, directory):
        started = time.perf_counter()

        async def apply(tx: AsyncManagedTransaction, migration: Migration = migration) -> None:
            for statement in migration.statements:
                # Migration files are code shipped with Engram, not user input.
                await run(tx, statement)

        try:
            if any(_BATCHED.search(statement) for statement in migration.statements):
                for statement in migration.statements:
                    await _auto_commit(graph, statement)
            else:
                await graph.write_tx(apply)
        except Exception as failure:
            raise SetupError(f"migration {migration.name} failed: {failure}") from failure
        entry = {
            "version": migration.version,
            "name": migration.name,
            "checksum": migration.checksum,
            "applied_at": datetime.now(UTC),
            "duration_ms": round((time.perf_counter() - started) * 1000),
        }
        # A MERGE on the version alone: a concurrent runner's entry is found, not duplicated.
        recorded = await in_neomodel(
            graph,
            MigrationRecord.nodes.bulk_get_or_create(entry, merge_by={"keys": ["version"]}),
        )
        if recorded[0].checksum != migration.checksum:
            raise SetupError(
                f"migration {migration.name} was recorded concurrently with other text"
            )
        done.append(migration)
    if done:
        # A migration may have (re)built an index: nothing reads before it is online.
        async with graph.driver.session(database=graph.database) as session:
            await (await session.run(AWAIT_INDEXES_ONLINE)).consume()
    return done


async def _auto_commit(graph: Graph, statement: str) -> None:
    async with graph.driver.session(database=graph.database) as session:
        # Migration files are code shipped with Engram, not user input.
        result = await session.run(statement)
        await result.consume()


def _statements(text: str) -> tuple[str, ...]:
    """Split a file on `;` at line ends, dropping `//` comment lines and blanks."""
    lines = [line for line in text.splitlines() if not line.strip().startswith("//")]
    parts = re.split(r";\s*$", "\n".join(lines), flags=re.MULTILINE)
    return tuple(part.strip() for part in parts if part.strip())
