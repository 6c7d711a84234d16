"""Many clients at once: GraphQL `related` (2 hops) latency while `clients` HTTP clients ask
together, and the resident memory (RSS) of the `engram serve` process answering them; beside it,
its floor: the raw one-query `related` (`bench.raw_read_queries.RAW_RELATED`) asked by as many
driver clients at once, for the same starts, in the same run.

The server is a real `engram serve --dev` started for the measurement on the same Neo4j, as one
would run it on this machine: a worker process per core (`--workers`, `WORKERS`), its other
settings as configured (`ENGRAM_MAX_IN_FLIGHT` requests at once, shared by the workers; the rest
wait their turn). Its RSS is the API's alone (the command and its workers, summed) — not the
bench's, which holds the generator and the embedding model. RSS is sampled every 50 ms while the
clients run; the peak is reported beside the RSS before they start. Each client holds one
keep-alive connection of `bench.keepalive`: through one httpx client, the 50 cost the bench more
CPU per call than the server spent answering, on the cores the server and Neo4j share with it.

    >>> found = await measure_concurrent(memory, env, space="bench", clients=50, calls=20)
    >>> found.rss_peak_mb
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

from bench._support import OPERATOR
from bench.graphql_reads import GQL_RELATED
from bench.ingest import engram_serve
from bench.keepalive import KeepAlive
from bench.raw_read_queries import RAW_RELATED
from bench.read_latency import ENTITIES, RELATED_FIRST, RELATED_HOPS
from graph.memory import Memory, View


@dataclass(frozen=True)
class Concurrent:
    ms: list[float]
    """Every answered call's milliseconds."""
    refused: int
    """Calls answered 503 (more than the server's `ENGRAM_MAX_IN_FLIGHT` waited too long)."""
    clients: int
    rss_before_mb: float
    rss_peak_mb: float
    seconds: float
    raw_ms: list[float]
    """Every raw query's milliseconds, `clients` driver clients at once."""
    raw_seconds: float

    @property
    def per_s(self) -> float:
        """Answered calls per second over HTTP."""
        return len(self.ms) / self.seconds

    @property
    def raw_per_s(self) -> float:
        """Raw queries per second, as many driver clients at once."""
        return len(self.raw_ms) / self.raw_seconds


WORKERS = os.cpu_count() or 1
"""The server's worker processes: one per core of this machine."""


def rss_mb(pid: int) -> float:
    """Resident memory of a process and every process it started (Linux /proc), in MiB."""
    total = 0.0
    for member in _tree(pid):
        with contextlib.suppress(FileNotFoundError):  # a process may end while it is read
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
    if not total:
        raise RuntimeError(f"no VmRSS for process {pid}")
    return total


def _tree(pid: int) -> list[int]:
    """`pid` and its descendants."""
    found = [pid]
    with contextlib.suppress(FileNotFoundError):
        for thread in Path(f"/proc/{pid}/task").iterdir():
            for child in (thread / "children").read_text().split():
                found.extend(_tree(int(child)))
    return found


async def measure_concurrent(
    memory: Memory,
    env: dict[str, str],
    *,
    space: str,
    clients: int = 50,
    calls: int = 20,
    seed: int = 7,
) -> Concurrent:
    """`clients` concurrent clients, `calls` related queries each, against a fresh server; then
    the raw query for the same starts, by `clients` driver clients at once."""
    view = await memory.reads.view(OPERATOR, space)
    # Which entities there are, to draw the starts from (not timed).
    entities = [row["id"] for row in await memory.graph.read(ENTITIES, spaceId=view.space_id)]
    rng = random.Random(seed)
    starts = [rng.choice(entities) for _ in range(clients * calls)]
    ms: list[float] = []
    refused: list[int] = []
    served_env = {**env, "ENGRAM_WORKERS": str(WORKERS)}
    async with engram_serve(served_env) as served, contextlib.AsyncExitStack() as opened:
        url = served.client.base_url
        connections = [
            await opened.enter_async_context(await KeepAlive.open(url.host, url.port or 80))
            for _ in range(clients)
        ]

        async def ask(connection: KeepAlive, entity_id: str) -> None:
            variables = {
                "space": space,
                "id": entity_id,
                "asOf": view.as_of.isoformat(),
                "hops": RELATED_HOPS,
                "first": RELATED_FIRST,
            }
            began = time.perf_counter()
            status, body = await connection.post_json(
                "/graphql", {"query": GQL_RELATED, "variables": variables}
            )
            if status == 503:
                refused.append(1)
                return
            ms.append(1000 * (time.perf_counter() - began))
            if status != 200 or not body or body.get("errors"):
                raise RuntimeError(f"GraphQL answered {status}: {body}")

        async def client(number: int) -> None:
            for entity_id in starts[number::clients]:
                await ask(connections[number], entity_id)

        await ask(connections[0], starts[0])  # warm the server up
        ms.clear()
        before = rss_mb(served.pid)
        peak = [before]

        async def sample_rss() -> None:
            while True:
                peak.append(rss_mb(served.pid))
                await asyncio.sleep(0.05)

        sampler = asyncio.create_task(sample_rss())
        began = time.perf_counter()
        try:
            await asyncio.gather(*(client(n) for n in range(clients)))
            seconds = time.perf_counter() - began
        finally:
            sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sampler
        peak.append(rss_mb(served.pid))
    raw_ms, raw_seconds = await _raw_crowd(memory, view, starts, clients)
    return Concurrent(ms, len(refused), clients, before, max(peak), seconds, raw_ms, raw_seconds)


async def _raw_crowd(
    memory: Memory, view: View, starts: list[str], clients: int
) -> tuple[list[float], float]:
    """The floor: `RAW_RELATED` for `starts` by `clients` driver clients at once (one driver,
    its connection pool, as many sessions as clients); each query's ms and the seconds in all."""
    ms: list[float] = []

    async def ask(entity_id: str) -> None:
        began = time.perf_counter()
        await memory.graph.read(
            RAW_RELATED,
            **view.params(),
            id=entity_id,
            first=RELATED_FIRST,
            limit=4 * RELATED_FIRST,
        )
        ms.append(1000 * (time.perf_counter() - began))

    async def client(number: int) -> None:
        for entity_id in starts[number::clients]:
            await ask(entity_id)

    await ask(starts[0])  # as the server was warmed up
    ms.clear()
    began = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(clients)))
    return ms, time.perf_counter() - began


def serve_env(uri: str, user: str, password: str | None, database: str) -> dict[str, str]:
    """What an `engram serve` needs to find the bench's Neo4j."""
    env = {"NEO4J_URI": uri, "NEO4J_USER": user, "NEO4J_DATABASE": database}
    if password is not None:
        env["NEO4J_PASSWORD"] = password
    return env
