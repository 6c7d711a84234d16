"""How fast a conversation streams into Engram over GraphQL HTTP, beside the engine in-process:
facts by names, each with its message as inline evidence text, side by side in one run.

Six variants are measured in every round, their order alternating between rounds:

- `http batched`: `rememberMany` of `--size` facts per request to a real `engram serve` (uvicorn,
  dev mode) started for the run, facts per second;
- `engine batched`: the same facts through `Memory.remember` in this process, facts per second;
- `http single`: one `remember` per request, each with its message as evidence text, latency;
- `engine single`: one `Memory.remember` per call, latency;
- `raw facts` and `raw evidence`: the floor (`bench.raw_fact_writes`) — Neo4j storing what Engram
  stores per fact, by one hand-made statement per batch of `--size` (new facts; evidence onto
  facts written before), facts per second, and `raw single`, one new fact per transaction.

The table gives medians over the rounds of rates and p50 latencies, and the medians of the
ratios paired within a round (HTTP beside engine, each beside the floor), so a shared machine's
drift cancels out. Goals (issue 29, replacing the absolute ones of before): batched by names over
HTTP ≥ 0.8x the raw fact floor (`names_http_vs_raw`), a single remember over HTTP ≤ 1.5x the
raw one-fact transaction, p50 (`single_http_vs_raw`). `measure_ingest` is what `bench.scale`
runs.

    python -m bench.ingest [--rounds 5] [--batched 2000] [--size 500] [--single 200]

Each variant writes its own new `bench-<random>` space (so each grows alike), deleted at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

import httpx
import typer
from rich.console import Console
from rich.table import Table

from bench._support import (
    bench_console,
    delete_space,
    fresh_space_name,
    open_memory,
    percentile,
)
from bench.raw_fact_writes import RAW_EVIDENCE, RAW_FACTS, Floor
from graph.domain.actor import Actor
from graph.memory import Memory

ACTOR = Actor.operator("bench:ingest")
PEOPLE = 400
ORGS = 40
PREDICATES = ("WORKS_AT", "KNOWS", "LIVES_IN")
REMEMBER_MANY = """mutation($s: String!, $inputs: [RememberInput!]!) { rememberMany(space: $s,
    inputs: $inputs) { claims { revision } errors { code field message } } }"""
REMEMBER = """mutation($s: String!, $input: RememberInput!) { remember(space: $s, input: $input)
    { claim { revision } errors { code field message } } }"""


class Conversation:
    """An endless conversation: message n states one fact by names (an employer that changes
    now and then, an acquaintance, a city) and is that fact's evidence text."""

    def __init__(self) -> None:
        self.n = 0

    def next(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The next message's fact, as GraphQL input and as the engine's input."""
        n, self.n = self.n, self.n + 1
        who = f"Person {n % PEOPLE}"
        predicate = PREDICATES[n // PEOPLE % len(PREDICATES)]
        if predicate == "KNOWS":
            name, kind = f"Person {(n * 7 + 1) % PEOPLE}", "person"
        elif predicate == "WORKS_AT":
            name, kind = f"Org {(n // 2000 + n) % ORGS}", "org"
        else:
            name, kind = f"City {n % 17}", "other"
        text = f"#{n} {who}: {predicate.lower().replace('_', ' ')} {name}"
        engine = {
            "type": "fact",
            "subject": {"name": who, "kind": "person"},
            "predicate": predicate,
            "object": {"name": name, "kind": kind},
            "evidence": [{"text": text}],
        }
        graphql = {
            **engine,
            "type": "FACT",
            "subject": {"name": who, "kind": "PERSON"},
            "object": {"name": name, "kind": kind.upper()},
        }
        return graphql, engine


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclasses.dataclass(frozen=True)
class Served:
    """A running `engram serve`: a client to it and its process id."""

    client: httpx.AsyncClient
    pid: int


@contextlib.asynccontextmanager
async def engram_serve(env: dict[str, str] | None = None) -> AsyncIterator[Served]:
    """`engram serve --dev` (uvicorn) on a free port, on the configured Neo4j (or the one `env`
    names); a client to it."""
    port = free_port()
    env = {**os.environ, "ENGRAM_BROWSER": "false", "ENGRAM_EMBED_INTERVAL": "0", **(env or {})}
    command = [sys.executable, "-c", "from api.cli.main import main; main()"]
    process = subprocess.Popen(
        [*command, "serve", "--port", str(port), "--dev"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base, timeout=300) as client:
            deadline = time.monotonic() + 120
            while True:
                if process.poll() is not None:
                    raise RuntimeError("engram serve exited before it was ready")
                with contextlib.suppress(httpx.TransportError):
                    if (await client.get("/readyz")).status_code == 200:
                        break
                if time.monotonic() > deadline:
                    raise RuntimeError("engram serve was not ready in 120 s")
                await asyncio.sleep(0.2)
            yield Served(client, process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)


async def post(client: httpx.AsyncClient, query: str, **variables: Any) -> None:
    response = await client.post("/graphql", json={"query": query, "variables": variables})
    body = response.json()
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict) or any(p["errors"] for p in data.values()):
        raise RuntimeError(f"refused ({response.status_code}): {str(body)[:600]}")


class Round:
    """The four variants, each in its own space, sharing one conversation generator."""

    def __init__(self, client: httpx.AsyncClient, memory: Memory, spaces: dict[str, str]) -> None:
        self.client = client
        self.memory = memory
        self.spaces = spaces
        self.talk = Conversation()

    async def http_batched(self, facts: int, size: int) -> float:
        batches = [[self.talk.next()[0] for _ in range(size)] for _ in range(facts // size)]
        started = time.perf_counter()
        for inputs in batches:
            await post(self.client, REMEMBER_MANY, s=self.spaces["http batched"], inputs=inputs)
        return facts // size * size / (time.perf_counter() - started)

    async def engine_batched(self, facts: int, size: int) -> float:
        batches = [[self.talk.next()[1] for _ in range(size)] for _ in range(facts // size)]
        started = time.perf_counter()
        for items in batches:
            await self.memory.writes.remember(ACTOR, self.spaces["engine batched"], items)
        return facts // size * size / (time.perf_counter() - started)

    async def http_single(self, calls: int) -> list[float]:
        return await latencies_ms(
            [self.talk.next()[0] for _ in range(calls)],
            lambda item: post(self.client, REMEMBER, s=self.spaces["http single"], input=item),
        )

    async def engine_single(self, calls: int) -> list[float]:
        space = self.spaces["engine single"]
        return await latencies_ms(
            [self.talk.next()[1] for _ in range(calls)],
            lambda item: self.memory.writes.remember(ACTOR, space, [item]),
        )


async def latencies_ms(
    items: list[dict[str, Any]], call: Callable[[Any], Awaitable[object]]
) -> list[float]:
    latencies = []
    for item in items:
        started = time.perf_counter()
        await call(item)
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


VARIANTS = (
    "http batched",
    "engine batched",
    "raw facts",
    "raw evidence",
    "http single",
    "engine single",
    "raw single",
)
SINGLE = frozenset({"http single", "engine single", "raw single"})
"""Measured by latency (every call's ms); the others by facts per second."""
FLOOR_ONLY = frozenset({"raw evidence", "raw single"})
"""The floor writes into one space of its own (`raw facts`)."""


@dataclasses.dataclass
class Ingest:
    """Facts/s of the batched variants and every single call's ms, by variant, per round."""

    rates: dict[str, list[float]] = dataclasses.field(default_factory=dict)
    ms: dict[str, list[list[float]]] = dataclasses.field(default_factory=dict)

    def per_round(self, name: str) -> list[float]:
        """Facts/s of each round, or for a single variant the p50 (ms) of each round."""
        if name in SINGLE:
            return [percentile(each, 50) for each in self.ms[name]]
        return self.rates[name]

    def median(self, name: str) -> float:
        return statistics.median(self.per_round(name))

    def paired(self, top: str, bottom: str) -> float:
        """Median over rounds of top/bottom measured in the same round."""
        return paired(self.per_round(top), self.per_round(bottom))


async def measure_ingest(
    memory: Memory,
    console: Console,
    *,
    rounds: int,
    batched: int,
    size: int,
    single: int,
    env: dict[str, str] | None = None,
) -> Ingest:
    """Every variant `rounds` times, in an order alternating per round, against an `engram
    serve` started on the Neo4j `env` names (the configured one without it); each variant in a
    new bench space of its own, deleted after."""
    spaces = {name: fresh_space_name() for name in VARIANTS if name not in FLOOR_ONLY}
    found = Ingest()
    try:
        async with engram_serve(env) as served:
            for space in spaces.values():
                await memory.writes.create_space(ACTOR, space)
            bench = Round(served.client, memory, spaces)
            await bench.http_batched(size, size)  # warm up both paths and the server's caches
            await bench.engine_batched(size, size)
            for _ in range(2):  # rows for the floor to copy, in a space of its own
                facts = [bench.talk.next()[1] for _ in range(size)]
                await memory.writes.remember(ACTOR, spaces["raw facts"], facts)
            floor = await Floor.of(memory, spaces["raw facts"])
            batches: dict[str, Callable[[], Awaitable[float]]] = {
                "http batched": lambda: bench.http_batched(batched, size),
                "engine batched": lambda: bench.engine_batched(batched, size),
                "raw facts": lambda: floor.batched(RAW_FACTS, batched, size),
                "raw evidence": lambda: floor.batched(RAW_EVIDENCE, batched, size),
            }
            singles: dict[str, Callable[[], Awaitable[list[float]]]] = {
                "http single": lambda: bench.http_single(single),
                "engine single": lambda: bench.engine_single(single),
                "raw single": lambda: floor.single_ms(single),
            }
            for number in range(rounds):
                load = os.getloadavg()[0]
                order = list(VARIANTS) if number % 2 == 0 else list(reversed(VARIANTS))
                for name in order:
                    if name in SINGLE:
                        found.ms.setdefault(name, []).append(await singles[name]())
                    else:
                        found.rates.setdefault(name, []).append(await batches[name]())
                console.print(
                    f"round {number + 1}: "
                    + ", ".join(f"{n} {found.per_round(n)[-1]:,.1f}" for n in VARIANTS)
                    + f" (load average {load:.2f} → {os.getloadavg()[0]:.2f})"
                )
    finally:
        for space in spaces.values():
            await delete_space(memory, space)
    return found


async def run(rounds: int, batched: int, size: int, single: int) -> None:
    console = bench_console()
    async with open_memory() as memory:
        found = await measure_ingest(
            memory, console, rounds=rounds, batched=batched, size=size, single=single
        )
    table = Table(
        title=f"Conversation ingest, medians of {rounds} rounds (load average now "
        f"{os.getloadavg()[0]:.2f})"
    )
    columns = ("", "HTTP (GraphQL)", "engine (in-process)", "raw floor", "HTTP / engine")
    for column in (*columns, "HTTP / floor", "goal"):
        table.add_column(column, justify="right" if column else "left")
    median = found.median
    table.add_row(
        f"facts/s, rememberMany of {size}",
        f"{median('http batched'):,.0f}",
        f"{median('engine batched'):,.0f}",
        f"{median('raw facts'):,.0f} new · {median('raw evidence'):,.0f} evidence only",
        f"{found.paired('http batched', 'engine batched'):.2f}",
        f"{found.paired('http batched', 'raw facts'):.2f}",
        "≥ 0.8x the floor",
    )
    table.add_row(
        "p50 ms, single remember",
        f"{median('http single'):.1f}",
        f"{median('engine single'):.1f}",
        f"{median('raw single'):.1f}",
        f"{found.paired('http single', 'engine single'):.2f}",
        f"{found.paired('http single', 'raw single'):.2f}",
        "≤ 1.5x the floor",
    )
    console.print(table)


def paired(top: list[float], bottom: list[float]) -> float:
    """Median over rounds of top/bottom measured in the same round."""
    return statistics.median(a / b for a, b in zip(top, bottom, strict=True))


def main(
    rounds: Annotated[int, typer.Option(min=1, help="Rounds; medians are over these.")] = 5,
    batched: Annotated[int, typer.Option(min=1, help="Facts per round, batched.")] = 2000,
    size: Annotated[int, typer.Option(min=1, max=1000, help="Facts per rememberMany.")] = 500,
    single: Annotated[int, typer.Option(min=1, help="Single remembers per round.")] = 200,
) -> None:
    """Conversation ingest over GraphQL HTTP beside the engine in-process."""
    asyncio.run(run(rounds, batched, size, single))


if __name__ == "__main__":
    typer.run(main)
