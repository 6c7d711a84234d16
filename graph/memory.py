"""The one door into Engram's memory: every outside caller — the GraphQL resolvers, the command
line, the MCP server, the benches — goes through `Memory`, and reaches what it does by role.

    memory = await Memory.open(get_settings())       # graph.runtime's settings; connects
    view = await memory.reads.view(agent, "alice", as_of=last_year)
    near = await memory.reads.related(view, alice.id, hops=2)
    [claim] = await memory.writes.remember(agent, "alice", [{"key": "pref:ui:theme", ...}])
    await memory.forgetting.forget(agent, "alice", {"selector": {"claimId": claim.id}, ...})
    await memory.close()

The roles: `reads` (views and what they show), `writes` (the commands that add and revise),
`forgetting` (erasure, legal holds, retention) and `admin` (the store, API keys, the jobs — for
operators only). A `Memory` holds the connection, no caller: every command takes the explicit
`Actor` (spaces, tier, legal grant) and every read a `View` opened for one — so what a caller may
not read it can neither see nor change, whatever door it came in by. Inputs are domain models or
plain data (validated, with typed errors) — the commands' input models are exported here beside
`Memory`; answers are the records of `graph.domain`.
"""

from __future__ import annotations

from typing import Self

from graph.commands import apikeys
from graph.commands.artifacts import ArtifactInput
from graph.commands.correct import CorrectInput
from graph.commands.episodes import ObservationInput, OpenEpisodeInput, SealEpisodeInput
from graph.commands.merge import MergeInput
from graph.commands.references import EntityRef, EvidenceRef
from graph.commands.remember import RememberInput
from graph.commands.spaces import Space
from graph.erasure.forget import ForgetInput, ForgetReceipt
from graph.erasure.holds import HoldInput
from graph.erasure.selectors import Selector
from graph.jobs.export import ExportFormat
from graph.jobs.restore import check_archive
from graph.jobs.retention import parse_policies
from graph.meaning.embeddings import Embedder
from graph.memory_admin import Admin, Readiness
from graph.memory_forgetting import Forgetting
from graph.memory_reads import Reads
from graph.memory_writes import Writes
from graph.reads.listing import ClaimFilter
from graph.reads.visibility import View
from graph.store.db import Graph, Neo4jTarget, connect, resolve_target
from graph.store.neomodel_bridge import release_driver, share_driver
from graph.store.settings import Settings, get_settings

__all__ = [
    "DEV_ACTOR",
    "ArtifactInput",
    "ClaimFilter",
    "CorrectInput",
    "EntityRef",
    "EvidenceRef",
    "ExportFormat",
    "ForgetInput",
    "ForgetReceipt",
    "HoldInput",
    "Memory",
    "MergeInput",
    "ObservationInput",
    "OpenEpisodeInput",
    "Readiness",
    "RememberInput",
    "SealEpisodeInput",
    "Selector",
    "Space",
    "View",
    "check_archive",
    "parse_policies",
]

DEV_ACTOR = apikeys.DEV
"""The actor of a dev-mode server (no key asked): every space, every tier."""


class Memory:
    """Engram's memory on one Neo4j, by role: `reads`, `writes`, `forgetting`, `admin`."""

    def __init__(self, graph: Graph, settings: Settings, embedder: Embedder | None = None) -> None:
        self.graph = graph
        self.settings = settings
        self.embedder = embedder or Embedder()
        self.reads = Reads(graph, self.embedder)
        self.writes = Writes(graph, settings)
        self.forgetting = Forgetting(graph, settings)
        self.admin = Admin(graph, settings, self.embedder)

    @classmethod
    async def open(
        cls,
        settings: Settings | None = None,
        target: Neo4jTarget | None = None,
        *,
        retry_time: float = 30.0,
        embedder: Embedder | None = None,
        embed_threads: int = 1,
    ) -> Memory:
        """Connect (starting the local Neo4j when no NEO4J_URI is set) and share the driver
        with neomodel, which owns the administrative nodes."""
        settings = settings or get_settings()
        graph = await connect(target or resolve_target(settings), retry_time=retry_time)
        try:
            await share_driver(graph)
        except BaseException:
            await graph.close()
            raise
        return cls(graph, settings, embedder or Embedder(threads=embed_threads))

    async def close(self) -> None:
        """Hand the driver back from neomodel and close it."""
        await release_driver()
        await self.graph.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()
