"""The results of `bench.scale`: kept as JSON, shown as Markdown — one table of every goal with
each figure beside its floor measured in the same run, met or not; latencies (operation x size,
p50/p95); throughput beside the floors — and a PNG of p50/p95 against size per operation, each
with where it was measured: machine, load, Neo4j version and memory settings, commit. Sizes
measured by older code (without some figures) still render, with '–' where a figure is
missing."""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from bench.scale_goals import FIGURES, GOALS, Record, ms_text, op

ROOT = Path(__file__).resolve().parent.parent

OPERATIONS: tuple[tuple[str, str], ...] = (
    ("related", "related 2 hops — domain (`Memory.related`)"),
    ("related_graphql", "related 2 hops — GraphQL (HTTP in-process)"),
    ("related_raw", "related 2 hops — raw one-query floor"),
    ("explain", "explainRelation ≤ 3 hops, 5 paths — domain"),
    ("explain_graphql", "explainRelation — GraphQL, with evidence"),
    ("explain_raw", "explainRelation — raw one-query floor"),
    ("search", "search top 12 — domain (`Memory.search`)"),
    ("search_raw", "search — raw full-text + vector queries"),
    ("remember_single", "remember, one claim per call — in-process"),
    ("remember_single_raw", "remember — the same shape raw, one claim per transaction"),
    ("remember_http_single", "remember one fact by names with evidence text — HTTP"),
    ("remember_names_single", "remember one fact by names with evidence text — in-process"),
    ("remember_raw_fact_single", "remember one fact — the raw one-fact transaction"),
    ("related_clients", "related — GraphQL over HTTP, 50 clients at once"),
    ("related_clients_raw", "related — raw one-query floor, 50 driver clients at once"),
)


def load(out: Path) -> dict[str, Any]:
    path = out / "scale.json"
    return json.loads(path.read_text()) if path.exists() else {"sizes": {}}


def save(out: Path, results: dict[str, Any]) -> None:
    """The JSON, then the table and the plot made from it."""
    results["sizes"] = dict(sorted(results["sizes"].items(), key=lambda kv: kv[1]["claims"]))
    (out / "scale.json").write_text(json.dumps(results, indent=1, sort_keys=False) + "\n")
    (out / "scale.md").write_text(markdown(results))
    plot(results, out / "scale.png")


def machine() -> dict[str, Any]:
    """What the figures were measured on: `uptime`, cores, memory, CPU."""
    meminfo = Path("/proc/meminfo").read_text() if Path("/proc/meminfo").exists() else ""
    total = next((int(line.split()[1]) for line in meminfo.splitlines() if "MemTotal" in line), 0)
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = next(
        (line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if "model name" in line),
        platform.processor() or "?",
    )
    uptime = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout
    return {
        "uptime": uptime.strip(),
        "nproc": os.cpu_count(),
        "ram_gib": round(total / 2**20, 1),
        "cpu": model,
        "python": platform.python_version(),
    }


def commit() -> str:
    """The commit measured (short), marked when the work tree had changes (other than the
    results a run writes after each size)."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "?"
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/results")
    return f"{head} (with uncommitted changes)" if dirty else head


def _mark(met: bool | None) -> str:
    return "" if met is None else " ✅" if met else " ❌"


def markdown(results: dict[str, Any]) -> str:
    sizes: dict[str, Record] = results["sizes"]
    labels = list(sizes)
    head = "| | " + " | ".join(f"{label} claims" for label in labels) + " |"
    rule = "|---|" + "---|" * len(labels)
    rounds = {r["plan"]["rounds"] for r in sizes.values()}
    lines = [
        "# Engram at scale",
        "",
        "Measured by `python -m bench.scale` (see bench/scale.py). Latencies are medians over "
        f"{'/'.join(map(str, sorted(rounds)))} rounds of each round's p50 / p95, in ms; rates "
        "are medians over the rounds; ratios are paired within a round (their medians), each "
        "path over its floor measured in the same run. ✅ met, ❌ not met, no mark: not "
        "decidable at this size; –: not measured at this size by the code of its run.",
        "",
        "## Goals, each figure beside its floor",
        "",
        "| goal | bound | " + " | ".join(labels) + " |",
        "|---|---|" + "---|" * len(labels),
    ]
    previous: Record | None = None
    rows: dict[str, list[str]] = {name: [] for name, _, _ in GOALS}
    for label in labels:
        for name, _, check in GOALS:
            text, met = check(sizes[label], previous)
            rows[name].append(text + _mark(met))
        previous = sizes[label]
    lines += [f"| {name} | {bound} | " + " | ".join(rows[name]) + " |" for name, bound, _ in GOALS]
    lines += ["", "## Latency, p50 / p95 (ms)", "", head, rule]
    for name, title in OPERATIONS:
        cells = [
            f"{ms_text(op(r, name, 'p50'))} / {ms_text(op(r, name, 'p95'))}" for r in sizes.values()
        ]
        lines.append(f"| {title} | " + " | ".join(cells) + " |")
    lines += ["", "## Throughput beside the floors, build and memory", "", head, rule]
    for title, cell in FIGURES:
        lines.append(f"| {title} | " + " | ".join(cell(r) for r in sizes.values()) + " |")
    lines += ["", "## Where and when", ""]
    for label, r in sizes.items():
        m, n = r["machine"], r["neo4j"]
        loads = ", ".join(f"{k} {v[0]}→{v[-1]}" for k, v in r["load"].items())
        lines += [
            f"**{label}** ({r['claims']:,} claims), measured {r['measured_at']} in "
            f"{r['minutes']} min at commit `{r['commit']}`; built {r['build']['built_at']}"
            f"{' (resumed after a kill)' if r['build']['resumed'] else ''}.",
            f"Machine: {m['nproc']} cores ({m['cpu']}), {m['ram_gib']} GiB RAM, Python "
            f"{m['python']}; `uptime` at the end: `{m['uptime']}`.",
            f"Neo4j {n.get('version', '?')} {n.get('edition', '')}: heap max {n.get('heap', '?')}"
            f", page cache {n.get('pagecache', '?')}"
            + (f"; its data on disk {n['store_gib']} GiB." if n.get("store_gib") else "."),
            f"Load average (1 min) at start→end of each measurement: {loads}.",
            "",
        ]
    return "\n".join(lines)


def plot(results: dict[str, Any], path: Path) -> None:
    """p50 and p95 against size, one panel per operation, log-log."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    sizes = list(results["sizes"].values())
    claims = [r["claims"] for r in sizes]
    rows = math.ceil(len(OPERATIONS) / 4)
    figure, axes = plt.subplots(rows, 4, figsize=(16, 4 * rows), sharex=True)
    for axis in axes.flat[len(OPERATIONS) :]:
        axis.set_visible(False)
    for axis, (name, title) in zip(axes.flat, OPERATIONS, strict=False):
        for q, style in (("p50", "o-"), ("p95", "s--")):
            axis.plot(claims, [op(r, name, q) for r in sizes], style, label=q)
        axis.set_title(title.replace("`", ""), fontsize=9)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.grid(True, which="both", alpha=0.3)
        axis.set_xlabel("claims")
        axis.set_ylabel("ms")
        axis.legend(fontsize=8)
    commits = sorted({r["commit"] for r in sizes})
    figure.suptitle(f"Engram latency against size (bench.scale; commit {', '.join(commits)})")
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)
