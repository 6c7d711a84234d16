"""Engram at 10k, 100k and 1M claims: every read and write bench at each size, one table and one
plot of p50/p95 against size per operation.

    python -m bench.scale [--sizes 10k,100k,1M] [--rounds 5] [--out bench/results] [--build-only]

Each size is a space `bench-scale-<size>` generated once through Engram's commands
(`bench.generate`) and kept between runs in a bench data directory (`--data-dir`): without
`NEO4J_URI` each size gets a local Neo4j of its own under it (`<data-dir>/<size>`, with
`--heap` and `--pagecache`), started for that size and stopped after; with `NEO4J_URI` all sizes
are spaces of that one database. A build killed half-way goes on where it stopped (a checkpoint
file per size), with a progress bar; then the embedding outbox is drained, as a server would.

At each size, the existing benches' own measuring code runs `--rounds` times:
`bench.read_latency` (related 2 hops and explainRelation ≤ 3 hops: domain, GraphQL in-process,
raw one-query floor), `bench.search_latency` (search top 12 beside the raw index queries),
`bench.write_throughput` (remember one claim per call, batched beside a raw UNWIND … CREATE),
`bench.two_spaces` (writers of one space beside two), and `bench.concurrent_reads` (50 clients
at once against a real `engram serve`, its RSS, beside 50 driver clients running the raw
query); once per size, `bench.small_space_recall` (a small space kept beside the big one: its
meaning recall and self-recall). Latencies are medians over
rounds of each round's p50/p95; ratios are paired within a round. Results go to
`<out>/scale.json` (sizes measured by separate runs are merged) and are rendered as
`<out>/scale.md` and `<out>/scale.png` (`bench.scale_report`), with the machine, its load, the
Neo4j settings and the commit.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import platformdirs
import typer
from rich.console import Console

from bench import scale_report
from bench._support import (
    Loads,
    bench_console,
    drain_embeddings,
    open_memory,
    percentile,
    store_gib,
)
from bench.concurrent_reads import measure_concurrent, serve_env
from bench.generate import generate
from bench.graphql_reads import graphql_client
from bench.read_latency import measure_reads, parse_as_of
from bench.search_latency import measure_search
from bench.small_space_recall import measure_small_space_recall
from bench.two_spaces import measure_two_spaces
from bench.write_throughput import measure_writes
from graph.memory import Memory
from graph.runtime import LocalNeo4j, Neo4jTarget, Settings, get_settings, resolve_target

SPACE_PREFIX = "bench-scale-"
DATA_DIR = Path(platformdirs.user_data_dir("engram-bench-scale"))
"""Where the sizes are kept unless `--data-dir` says otherwise."""
SUFFIXES = {"k": 1_000, "m": 1_000_000}


@dataclass(frozen=True)
class Plan:
    """How much each bench measures per round at each size."""

    rounds: int = 5
    read_samples: int = 40
    """Start entities and connected pairs per asOf point."""
    as_of: tuple[str, ...] = ("2023-07-01", "2026-07-01")
    search_samples: int = 30
    """Claims whose text (and two of its words) are searched, per round."""
    single: int = 60
    batched: int = 2000
    batch_size: int = 500
    write_entities: int = 1000
    two_space_claims: int = 160
    two_space_writers: int = 8
    clients: int = 50
    mutation_calls: int = 10
    warm_up: int = 10
    seed: int = 7
    generate_batch: int = 500
    beside_claims: int = 1000
    """The small space kept beside each size's big one (`bench.small_space_recall`)."""
    beside_samples: int = 30


def parse_size(text: str) -> tuple[str, int]:
    """`10k` → ('10k', 10000); `1M` → ('1M', 1000000); `200` → ('200', 200)."""
    label = text.strip()
    number, suffix = label[:-1], label[-1].lower()
    claims = int(float(number) * SUFFIXES[suffix]) if suffix in SUFFIXES else int(label)
    if claims < 50:
        raise typer.BadParameter(f"a size has at least 50 claims, not {label!r}")
    return label, claims


def _p(values: list[float], q: float) -> float:
    return percentile(values, q) if values else float("nan")


def _latency(rounds: list[list[float]]) -> dict[str, float]:
    """Medians over rounds of each round's p50 and p95 (ms)."""
    return {
        "p50": statistics.median(_p(ms, 50) for ms in rounds),
        "p95": statistics.median(_p(ms, 95) for ms in rounds),
        "n": sum(len(ms) for ms in rounds),
    }


