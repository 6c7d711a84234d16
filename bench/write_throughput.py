"""How fast `remember` writes on this machine: one claim per transaction and batches of claims
per transaction, each beside its floor — the same work written raw by one hand-made statement —
and Neo4j's own limit on the same machine, side by side in one run.

Why side by side: throughput on a shared machine drifts from run to run, so a number measured
yesterday says little. Every variant is measured in each round, the rounds are repeated, and the
table gives medians of rates and medians of the ratios paired within a round. In each round and
for each claims-per-call size:

- `engram`: `Memory.remember`, `size` claims per call (timed);
- `raw`, the same-shape floor (`bench.raw_claim_writes.SameShape`): what those calls wrote is
  read back (untimed) and written again under new ids and keys, one transaction per call — the
  same entities, claims (`Claim:Unembedded`), ABOUT links, relationships, evidence links and one
  audit event per call, with the same property maps;
- for batches, `bare claim` (a Claim node with its evidence relationship per row, nothing else:
  the floor this bench had before), `bare nodes` (nodes with two properties, nodes/s) and
  `bare relationships` (between existing nodes, relationships/s), `size` per transaction: how
  far the fact shape itself is from what this Neo4j does with the least work per row.

Engram serialises the writers of a space on its clock, so claims per transaction is the main
lever. One claim per call is compared by latency: the p50 of Engram's calls over the p50 of the
raw one-claim transactions of the same round (`single_vs_raw_p50`).

    python -m bench.write_throughput [--single 300] [--batched 20000] [--size 100 --size 500]

It writes only into a new space named `bench-<random>` and deletes that space at the end, so it
is safe to run against a developer's own Neo4j (NEO4J_URI) or the local one (ENGRAM_DATA_DIR).
"""

from __future__ import annotations

import asyncio
import math
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from bench._support import (
    OPERATOR,
    bench_console,
    delete_space,
    fresh_space_name,
    open_memory,
    percentile,
    progress_bar,
)
from bench.mix import END, START, ClaimMix, entity_counts
from bench.raw_claim_writes import Bare, SameShape
from graph.memory import Memory

ACTOR = OPERATOR
CLAIMS_PER_OBSERVATION = 5
SETUP_BATCH = 1000
WARM_UP_CLAIMS = 50


@dataclass
class Batch:
    """One measurement's claims, as Engram inputs and as the equivalent raw rows."""

    inputs: list[dict[str, Any]]
    rows: list[dict[str, Any]]


WRITERS = ("engram", "raw", "bare claim", "bare nodes", "bare relationships")
"""What each round measures per batch size (one claim per call: `engram` and `raw` only)."""


@dataclass
class Results:
    """Rows per second of every measurement, by (writer, claims per call), in round order:
    claims/s, but nodes/s and relationships/s for the bare writers."""

    rates: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    single_ms: dict[str, list[list[float]]] = field(default_factory=dict)
    """Milliseconds of every one-claim call or transaction, by writer, one list per round."""

    def add(self, writer: str, size: int, rate: float) -> None:
        self.rates.setdefault((writer, size), []).append(rate)

    def median(self, writer: str, size: int) -> float:
        return statistics.median(self.rates[(writer, size)])

    def paired_ratio(self, top: tuple[str, int], bottom: tuple[str, int]) -> float:
        """Median over rounds of top/bottom measured in the same round."""
        return statistics.median(
            a / b for a, b in zip(self.rates[top], self.rates[bottom], strict=True)
        )

    def single(self, writer: str) -> list[float]:
        """Every one-claim latency of `writer` (ms), all rounds."""
        return [ms for each in self.single_ms.get(writer, []) for ms in each]

    def single_p50_ratio(self) -> float:
        """Median over rounds of Engram's p50 over the raw floor's p50, one claim per call."""
        return statistics.median(
            percentile(engram, 50) / percentile(raw, 50)
            for engram, raw in zip(self.single_ms["engram"], self.single_ms["raw"], strict=True)
        )


class Bench:
    """A fresh bench space with its entities and an observation pool to cite."""

    def __init__(self, memory: Memory, space: str, space_id: str, mix: ClaimMix) -> None:
        self.memory = memory
        self.space = space
        self.space_id = space_id
        self.mix = mix
        self.entity_ids: dict[str, str] = {}
        self.observations: list[str] = []
        self.observed_at: list[datetime] = []
        self.next_observation = 0
        self.same_shape = SameShape(memory, space_id)
        self.bare = Bare(memory, space_id)

    def batch(self, claims: int) -> Batch:
        """`claims` new claims of the mix; every CLAIMS_PER_OBSERVATION cite one observation."""
        inputs: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        for _ in range(claims):
            index = self.next_observation // CLAIMS_PER_OBSERVATION % len(self.observations)
            self.next_observation += 1
            observation_id, at = self.observations[index], self.observed_at[index]
            spec = self.mix.draw(at)
            inputs.append(spec.remember_input(observation_id))
            rows.append(self.bare.claim_row(spec, observation_id, at, self.entity_ids))
        return Batch(inputs, rows)


