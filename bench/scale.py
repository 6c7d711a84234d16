"""Engram at 10k, 100k and 1M claims: every read and write bench at each size, one table and one
plot of p50/p95 against size per operation.

    python -m bench.scale [--sizes 10k,100k,1M] [--rounds 5] [--out bench/results] [--build-only]

Each size is a space `bench-scale-<size>` generated once through Engram's commands
(`bench.generate`) and kept between runs in a bench data directory (`--data-dir`): without
`NEO4J_URI` each size gets a local Neo4j of its own under it (`<data-dir>/<size>`, with
`--heap` and `--pagecache`), started for that size and stopped after; with `NEO4J_URI` all sizes
are spaces of that one database. A build killed half-way goes on where it stopped (a checkpoint
file per size), with a progress bar; then the embedding outbox is drained, as a server would.

At each size, the existing benches' own measuring code runs `--rounds` times, every path beside
its floor in the same run (`bench.scale_measure`): `bench.read_latency` (related 2 hops and
explainRelation ≤ 3 hops: domain, GraphQL in-process, raw one-query floor),
`bench.search_latency` (search top 12 beside the raw index queries), `bench.write_throughput`
(remember one claim per call and batched, beside the same shape written raw, bare claims, bare
nodes and bare relationships), `bench.ingest` (facts by names with evidence texts over HTTP and
in-process, beside the raw fact floor), `bench.vector_rate` (the embedding outbox end to end
beside the model alone), `bench.two_spaces` (writers of one space beside two), and
`bench.concurrent_reads` (50 clients at once against a real `engram serve`, its RSS, beside 50
driver clients running the raw query); once per size, `bench.small_space_recall` (a small space
kept beside the big one: its meaning recall and self-recall). Latencies are medians over rounds
of each round's p50/p95; ratios are paired within a round and named `<path>_vs_raw` for a path
over its floor. Results go to `<out>/scale.json` (sizes measured by separate runs are merged) and
are rendered as `<out>/scale.md` (one table of every goal, each figure beside its floor) and
`<out>/scale.png` (`bench.scale_report`), with the machine, its load, the Neo4j settings and the
commit.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import asdict, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import platformdirs
import typer
from rich.console import Console

from bench import scale_report
from bench._support import bench_console, drain_embeddings, open_memory, store_gib
from bench.generate import generate
from bench.scale_measure import Plan, measure_size
from graph.memory import Memory
from graph.runtime import LocalNeo4j, Neo4jTarget, Settings, get_settings, resolve_target

SPACE_PREFIX = "bench-scale-"
DATA_DIR = Path(platformdirs.user_data_dir("engram-bench-scale"))
"""Where the sizes are kept unless `--data-dir` says otherwise."""
SUFFIXES = {"k": 1_000, "m": 1_000_000}


def parse_size(text: str) -> tuple[str, int]:
    """`10k` → ('10k', 10000); `1M` → ('1M', 1000000); `200` → ('200', 200)."""
    label = text.strip()
    number, suffix = label[:-1], label[-1].lower()
    claims = int(float(number) * SUFFIXES[suffix]) if suffix in SUFFIXES else int(label)
    if claims < 50:
        raise typer.BadParameter(f"a size has at least 50 claims, not {label!r}")
    return label, claims


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
