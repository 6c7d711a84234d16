"""How fast `remember` writes on this machine: one claim per transaction, batches of claims per
transaction, and a raw-Cypher baseline writing equivalent nodes — side by side, in one run.

Why side by side: throughput on a shared machine drifts from run to run, so a number measured
yesterday says little. Every variant is measured in each round, the rounds are repeated, and the
table gives medians of rates and medians of the ratios paired within a round (batched/single,
Engram/raw). Engram serialises the writers of a space on its clock, so claims per transaction is the
main lever; the raw baseline (one `UNWIND … CREATE` of Claim nodes with their evidence
relationship, no checks, no clock, no audit) shows what Engram's guarantees cost.

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
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, LiteralString

import typer
from rich.console import Console
from rich.table import Table

from bench._support import OPERATOR, delete_space, fresh_space_name, open_memory, progress_bar
from bench.mix import END, START, ClaimMix, ClaimSpec, entity_counts
from graph.domain.memory_types import fact_key
from graph.domain.model import canonical_json
from graph.memory import Memory

ACTOR = OPERATOR
CLAIMS_PER_OBSERVATION = 5
SETUP_BATCH = 1000
WARM_UP_CLAIMS = 50

# The baseline, on the memory's own connection (the raw Cypher a bench may run): the same Claim
# properties and one evidence relationship per claim, nothing else.
RAW_CREATE: LiteralString = """
UNWIND $rows AS row
MATCH (o:Observation {id: row.observationId})
CREATE (c:Claim)
SET c = row.props, c.recordedAt = datetime()
CREATE (c)-[:SUPPORTED_BY {authority: 'user_stated', spaceId: row.props.spaceId,
                           privacy: row.props.privacy, recordedAt: datetime()}]->(o)
"""


@dataclass
class Batch:
    """One measurement's claims, as Engram inputs and as the equivalent raw rows."""

    inputs: list[dict[str, Any]]
    rows: list[dict[str, Any]]


@dataclass
class Results:
    """Claims per second of every measurement, by (writer, claims per call), in round order."""

    rates: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    single_ms: list[float] = field(default_factory=list)
    """Milliseconds of every measured one-claim `remember` call."""

    def add(self, writer: str, size: int, rate: float) -> None:
        self.rates.setdefault((writer, size), []).append(rate)

    def median(self, writer: str, size: int) -> float:
        return statistics.median(self.rates[(writer, size)])

    def paired_ratio(self, top: tuple[str, int], bottom: tuple[str, int]) -> float:
        """Median over rounds of top/bottom measured in the same round."""
        return statistics.median(
            a / b for a, b in zip(self.rates[top], self.rates[bottom], strict=True)
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
        self.serial = 0

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
            rows.append(self.raw_row(spec, observation_id, at))
        return Batch(inputs, rows)

    def raw_row(self, spec: ClaimSpec, observation_id: str, at: datetime) -> dict[str, Any]:
        """The properties Engram would give the claim, under a key of its own (`#raw`)."""
        fields = spec.fields
        subject, obj = fields.get("subject"), fields.get("object")
        if subject is not None:
            key = fact_key(subject["key"], fields["predicate"], obj["key"] if obj else None)
        else:
            key = fields["key"]
        self.serial += 1
        memory_type = key.split(":", 1)[0]
        return {
            "observationId": observation_id,
            "props": {
                "id": str(uuid.uuid4()),
                "spaceId": self.space_id,
                "key": f"{key}#raw{self.serial}",
                "revision": 1,
                "type": memory_type,
                "subjectId": self.entity_ids.get(subject["key"]) if subject else None,
                "predicate": fields.get("predicate"),
                "objectId": self.entity_ids.get(obj["key"]) if obj else None,
                "valueJson": canonical_json(fields.get("value")),
                "text": f"[{memory_type}:{key}]\n{spec.sentence}",
                "status": "active",
                "confidence": fields.get("confidence", 0.9),
                "importance": 0.5,
                "privacy": 1,
                "pinned": False,
                "actor": ACTOR.name,
                "validFrom": fields.get("valid_from") or at,
                "validTo": fields.get("valid_to"),
            },
        }


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


async def measure(
    bench: Bench, results: Results | None, size: int, claims: int, raw_first: bool
) -> int:
    """Write `claims` claims `size` per call, through Engram and raw; record both rates."""
    batch = bench.batch(claims)
    memory, space = bench.memory, bench.space

    def engram_call(items: list[dict[str, Any]]) -> Callable[[], Awaitable[object]]:
        return lambda: memory.writes.remember(ACTOR, space, items)

    def raw_call(rows: list[dict[str, Any]]) -> Callable[[], Awaitable[object]]:
        return lambda: memory.graph.write(RAW_CREATE, rows=rows)

    chunks = range(0, claims, size)
    engram = [engram_call(batch.inputs[i : i + size]) for i in chunks]
    raw = [raw_call(batch.rows[i : i + size]) for i in chunks]
    order = [("raw", raw), ("engram", engram)] if raw_first else [("engram", engram), ("raw", raw)]
    for writer, calls in order:
        each = (
            results.single_ms if results is not None and size == 1 and writer == "engram" else None
        )
        seconds = await timed(calls, each)
        if results is not None:
            results.add(writer, size, claims / seconds)
    return 2 * claims


def report(console: Console, results: Results, sizes: list[int], repeats: int) -> None:
    table = Table(
        title=f"remember: claims/s, medians of {repeats} rounds measured side by side",
        caption="ratios: medians of per-round ratios · raw: UNWIND CREATE Claim + SUPPORTED_BY",
    )
    headers = ("claims/call", "Engram/s", "min–max", "ms/call", "raw/s", "Engram/raw", "vs single")
    for header in headers:
        table.add_column(header, justify="right")
    for size in [1, *sizes]:
        rates = results.rates[("engram", size)]
        median = results.median("engram", size)
        table.add_row(
            f"{size:,}",
            f"{median:,.0f}",
            f"{min(rates):,.0f}–{max(rates):,.0f}",
            f"{1000 * size / median:,.1f}",
            f"{results.median('raw', size):,.0f}",
            f"{results.paired_ratio(('engram', size), ('raw', size)):.2f}x",
            f"{results.paired_ratio(('engram', size), ('engram', 1)):.1f}x",
        )
    console.print(table)


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
            task = progress.add_task("warm-up", total=2 * engram_claims)
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
            Console(),
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