async def set_up(memory: Memory, space: str, entities: int, observations: int, seed: int) -> Bench:
    """Create the space, remember its entities and record the observations claims will cite
    (none of this is timed)."""
    created = await memory.writes.create_space(
        ACTOR, space, "bench.write_throughput (deleted after)"
    )
    mix = ClaimMix(random.Random(seed), entity_counts(entities))
    bench = Bench(memory, space, created.id, mix)
    episode = await memory.writes.open_episode(ACTOR, space, {"title": "bench"})
    specs = [mix.entity(kind, index, START) for kind, index in mix.entities()]
    total = max(observations, len(specs))
    # Spread over 2019–2026, so claims that default their valid time to it spread too.
    bench.observed_at = [START + (END - START) * (n / total) for n in range(total)]
    for start in range(0, total, SETUP_BATCH):
        said = await memory.writes.record_observations(
            ACTOR,
            space,
            [
                {
                    "episode_id": episode.id,
                    "content": f"Bench observation {n}: who works where, and what we decided.",
                    "role": "user",
                    "observed_at": bench.observed_at[n],
                }
                for n in range(start, min(start + SETUP_BATCH, total))
            ],
        )
        bench.observations.extend(o.id for o in said)
    await bench.bare.set_up()
    for start in range(0, len(specs), SETUP_BATCH):
        chunk = specs[start : start + SETUP_BATCH]
        items = [spec.remember_input(bench.observations[start + n]) for n, spec in enumerate(chunk)]
        for claim in await memory.writes.remember(ACTOR, space, items):
            assert claim.subject_id is not None
            bench.entity_ids[claim.key] = claim.subject_id
    return bench


async def timed(calls: list[Callable[[], Awaitable[object]]], each: list[float] | None) -> float:
    """Seconds of the calls one after the other; each call's milliseconds into `each`."""
    started = time.perf_counter()
    for call in calls:
        began = time.perf_counter()
        await call()
        if each is not None:
            each.append(1000 * (time.perf_counter() - began))
    return time.perf_counter() - started


async def engram_calls(
    bench: Bench, inputs: list[list[dict[str, Any]]], each: list[float]
) -> tuple[float, list[list[str]]]:
    """Seconds of Engram's calls, one after the other, and the ids each answered with."""
    answered: list[list[str]] = []

    async def call(items: list[dict[str, Any]]) -> None:
        claims = await bench.memory.writes.remember(ACTOR, bench.space, items)
        answered.append([claim.id for claim in claims])

    seconds = await timed([partial(call, items) for items in inputs], each)
    return seconds, answered


async def measure(
    bench: Bench, results: Results | None, size: int, claims: int, raw_first: bool
) -> int:
    """Write `claims` claims `size` per call through Engram, then the same again raw; for
    batches, as many bare claims, nodes and relationships; record every rate (and every
    one-claim latency). `raw_first`: the bare writers go before Engram in this round."""
    batch = bench.batch(claims)
    chunks = [slice(i, i + size) for i in range(0, claims, size)]
    seconds: dict[str, float] = {}
    each: dict[str, list[float]] = {"engram": [], "raw": []}

    async def bare() -> None:
        if size == 1:
            return
        bare_claims = [batch.rows[chunk] for chunk in chunks]
        seconds["bare claim"] = await timed(
            [partial(bench.bare.claims, rows) for rows in bare_claims], None
        )
        counts = [len(rows) for rows in bare_claims]
        seconds["bare nodes"] = await timed([partial(bench.bare.nodes, n) for n in counts], None)
        pairs = [bench.bare.pairs(n) for n in counts]
        seconds["bare relationships"] = await timed(
            [partial(bench.bare.relationships, p) for p in pairs], None
        )

    if raw_first:
        await bare()
    seconds["engram"], answered = await engram_calls(
        bench, [batch.inputs[chunk] for chunk in chunks], each["engram"]
    )
    same_shape = bench.same_shape
    copies = [same_shape.copy(written) for written in await same_shape.written(answered)]
    seconds["raw"] = await timed([partial(same_shape.write, c) for c in copies], each["raw"])
    if not raw_first:
        await bare()
    if results is not None:
        for writer, spent in seconds.items():
            results.add(writer, size, claims / spent)
        if size == 1:
            for writer, ms in each.items():
                results.single_ms.setdefault(writer, []).append(ms)
    return (2 if size == 1 else 5) * claims


