"""What a door needs to run the memory, beside the memory itself: its settings, the Neo4j it
talks to (an existing one by `NEO4J_URI`, or the local one Engram starts), the migrations, the
Browser's settings and queries for Engram's guide, and fetching a jar from Maven Central once.

    settings = get_settings()
    target = resolve_target(settings)      # NEO4J_URI, or the local Neo4j (started if needed)
    memory = await Memory.open(settings, target)

`graph.memory` is the door to the memory's domain; this module is the machinery around it, so
neither repeats the other. `Graph` is here for the benches' and tests' own Cypher (raw floors
and checks), never for a door's reads or writes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from graph.meaning.embeddings import Embedder
from graph.reads import guide_queries
from graph.store.db import UNAVAILABLE, Graph, Neo4jTarget, connect, query_count, resolve_target
from graph.store.local._maven import file_lock, run_maven
from graph.store.local.browser_settings import (
    GUIDE_PATH,
    STYLE_PATH,
    allowed_guide_hosts,
    guide_origin,
)
from graph.store.local.server import LocalNeo4j
from graph.store.migrate import Migration
from graph.store.settings import NEO4J_VERSION, Settings, get_settings

__all__ = [
    "GUIDE_PATH",
    "NEO4J_VERSION",
    "STYLE_PATH",
    "UNAVAILABLE",
    "Embedder",
    "Graph",
    "LocalNeo4j",
    "Migration",
    "Neo4jTarget",
    "Settings",
    "allowed_guide_hosts",
    "connect",
    "fetch_from_maven",
    "get_settings",
    "guide_origin",
    "guide_queries",
    "maven_cache_lock",
    "query_count",
    "resolve_target",
]


@contextmanager
def maven_cache_lock(cache_dir: Path) -> Iterator[None]:
    """Hold the lock every fetch into `cache_dir` takes (one process fetches, others wait)."""
    with file_lock(cache_dir / "maven.lock"):
        yield


def fetch_from_maven(artifact: str, out_dir: Path, what: str) -> None:
    """Copy `artifact` (`group:name:version`) from Maven Central (via `~/.m2`) into `out_dir`;
    a `SetupError` saying what failed when Maven is missing or cannot fetch it."""
    run_maven(["dependency:copy", f"-Dartifact={artifact}", f"-DoutputDirectory={out_dir}"], what)
