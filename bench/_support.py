"""What every benchmark shares: a connection to Engram's Neo4j and removing a bench space.

Benchmarks may run against a developer's own data, so the only destructive helper here refuses
any space whose name does not start with `bench`, and deletes nothing outside that space.
"""

from __future__ import annotations

import math
import secrets
import sys
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any, LiteralString

from neo4j import AsyncManagedTransaction
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from graph.commands.spaces import list_spaces
from graph.meaning.embeddings import Embedder, count_pending, embed_pending
from graph.store import db
from graph.store.db import Graph, connect, resolve_target
from graph.store.migrate import migrate
from graph.store.settings import get_settings

BENCH_PREFIX = "bench"

# Every node of a space carries its spaceId; deleting in batches keeps each transaction small
# enough for a 1 GB heap. `CALL … IN TRANSACTIONS` needs an auto-commit (implicit) transaction.
DELETE_SPACE_CONTENT: LiteralString = """
MATCH (n {spaceId: $id})
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
"""

DELETE_SPACE_NODE: LiteralString = """
MATCH (s:Space {id: $id})
DETACH DELETE s
"""


@asynccontextmanager
async def open_graph() -> AsyncIterator[Graph]:
    """The configured Neo4j (the local one is started when NEO4J_URI is unset), migrated as
    `engram serve` would (without the indexes a fresh database makes every lookup a scan),
    closed after."""
    graph = await connect(resolve_target(get_settings()))
    try:
        await migrate(graph)
        yield graph
    finally:
        await graph.close()


def fresh_space_name() -> str:
    """A space name no developer would use, so a benchmark never touches real memory."""
    return f"{BENCH_PREFIX}-{secrets.token_hex(4)}"


async def delete_space(graph: Graph, name: str) -> bool:
    """Delete a bench space and everything in it; False if there was no such space."""
    if not name.startswith(BENCH_PREFIX):
        raise ValueError(f"refusing to delete {name!r}: benchmarks only delete 'bench*' spaces")
    spaces = await list_spaces(graph, [name])
    if not spaces:
        return False
    space_id = spaces[0].id
    async with graph.driver.session(database=graph.database) as session:
        await (await session.run(DELETE_SPACE_CONTENT, id=space_id)).consume()
        await (await session.run(DELETE_SPACE_NODE, id=space_id)).consume()
    return True


def bench_console() -> Console:
    """A console; 160 columns wide when output goes to a file or pipe (rich would wrap wide
    tables at 80)."""
    console = Console()
    return console if console.is_terminal else Console(width=160)


class RateColumn(ProgressColumn):
    """Items per second of a task (rich's own speed column formats bytes)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:>7,.0f}/s" if speed else "       -/s", style="progress.data.speed")


def progress_bar(console: Console | None = None, *, disable: bool = False) -> Progress:
    """The progress bar every benchmark shows: what, bar, done/total, rate, elapsed, left."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=disable,
    )


def percentile(values: Sequence[float], q: float) -> float:
    """The `q`-th percentile (0–100) of `values`, interpolated between the closest ranks (the
    50th is the median)."""
    if not values:
        raise ValueError("a percentile of nothing")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


SCAN_OPERATORS = frozenset(
    {
        "AllNodesScan",
        "NodeByLabelScan",
        "UndirectedAllRelationshipsScan",
        "DirectedAllRelationshipsScan",
        "UndirectedRelationshipTypeScan",
        "DirectedRelationshipTypeScan",
    }
)
"""Plan operators that read every node (of a label) or relationship (of a type): a query that
should find a few things by id must not start from one of these."""


@dataclass(frozen=True)
class PlanStep:
    operator: str
    details: str
    db_hits: int | None = None
    """Only for PROFILE."""
    rows: int | None = None


async def query_plan(
    graph: Graph, query: LiteralString, params: dict[str, Any] | None = None, *, profile: bool
) -> list[PlanStep]:
    """The plan's operators, root first. EXPLAIN runs nothing (safe for writes); PROFILE runs the
    query, so use it for reads only (or `profile_rolled_back`)."""
    prefix: LiteralString = "PROFILE " if profile else "EXPLAIN "
    async with graph.driver.session(database=graph.database) as session:
        result = await session.run(prefix + query, params or {})
        summary = await result.consume()
    return _steps(summary.profile if profile else summary.plan)


async def profile_rolled_back(
    graph: Graph, query: LiteralString, params: dict[str, Any]
) -> list[PlanStep]:
    """PROFILE a query — a write too — in a transaction that is rolled back: the plan's real
    db hits and rows, and nothing changes."""
    async with graph.driver.session(database=graph.database) as session:
        tx = await session.begin_transaction()
        try:
            result = await tx.run("PROFILE " + query, params)
            summary = await result.consume()
        finally:
            await tx.rollback()
    return _steps(summary.profile)


def _steps(root: dict[str, Any] | None) -> list[PlanStep]:
    steps: list[PlanStep] = []

    def walk(node: dict[str, Any]) -> None:
        args = node.get("args", {})
        steps.append(
            PlanStep(
                operator=str(node.get("operatorType", "?")).split("@")[0],
                details=str(args.get("Details", "")),
                db_hits=node.get("dbHits"),
                rows=node.get("rows"),
            )
        )
        for child in node.get("children", []):
            walk(child)

    if root:
        walk(root)
    return steps


@contextmanager
def timed_queries() -> Iterator[dict[str, list[float]]]:
    """Milliseconds of every query graph/'s commands run inside their transactions, by query text,
    while the block runs. The modules import `graph.store.db.run` by name, so each loaded module's
    reference is swapped for a timing wrapper and restored after (graph/ is not changed)."""
    original = db.run
    times: dict[str, list[float]] = {}

    async def timed(
        tx: AsyncManagedTransaction, query: LiteralString, /, **params: Any
    ) -> list[dict[str, Any]]:
        began = time.perf_counter()
        try:
            return await original(tx, query, **params)
        finally:
            times.setdefault(query, []).append(1000 * (time.perf_counter() - began))

    patched = [
        module
        for name, module in list(sys.modules.items())
        if name.startswith("graph.") and getattr(module, "run", None) is original
    ]
    for module in patched:
        setattr(module, "run", timed)  # noqa: B010 - a module attribute, swapped on purpose
    try:
        yield times
    finally:
        for module in patched:
            setattr(module, "run", original)  # noqa: B010


async def drain_embeddings(console: Console, graph: Graph, embedder: Embedder) -> None:
    """Give every waiting claim its meaning vector (as `engram serve` would have), reporting the
    rate; the model and the writes together."""
    total = await count_pending(graph)
    if not total:
        console.print("embedding outbox: empty")
        return
    began = time.perf_counter()
    with progress_bar(console) as bar:
        task = bar.add_task("embedding claims", total=total)
        stored = await embed_pending(
            graph, embedder, batch=128, progress=lambda done: bar.update(task, completed=done)
        )
    seconds = time.perf_counter() - began
    console.print(f"embedded {stored:,} claims in {seconds:.1f} s: {stored / seconds:,.0f}/s")