async def build(
    memory: Memory,
    console: Console,
    label: str,
    claims: int,
    data_dir: Path,
    plan: Plan,
    *,
    show_progress: bool = True,
) -> dict[str, Any]:
    """The size's space, generated (or finished) unless a finished one is there; the build's
    figures, kept beside the checkpoint."""
    space = SPACE_PREFIX + label.lower()
    checkpoint = data_dir / f"{label.lower()}.json"
    figures = data_dir / f"{label.lower()}-build.json"
    exists = any(s.name == space for s in await memory.admin.all_spaces())
    if not exists and checkpoint.exists():
        console.print(f"{space!r} is gone from this database: generating it anew")
        checkpoint.unlink()
        figures.unlink(missing_ok=True)
    if figures.exists():
        console.print(f"reusing {space!r} (built earlier)")
        await drain_embeddings(console, memory, show_progress=show_progress)
        return dict(json.loads(figures.read_text()))
    console.print(f"building {space!r}: {claims:,} claims …")
    generated = await generate(
        memory,
        space,
        claims=claims,
        seed=plan.seed,
        batch=plan.generate_batch,
        console=console,
        show_progress=show_progress,
        checkpoint=checkpoint,
    )
    embed_seconds, embedded = await drain_embeddings(console, memory, show_progress=show_progress)
    record = {
        "space": space,
        "claims": claims,
        "generate_seconds": round(generated.total_seconds, 1),
        "resumed": generated.resumed_at > 0,
        "embed_seconds": round(embed_seconds, 1),
        "embedded": embedded,
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "load_after": round(os.getloadavg()[0], 2),
    }
    figures.write_text(json.dumps(record, indent=1))
    return record


async def measure_size(
    memory: Memory,
    target: Neo4jTarget,
    settings: Settings,
    console: Console,
    space: str,
    plan: Plan,
    *,
    show_progress: bool,
) -> dict[str, Any]:
    """Every bench at one size; latencies (ms) by operation, and the other figures."""
    loads = Loads()
    ops: dict[str, dict[str, float]] = {}
    figures: dict[str, float] = {}
    loads.start("reads")
    async with graphql_client(settings, target) as gql:
        reads = await measure_reads(
            memory,
            gql,
            console,
            space=space,
            as_of=[parse_as_of(at) for at in plan.as_of],
            samples=plan.read_samples,
            warm_up=plan.warm_up,
            seed=plan.seed,
            rounds=plan.rounds,
            show_progress=show_progress,
        )
    loads.end("reads")
    for query in ("related", "explain"):
        for variant, suffix in (("engram", ""), ("graphql", "_graphql"), ("raw", "_raw")):
            ops[query + suffix] = _latency([t.ms.get((query, "all", variant), []) for t in reads])
        figures[f"{query}_graphql_vs_raw_p50"] = statistics.median(
            _p(t.ms.get((query, "all", "graphql"), []), 50)
            / _p(t.ms.get((query, "all", "raw"), []), 50)
            for t in reads
        )
    loads.start("search")
    searches = [
        await measure_search(
            memory,
            console,
            space=space,
            samples=plan.search_samples,
            seed=plan.seed + r,
            show_progress=show_progress,
        )
        for r in range(plan.rounds)
    ]
    loads.end("search")
    ops["search"] = _latency([s.times["engram"] for s in searches])
    ops["search_raw"] = _latency([s.times["raw"] for s in searches])
    figures["search_self_recall"] = sum(s.found for s in searches) / max(
        1, sum(s.texts for s in searches)
    )
    beside = await measure_small_space_recall(
        memory,
        console,
        samples=plan.beside_samples,
        seed=plan.seed,
        claims=plan.beside_claims,
        show_progress=show_progress,
    )
    figures |= {
        "beside_meaning_recall": beside.meaning_recall,
        "beside_self_recall": beside.self_recall,
        "beside_vectors": beside.vectors,
        "beside_indexed": beside.indexed,
        "beside_samples": beside.samples,
    }
    loads.start("writes")
    writes = await measure_writes(
        memory,
        console,
        single=plan.single,
        batched=plan.batched,
        sizes=[plan.batch_size],
        repeats=plan.rounds,
        entities=plan.write_entities,
        seed=plan.seed,
        show_progress=show_progress,
    )
    loads.end("writes")
    ops["remember_single"] = {
        "p50": _p(writes.single_ms, 50),
        "p95": _p(writes.single_ms, 95),
        "n": len(writes.single_ms),
    }
    size = plan.batch_size
    figures["batched_per_s"] = writes.median("engram", size)
    figures["raw_per_s"] = writes.median("raw", size)
    figures["batched_vs_raw"] = writes.paired_ratio(("engram", size), ("raw", size))
    loads.start("two spaces")
    one, two = await measure_two_spaces(
        memory,
        console,
        claims=plan.two_space_claims,
        writers=plan.two_space_writers,
        rounds=plan.rounds,
    )
    loads.end("two spaces")
    figures["one_space_per_s"] = statistics.median(one)
    figures["two_spaces_per_s"] = statistics.median(two)
    figures["two_vs_one"] = statistics.median(t / o for t, o in zip(two, one, strict=True))
    loads.start("50 clients")
    crowd = await measure_concurrent(
        memory,
        serve_env(target.uri, target.user, target.password, target.database),
        space=space,
        clients=plan.clients,
        calls=plan.mutation_calls,
        seed=plan.seed,
    )
    loads.end("50 clients")
    ops["related_clients"] = {"p50": _p(crowd.ms, 50), "p95": _p(crowd.ms, 95), "n": len(crowd.ms)}
    ops["related_clients_raw"] = {
        "p50": _p(crowd.raw_ms, 50),
        "p95": _p(crowd.raw_ms, 95),
        "n": len(crowd.raw_ms),
    }
    figures |= {
        "clients_per_s": crowd.per_s,
        "clients_raw_per_s": crowd.raw_per_s,
        "clients_vs_raw": crowd.per_s / crowd.raw_per_s,
        "clients": crowd.clients,
        "refused": crowd.refused,
        "rss_before_mb": crowd.rss_before_mb,
        "rss_peak_mb": crowd.rss_peak_mb,
    }
    return {"ops": ops, "figures": figures, "load": loads.seen}


