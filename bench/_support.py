"""What every benchmark shares: Engram's memory on its Neo4j and removing a bench space.

Benches enter Engram through the `graph.memory.Memory` door like any other caller (kept so by
tests/test_layout.py); only the raw baselines they measure against run Cypher of their own, on
the memory's connection (`memory.graph`).

Benchmarks may run against a developer's own data, so the only destructive helper here refuses
any space whose name does not start with `bench`, and deletes nothing outside that space.
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, LiteralString, TypeVar

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

from graph.domain.actor import Actor
from graph.memory import Memory
from graph.runtime import Graph, Neo4jTarget, Settings, get_settings, query_count

T = TypeVar("T")

BENCH_PREFIX = "bench"

# Every node of a space carries its spaceId; deleting in batches keeps each transaction small
# enough for a 1 GB heap. `CALL … IN TRANSACTIONS` needs an auto-commit (implicit) transaction.
DELETE_SPACE_CONTENT: LiteralString = """
MATCH (n {spaceId: $id})
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS
"""

DELETE_SPACE_NODE: LiteralString = """
MATCH (s:Space {id: $id})
DETACH DELETE s
"""


OPERATOR = Actor.operator("bench")
"""Who the benches are: a person at the machine, trusted with every space and tier."""


@asynccontextmanager
async def open_memory(
    settings: Settings | None = None, target: Neo4jTarget | None = None
) -> AsyncIterator[Memory]:
    """The configured Neo4j (the local one is started when NEO4J_URI is unset), migrated as
    `engram serve` would (without the indexes a fresh database makes every lookup a scan),
    closed after."""
    memory = await Memory.open(settings or get_settings(), target, embed_threads=2)
    try:
        await memory.admin.migrate()
        yield memory
    finally:
        await memory.close()


def fresh_space_name() -> str:
    """A space name no developer would use, so a benchmark never touches real memory."""
    return f"{BENCH_PREFIX}-{secrets.token_hex(4)}"


async def delete_space(memory: Memory, name: str) -> bool:
    """Delete a bench space and everything in it; False if there was no such space.

    Not a `forget` (which keeps a tombstone and erases content in place): a bench space is
    scaffolding, removed with raw Cypher on the memory's own connection."""
    if not name.startswith(BENCH_PREFIX):
        raise ValueError(f"refusing to delete {name!r}: benchmarks only delete 'bench*' spaces")
    spaces = [s for s in await memory.admin.all_spaces() if s.name == name]
    if not spaces:
        return False
    space_id = spaces[0].id
    graph = memory.graph
    await memory.admin.drop_meaning_index(space_id)  # a big space's own vector index, if any
    async with graph.driver.session(database=graph.database) as session:
        await (await session.run(DELETE_SPACE_CONTENT, id=space_id)).consume()
        await (await session.run(DELETE_SPACE_NODE, id=space_id)).consume()
    return True


async def counted(work: Awaitable[T]) -> tuple[T, int]:
    """What `work` returned and how many Cypher queries it ran."""
    counter = [0]
    token = query_count.set(counter)
    try:
        return await work, counter[0]
    finally:
        query_count.reset(token)


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
    query, so use it for reads only."""
    prefix: LiteralString = "PROFILE " if profile else "EXPLAIN "
    async with graph.driver.session(database=graph.database) as session:
        result = await session.run(prefix + query, params or {})
        summary = await result.consume()
    return _steps(summary.profile if profile else summary.plan)


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


async def drain_embeddings(
    console: Console, memory: Memory, *, show_progress: bool = True
) -> tuple[float, int]:
    """Give every waiting claim its meaning vector (as `engram serve` would have, a big space
    its own vector index included), reporting the rate (the model and the writes together); the
    seconds it took and the vectors stored."""
    total = await memory.admin.count_unembedded()
    if not total:
        await memory.admin.embed_pending(every_space=True)  # a space embedded before V0014
        console.print("embedding outbox: empty")
        return 0.0, 0
    began = time.perf_counter()
    with progress_bar(console, disable=not show_progress) as bar:
        task = bar.add_task("embedding claims", total=total)
        stored = await memory.admin.embed_pending(
            progress=lambda done: bar.update(task, completed=done), every_space=True
        )
    seconds = time.perf_counter() - began
    console.print(f"embedded {stored:,} claims in {seconds:.1f} s: {stored / seconds:,.0f}/s")
    return seconds, stored


class Loads:
    """The 1-minute load average at the start and end of each measurement."""

    def __init__(self) -> None:
        self.seen: dict[str, list[float]] = {}

    def start(self, name: str) -> None:
        self.seen[name] = [round(os.getloadavg()[0], 2)]

    def end(self, name: str) -> None:
        self.seen[name].append(round(os.getloadavg()[0], 2))


def store_gib(settings: Settings) -> float | None:
    """On-disk size of a local Neo4j's data (store files, indexes, transaction logs); None
    for a configured one."""
    if settings.neo4j_uri is not None:
        return None
    total = 0
    for path in (settings.data_dir / "neo4j" / "data").rglob("*"):
        with contextlib.suppress(OSError):  # a log file rotated away meanwhile
            total += path.stat().st_size if path.is_file() else 0
    return round(total / 2**30, 2)