def report(console: Console, results: Results, sizes: list[int], repeats: int) -> None:
    table = Table(
        title=f"remember: claims/s, medians of {repeats} rounds measured side by side",
        caption="ratios: medians of per-round ratios · raw: the same shape (what Engram wrote, "
        "copied, one statement per call) · bare: a Claim with its evidence link; nodes/s; "
        "relationships/s",
    )
    headers = (
        "claims/call",
        "Engram/s",
        "min–max",
        "ms/call",
        "raw/s",
        "Engram/raw",
        "vs single",
        "bare claim/s",
        "bare nodes/s",
        "bare rels/s",
    )
    for header in headers:
        table.add_column(header, justify="right")
    for size in [1, *sizes]:
        rates = results.rates[("engram", size)]
        median = results.median("engram", size)
        bare = [
            f"{results.median(w, size):,.0f}" if (w, size) in results.rates else "–"
            for w in WRITERS[2:]
        ]
        table.add_row(
            f"{size:,}",
            f"{median:,.0f}",
            f"{min(rates):,.0f}–{max(rates):,.0f}",
            f"{1000 * size / median:,.1f}",
            f"{results.median('raw', size):,.0f}",
            f"{results.paired_ratio(('engram', size), ('raw', size)):.2f}x",
            f"{results.paired_ratio(('engram', size), ('engram', 1)):.1f}x",
            *bare,
        )
    console.print(table)
    engram, raw = results.single("engram"), results.single("raw")
    console.print(
        f"one claim per call, p50: Engram {percentile(engram, 50):.1f} ms, raw one-claim "
        f"transaction {percentile(raw, 50):.1f} ms; Engram/raw {results.single_p50_ratio():.2f}x"
    )


async def measure_writes(
    memory: Memory,
    console: Console,
    *,
    single: int,
    batched: int,
    sizes: list[int],
    repeats: int,
    entities: int,
    seed: int,
    keep: bool = False,
    show_progress: bool = True,
) -> Results:
    """All rounds in a new bench space (deleted after unless `keep`); what `bench.scale` runs."""
    plan = [(1, single), *((size, batched) for size in sizes)]
    warm_up = [(size, min(claims, max(size, WARM_UP_CLAIMS))) for size, claims in plan]
    engram_claims = sum(c for _, c in warm_up) + repeats * sum(c for _, c in plan)
    work = sum((2 if size == 1 else 5) * c for size, c in [*warm_up, *plan * repeats])
    space = fresh_space_name()
    results = Results()
    started = time.perf_counter()
    console.print(f"space {space!r}: setting up {entities:,} entities and observations …")
    try:
        bench = await set_up(
            memory, space, entities, math.ceil(engram_claims / CLAIMS_PER_OBSERVATION), seed
        )
        console.print(f"set up in {time.perf_counter() - started:.1f} s")
        with progress_bar(console, disable=not show_progress) as progress:
            task = progress.add_task("warm-up", total=work)
            for size, claims in warm_up:
                progress.advance(task, await measure(bench, None, size, claims, False))
            for round_ in range(repeats):
                # Alternate which writer goes first, so neither always meets a warmer cache.
                raw_first = round_ % 2 == 1
                for size, claims in plan:
                    progress.update(task, description=f"round {round_ + 1}/{repeats} · {size}/call")
                    progress.advance(task, await measure(bench, results, size, claims, raw_first))
    finally:
        if keep:
            console.print(f"kept space {space!r}")
        else:
            await delete_space(memory, space)
    return results


async def run_bench(console: Console, *, sizes: list[int], repeats: int, **options: Any) -> None:
    started = time.perf_counter()
    async with open_memory() as memory:
        results = await measure_writes(memory, console, sizes=sizes, repeats=repeats, **options)
    report(console, results, sizes, repeats)
    console.print(f"total {time.perf_counter() - started:.0f} s")


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def main(
    single: Annotated[
        int, typer.Option(min=1, help="Claims per round written one per remember call.")
    ] = 300,
    batched: Annotated[
        int, typer.Option(min=1, help="Claims per round for each batch size.")
    ] = 20_000,
    size: Annotated[list[int] | None, typer.Option(min=2, help="Batch size (repeatable).")] = None,
    repeats: Annotated[int, typer.Option(min=1, help="Rounds; 5 or more for medians.")] = 5,
    entities: Annotated[
        int, typer.Option(min=10, help="Entities the relations connect (set up first).")
    ] = 5_000,
    seed: Annotated[int, typer.Option(help="Seed of the claim mix.")] = 7,
    keep: Annotated[
        bool, typer.Option(help="Keep the bench space instead of deleting it.")
    ] = False,
) -> None:
    """Measure remember throughput: single vs batched vs raw Cypher, side by side."""
    asyncio.run(
        run_bench(
            bench_console(),
            single=single,
            batched=batched,
            sizes=sorted(size or [100, 500, 1000]),
            repeats=repeats,
            entities=entities,
            seed=seed,
            keep=keep,
        )
    )


if __name__ == "__main__":
    app()
