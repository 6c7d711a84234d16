"""How fast meaning vectors are stored on this machine: the embedding outbox drained end to end
(read the waiting claims, run the model, write the vectors to Neo4j) with the embedder settings
`engram serve` uses (two threads, `bench._support.open_memory`), beside the model alone on the
same texts (`Embedder.embed`, in the outbox's passes) — side by side, in one run.

In a new bench space, each round writes `--claims` claims of the bench mix through
`Memory.remember` (untimed), then times draining the outbox, then times the model alone on the
texts of those claims. Before the rounds, the outbox is drained of anything waiting (so only the
bench's claims are counted) and one round's worth of claims is written and drained untimed: the
model is loaded, and the space has grown as a big space has — past the size at which it gets a
vector index of its own, so every round stores into an indexed space. Medians of the rounds.

    python -m bench.vector_rate [--claims 4000] [--rounds 5]

It writes only into a new space named `bench-<random>` and deletes that space at the end.
"""

from __future__ import annotations

import asyncio
import math
import os
import statistics
import time
from dataclasses import dataclass, field
from typing import Annotated, LiteralString

import typer
from rich.console import Console

from bench._support import bench_console, delete_space, fresh_space_name, open_memory
from bench.write_throughput import ACTOR, CLAIMS_PER_OBSERVATION, Bench, set_up
from graph.memory import Memory

WRITE_BATCH = 500

TEXTS: LiteralString = """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
RETURN c.text AS text
"""


@dataclass
class Vectors:
    """Per round: vectors stored per second end to end, texts per second through the model
    alone, and how many vectors the round stored."""

    per_s: list[float] = field(default_factory=list)
    model_per_s: list[float] = field(default_factory=list)
    stored: list[int] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.per_s)

    @property
    def model_median(self) -> float:
        return statistics.median(self.model_per_s)

    @property
    def vs_model(self) -> float:
        """Median over rounds of the end-to-end rate over the model's, in the same round."""
        return statistics.median(e / m for e, m in zip(self.per_s, self.model_per_s, strict=True))


async def write_claims(bench: Bench, claims: int) -> list[str]:
    """`claims` new claims of the mix through `remember` (untimed); their ids."""
    batch = bench.batch(claims)
    ids: list[str] = []
    for start in range(0, claims, WRITE_BATCH):
        items = batch.inputs[start : start + WRITE_BATCH]
        ids.extend(c.id for c in await bench.memory.writes.remember(ACTOR, bench.space, items))
    return ids


def model_seconds(memory: Memory, texts: list[str]) -> float:
    """Seconds the model takes for `texts`, in passes as the outbox reads them."""
    step = memory.embedder.outbox_batch
    began = time.perf_counter()
    for start in range(0, len(texts), step):
        memory.embedder.embed(texts[start : start + step])
    return time.perf_counter() - began


async def measure_vectors(
    memory: Memory,
    console: Console,
    *,
    claims: int,
    rounds: int,
    entities: int = 200,
    seed: int = 7,
) -> Vectors:
    """Every round in one new bench space (deleted after); what `bench.scale` runs."""
    space = fresh_space_name()
    found = Vectors()
    try:
        waiting = await memory.admin.count_unembedded()
        if waiting:
            console.print(f"draining the {waiting:,} claims already waiting (untimed) …")
        await memory.admin.embed_pending()
        observations = math.ceil(claims * (rounds + 1) / CLAIMS_PER_OBSERVATION)
        bench = await set_up(memory, space, entities, observations, seed)
        await write_claims(bench, claims)
        await memory.admin.embed_pending()  # the model loaded, the space grown (untimed)
        for number in range(rounds):
            load = os.getloadavg()[0]
            ids = await write_claims(bench, claims)
            began = time.perf_counter()
            stored = await memory.admin.embed_pending()
            seconds = time.perf_counter() - began
            texts = [row["text"] or "" for row in await memory.graph.read(TEXTS, ids=ids)]
            model = model_seconds(memory, texts)
            found.per_s.append(stored / seconds)
            found.model_per_s.append(len(texts) / model)
            found.stored.append(stored)
            console.print(
                f"round {number + 1}: {stored:,} vectors in {seconds:.1f} s, "
                f"{found.per_s[-1]:,.0f}/s; the model alone {found.model_per_s[-1]:,.0f}/s "
                f"(load average {load:.2f} → {os.getloadavg()[0]:.2f})"
            )
    finally:
        await delete_space(memory, space)
    return found


async def run_bench(console: Console, *, claims: int, rounds: int, entities: int) -> None:
    async with open_memory() as memory:
        found = await measure_vectors(
            memory, console, claims=claims, rounds=rounds, entities=entities
        )
    console.print(
        f"meaning vectors, medians of {rounds} rounds of {claims:,} claims: "
        f"{found.median:,.0f}/s stored end to end (goal ≥ 500/s), the model alone "
        f"{found.model_median:,.0f}/s on the same texts; end to end / model "
        f"{found.vs_model:.2f}x"
    )


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def main(
    claims: Annotated[
        int, typer.Option(min=1, help="Claims written, then embedded, per round.")
    ] = 4000,
    rounds: Annotated[int, typer.Option(min=1, help="Rounds; 5 or more for medians.")] = 5,
    entities: Annotated[
        int, typer.Option(min=10, help="Entities the claims' relations connect (set up first).")
    ] = 200,
) -> None:
    """Measure meaning vectors stored per second beside the model alone."""
    asyncio.run(run_bench(bench_console(), claims=claims, rounds=rounds, entities=entities))


if __name__ == "__main__":
    app()