def size_settings(
    base: Settings, data_dir: Path, label: str, heap: str, pagecache: str
) -> Settings:
    """The settings of one size: its own local Neo4j under the bench data directory, unless a
    Neo4j is configured (`NEO4J_URI`)."""
    if base.neo4j_uri is not None:
        return base
    home = data_dir / label.lower()
    return base.model_copy(
        update={"data_dir": home, "neo4j_heap": heap, "neo4j_pagecache": pagecache}
    )


async def run_scale(
    sizes: list[str],
    *,
    out: Path,
    data_dir: Path,
    plan: Plan,
    settings: Settings | None = None,
    target: Neo4jTarget | None = None,
    heap: str = "2g",
    pagecache: str = "1g",
    console: Console | None = None,
    show_progress: bool = True,
    build_only: bool = False,
) -> dict[str, Any]:
    """Build and measure each size, merging into `<out>/scale.json` and rendering the table
    and plot after each; `target` (a test's Neo4j) is used for every size when given. With
    `build_only`, the spaces are built and nothing is measured or written."""
    console = console or bench_console()
    base = settings or get_settings()
    out.mkdir(parents=True, exist_ok=True)
    data_dir.mkdir(parents=True, exist_ok=True)
    results = scale_report.load(out)
    for label, claims in (parse_size(s) for s in sizes):
        began = time.perf_counter()
        own = size_settings(base, data_dir, label, heap, pagecache) if target is None else base
        size_target = target or resolve_target(own)
        try:
            async with open_memory(own, size_target) as memory:
                neo4j = await memory.admin.server_info()
                built = await build(
                    memory, console, label, claims, data_dir, plan, show_progress=show_progress
                )
                if build_only:
                    console.print(f"{label} built: {built}")
                    continue
                console.print(f"measuring {label} …")
                measured = await measure_size(
                    memory,
                    size_target,
                    own,
                    console,
                    built["space"],
                    plan,
                    show_progress=show_progress,
                )
        finally:
            local = size_target.local
            if target is None and local is not None and local.started_here:
                LocalNeo4j(own).stop()
        results = scale_report.load(out)  # sizes another run measured meanwhile stay
        results["sizes"][label] = {
            "claims": claims,
            "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "minutes": round((time.perf_counter() - began) / 60, 1),
            "machine": scale_report.machine(),
            "commit": scale_report.commit(),
            "neo4j": neo4j | {"store_gib": store_gib(own)},
            "plan": asdict(plan),
            "build": built,
            **measured,
        }
        scale_report.save(out, results)
        console.print(f"{label}: written {out / 'scale.md'} and {out / 'scale.png'}")
    return results


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def main(
    sizes: Annotated[str, typer.Option(help="Sizes in claims, comma-separated.")] = "10k,100k,1M",
    rounds: Annotated[int, typer.Option(min=1, help="Rounds of every bench; medians.")] = 5,
    out: Annotated[Path, typer.Option(help="Where scale.json/.md/.png go.")] = Path(
        "bench/results"
    ),
    data_dir: Annotated[
        Path, typer.Option(help="Kept spaces, checkpoints and per-size local Neo4j homes.")
    ] = DATA_DIR,
    heap: Annotated[str, typer.Option(help="Max heap of each size's local Neo4j.")] = "2g",
    pagecache: Annotated[str, typer.Option(help="Page cache of each size's local Neo4j.")] = "1g",
    build_only: Annotated[
        bool, typer.Option(help="Build (or finish) the sizes' spaces and stop; measure nothing.")
    ] = False,
) -> None:
    """Build 10k/100k/1M spaces once, run every bench at each size, write table and plot."""
    plan = replace(Plan(), rounds=rounds)
    asyncio.run(
        run_scale(
            [s for s in sizes.split(",") if s.strip()],
            out=out,
            data_dir=data_dir,
            plan=plan,
            heap=heap,
            pagecache=pagecache,
            build_only=build_only,
        )
    )


if __name__ == "__main__":
    app()
