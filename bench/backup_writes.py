"""Do writes go on while a backup runs? Write latency during a backup beside idle write latency.

A backup reads what was known at its watermark in one lock-free read transaction
(`graph.jobs.backup`), so writers are not blocked while it runs (before, the backup held the
recorded-time clock and every write waited for the whole backup). In each round one writer
remembers claims one transaction at a time, first with nothing else running (idle), then while a
backup of the whole database runs; the table gives each round's p50/p95/max and the medians over
rounds, with the ratio of p95 during a backup to idle p95 paired within a round. The backup runs
in the writer's own process and event loop, so its JSON and zip work competes with the writer
for one Python thread: `engram backup` beside `engram serve` is two processes, so this is the
harder case.

    python -m bench.backup_writes [--claims 100000] [--rounds 3] [--idle-writes 200]

It writes only into new spaces named `bench-<random>` and deletes them at the end; the backup
archive goes to a temporary directory and is deleted too. The backup covers the whole database,
so against a developer's own Neo4j it takes as long as that database needs.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from bench._support import (
    OPERATOR,
    bench_console,
    delete_space,
    fresh_space_name,
    open_memory,
    percentile,
)
from bench.generate import generate
from graph.memory import Memory

ACTOR = OPERATOR
EDITORS = ("vim", "emacs", "helix", "nano", "ed")

app = typer.Typer(add_completion=False)


@dataclass
class Round:
    idle: list[float]
    during: list[float]
    backup_seconds: float
    backup_nodes: int


class Writer:
    """Remembers a preference over and over (each write supersedes the previous revision)."""

    def __init__(self, memory: Memory, space: str, observation_id: str) -> None:
        self.memory, self.space, self.observation_id = memory, space, observation_id
        self.writes = 0

    @classmethod
    async def start(cls, memory: Memory, space: str) -> Writer:
        await memory.writes.create_space(ACTOR, space, "backup_writes: the writer")
        episode = await memory.writes.open_episode(ACTOR, space, {"title": "edits"})
        said = await memory.writes.record_observation(
            ACTOR, space, {"episode_id": episode.id, "content": "my editor changes often"}
        )
        return cls(memory, space, said.id)

    async def write(self) -> float:
        """One remember in its own transaction; returns its latency in ms."""
        value = EDITORS[self.writes % len(EDITORS)]
        self.writes += 1
        claim = {
            "key": "pref:tools:editor",
            "value": {"value": value},
            "evidence": [{"observation_id": self.observation_id}],
        }
        started = time.perf_counter()
        await self.memory.writes.remember(ACTOR, self.space, [claim])
        return (time.perf_counter() - started) * 1000


async def one_round(writer: Writer, idle_writes: int, archive: Path) -> Round:
    idle = [await writer.write() for _ in range(idle_writes)]
    backing_up = asyncio.create_task(writer.memory.admin.backup(archive))
    during: list[float] = []
    while not backing_up.done():
        during.append(await writer.write())
    report = await backing_up
    archive.unlink()
    return Round(idle, during, report.seconds, report.nodes)


def _ms(values: list[float]) -> str:
    return f"{percentile(values, 50):.1f} / {percentile(values, 95):.1f} / {max(values):.1f}"


@app.command()
def main(
    claims: Annotated[int, typer.Option(min=50, help="Claims in the backed-up graph.")] = 100_000,
    rounds: Annotated[int, typer.Option(min=1, help="Idle + during-backup rounds.")] = 3,
    idle_writes: Annotated[int, typer.Option(min=20, help="Idle writes per round.")] = 200,
) -> None:
    """Write p95 during a backup of CLAIMS claims beside the idle write p95."""
    console = bench_console()

    async def run() -> list[Round]:
        async with open_memory() as memory:
            bulk, writes = fresh_space_name(), fresh_space_name()
            try:
                generated = await generate(memory, bulk, claims=claims, console=console)
                console.print(f"generated {len(generated.claim_ids)} claims in {bulk!r}")
                writer = await Writer.start(memory, writes)
                await writer.write()  # warm up
                results = []
                with tempfile.TemporaryDirectory(prefix="engram-bench-") as scratch:
                    for number in range(rounds):
                        result = await one_round(writer, idle_writes, Path(scratch) / "b.zip")
                        results.append(result)
                        console.print(
                            f"round {number + 1}: backup {result.backup_seconds:.1f} s "
                            f"({result.backup_nodes} nodes), {len(result.during)} writes during it"
                        )
                return results
            finally:
                for space in (bulk, writes):
                    await delete_space(memory, space)

    results = asyncio.run(run())
    table = Table(title=f"remember latency (ms, p50 / p95 / max) — backup of {claims:,} claims")
    for column in ("round", "idle", "during a backup", "writes during", "backup s", "p95 ratio"):
        table.add_column(column, justify="right")
    ratios = []
    for number, result in enumerate(results, start=1):
        ratio = percentile(result.during, 95) / percentile(result.idle, 95)
        ratios.append(ratio)
        table.add_row(
            str(number),
            _ms(result.idle),
            _ms(result.during),
            str(len(result.during)),
            f"{result.backup_seconds:.1f}",
            f"{ratio:.2f}",
        )
    idle_p95 = statistics.median(percentile(r.idle, 95) for r in results)
    during_p95 = statistics.median(percentile(r.during, 95) for r in results)
    console.print(table)
    console.print(
        f"median over {rounds} rounds: idle p95 {idle_p95:.1f} ms, p95 during a backup "
        f"{during_p95:.1f} ms (paired ratio {statistics.median(ratios):.2f}); backup "
        f"{statistics.median(r.backup_seconds for r in results):.1f} s"
    )


if __name__ == "__main__":
    app()
