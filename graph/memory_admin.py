"""What operators do — `memory.admin` of `graph.memory.Memory`: the store (migrations,
readiness, the embedding outbox), API keys (and the actor a presented key stands for), and the
jobs — import, backup, restore.

Only the command line and the app (its lifespan, and its key check) call these; agents reach none
of them. Everything
here still goes through graph/'s commands, so the jobs obey the same rules as any writer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, LiteralString

from neo4j.exceptions import Neo4jError

from graph.commands import apikeys, spaces
from graph.domain.actor import Actor, Grant
from graph.jobs import backup as backups
from graph.jobs import importer
from graph.jobs import restore as restores
from graph.meaning.embeddings import Embedder, count_pending, embed_pending
from graph.meaning.space_indexes import drop_index
from graph.store import migrate as migrations
from graph.store.db import Graph
from graph.store.neomodel_bridge import (
    neomodel_database,
    neomodel_driver_is,
    share_driver,
)
from graph.store.settings import Settings

NEO4J_VERSION: LiteralString = """
CALL dbms.components() YIELD name, versions, edition
RETURN versions[0] AS version, edition
"""

NEO4J_MEMORY: LiteralString = """
CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes
RETURN attributes.HeapMemoryUsage.value.properties.max AS heapMax
"""

NEO4J_PAGECACHE: LiteralString = """
SHOW SETTINGS YIELD name, value
WHERE name = 'server.memory.pagecache.size'
RETURN value
"""

Phases = Callable[[str, int, int], None]
"""`progress(phase, done, total)` of a backup or a restore."""


@dataclass(frozen=True)
class Readiness:
    """What /readyz reports: the migrations still pending and whom neomodel talks to."""

    pending: list[str]
    database: str
    neomodel_shares_driver: bool
    neomodel_database: str | None


class Admin:
    """What only operators do with the memory's connection."""

    def __init__(self, graph: Graph, settings: Settings, embedder: Embedder) -> None:
        self.graph = graph
        self.settings = settings
        self.embedder = embedder

    async def migrate(self) -> list[migrations.Migration]:
        """Apply pending migrations, in order; what was applied."""
        return await migrations.migrate(self.graph)

    async def readiness(self) -> Readiness:
        """Neo4j answers (else `Neo4jUnavailable`) and which migrations are still pending."""
        await self.graph.driver.verify_connectivity()
        waiting = await migrations.pending(self.graph, ensure_ledger=False)
        return Readiness(
            pending=[m.name for m in waiting],
            database=self.graph.database,
            neomodel_shares_driver=neomodel_driver_is(self.graph),
            neomodel_database=await neomodel_database(self.graph),
        )

    async def server_info(self) -> dict[str, str]:
        """What a measurement states about its Neo4j: version, edition, max heap, page cache."""
        info: dict[str, Any] = dict((await self.graph.read(NEO4J_VERSION))[0])
        try:  # procedures an operator may have restricted: the figures say "?" then
            heap = (await self.graph.read(NEO4J_MEMORY))[0]["heapMax"]
            info["heap"] = f"{heap / 2**30:.2f} GiB"
            info["pagecache"] = (await self.graph.read(NEO4J_PAGECACHE))[0]["value"]
        except (Neo4jError, IndexError, KeyError, TypeError):
            info.setdefault("heap", "?")
            info.setdefault("pagecache", "?")
        return {name: str(value) for name, value in info.items()}

    async def embed_pending(
        self, progress: Callable[[int], None] | None = None, *, every_space: bool = False
    ) -> int:
        """Fill in the meaning vectors the embedding outbox waits for; how many were stored.
        With `every_space`, first give every space that has grown big its own vector index
        (a process's first drain does, for databases from before V0014)."""
        return await embed_pending(
            self.graph, self.embedder, progress=progress, every_space=every_space
        )

    async def drop_meaning_index(self, space_id: str) -> None:
        """Drop a space's own vector index and its marker (for a space deleted outright)."""
        await drop_index(self.graph, space_id)

    async def count_unembedded(self) -> int:
        return await count_pending(self.graph)

    # -- API keys (neomodel owns them) --------------------------------------------------------

    async def authenticate(self, presented: str) -> Actor | None:
        """The actor of an API key, or None when it is malformed, unknown or revoked."""
        return await apikeys.authenticate(self.graph, presented)

    async def create_key(self, name: str, grants: list[Grant]) -> apikeys.IssuedKey:
        await self._own_keys()
        return await apikeys.create_key(name, grants)

    async def list_keys(self) -> list[dict[str, Any]]:
        await self._own_keys()
        return await apikeys.list_keys()

    async def revoke_key(self, key_id: str) -> bool:
        await self._own_keys()
        return await apikeys.revoke_key(key_id)

    async def _own_keys(self) -> None:
        """neomodel (the keys' owner) works on this memory's driver, whichever graph it was
        bound to last (one driver per process: a restore target, another memory)."""
        if not neomodel_driver_is(self.graph):
            await share_driver(self.graph)

    async def all_spaces(self) -> list[spaces.Space]:
        """Every space, by name."""
        return await spaces.list_spaces(self.graph)

    # -- jobs --------------------------------------------------------------------------------

    async def import_items(
        self,
        actor: Actor,
        space: str,
        lines: Sequence[str],
        *,
        source: str,
        batch_size: int = 200,
        progress: Callable[[int], None] | None = None,
    ) -> importer.ImportReport:
        """Import JSONL memory items idempotently, with a report of what was refused."""
        return await importer.import_items(
            self.graph,
            space,
            lines,
            source=source,
            actor=actor,
            batch_size=batch_size,
            progress=progress,
        )

    async def backup(self, path: Path, *, progress: Phases | None = None) -> backups.BackupReport:
        """A checksummed archive of what was known at the clock's now; writers go on."""
        return await backups.backup(
            self.graph, path, blob_root=self.settings.blobs, progress=progress
        )

    async def restore(
        self, path: Path, *, ledger: Admin | None, progress: Phases | None = None
    ) -> restores.RestoreReport:
        """Restore an archive into this (empty) memory, replaying `ledger`'s tombstones."""
        return await restores.restore(
            self.graph,
            path,
            blob_root=self.settings.blobs,
            ledger=ledger.graph if ledger is not None else None,
            progress=progress,
        )
