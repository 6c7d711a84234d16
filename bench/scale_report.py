"""The results of `bench.scale`: kept as JSON, shown as a Markdown table (operation x size,
p50/p95, goal, met or not) and a PNG of p50/p95 against size per operation, each with where it
was measured — machine, load, Neo4j version and memory settings, commit."""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
    ("related_clients", "related — GraphQL over HTTP, 50 clients at once"),
    ("related_clients_raw", "related — raw one-query floor, 50 driver clients at once"),
)

Record = dict[str, Any]
Verdict = tuple[str, bool | None]


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


def _ms(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def _op(record: Record, name: str, q: str) -> float:
    return float(record["ops"].get(name, {}).get(q, math.nan))


def _at_most(value: float, bound: float, text: str) -> Verdict:
    return text, None if math.isnan(value) else value <= bound


def _generate(record: Record, _: Record | None) -> Verdict:
    build = record["build"]
    per_claim = build["generate_seconds"] / build["claims"]
    minutes = per_claim * 1_000_000 / 60
    measured = build["claims"] >= 1_000_000
    text = f"{minutes:.0f} min{'' if measured else ' (projected)'}"
    return text, minutes <= 20 if measured else None


def _ratio(name: str, bound: float, at_least: bool) -> Callable[[Record, Record | None], Verdict]:
    def check(record: Record, _: Record | None) -> Verdict:
        if name not in record["figures"]:
            return "–", None  # measured before this figure was
        value = float(record["figures"][name])
        return f"{value:.2f}x", value >= bound if at_least else value <= bound

    return check


def _latency(name: str, q: str, bound: float) -> Callable[[Record, Record | None], Verdict]:
    def check(record: Record, _: Record | None) -> Verdict:
        value = _op(record, name, q)
        return _at_most(value, bound, f"{_ms(value)} ms")

    return check


def _growth(record: Record, previous: Record | None) -> Verdict:
    if previous is None:
        return "–", None
    ratios = {
        n: _op(record, n, "p50") / _op(previous, n, "p50") for n in ("related", "explain", "search")
    }
    text = ", ".join(f"{n} {r:.2f}x" for n, r in ratios.items())
    return text, all(r <= 1.5 for r in ratios.values())


def _vectors(record: Record, _: Record | None) -> Verdict:
    """Vectors stored per second while the build drained the outbox (builds recorded before
    the count was kept give the space's claims per second)."""
    build = record["build"]
    seconds = build["embed_seconds"]
    if not seconds:
        return "–", None
    if "embedded" in build:
        rate = build["embedded"] / seconds
        return f"{rate:,.0f} vectors/s", rate >= 500
    rate = build["claims"] / seconds
    return f"{rate:,.0f} claims/s", rate >= 500


def _share(
    name: str, bound: float, *, needs: str | None = None
) -> Callable[[Record, Record | None], Verdict]:
    """A share against its bound; no verdict where the figure is missing, or where the flag
    `needs` names is false (the figure then shows nothing)."""

    def check(record: Record, _: Record | None) -> Verdict:
        value = record["figures"].get(name)
        if value is None:
            return "–", None
        if needs is not None and not record["figures"].get(needs):
            return f"{value:.1%} (not indexed)", None
        return f"{value:.1%}", value >= bound

    return check


def _rss(record: Record, _: Record | None) -> Verdict:
    figures = record["figures"]
    peak = figures["rss_peak_mb"]
    text = f"{peak:.0f} MiB peak ({figures['refused']} refused)"
    return text, peak <= 500 and figures["refused"] == 0


GOALS: tuple[tuple[str, str, Callable[[Record, Record | None], Verdict]], ...] = (
    ("generate 1M claims through the commands", "≤ 20 min", _generate),
    ("related 2 hops, domain p95", "≤ 15 ms", _latency("related", "p95", 15)),
    (
        "related GraphQL p50 / raw floor p50",
        "≤ 1.3x",
        _ratio("related_graphql_vs_raw_p50", 1.3, False),
    ),
    ("explainRelation GraphQL p95", "≤ 40 ms", _latency("explain_graphql", "p95", 40)),
    ("search top 12, domain p95", "≤ 50 ms", _latency("search", "p95", 50)),
    ("search self-recall@12", "≥ 99%", _share("search_self_recall", 0.99)),
    (
        "a small space beside it (1k claims): meaning recall@12 against exact scoring",
        "≥ 99%",
        _share("beside_meaning_recall", 0.99, needs="beside_indexed"),
    ),
    ("meaning vectors stored while the build drained its outbox", "≥ 500/s", _vectors),
    ("remember one claim, p50 in-process", "≤ 5 ms", _latency("remember_single", "p50", 5)),
    ("remember batched / raw UNWIND … CREATE", "≥ 0.8x", _ratio("batched_vs_raw", 0.8, True)),
    ("two spaces written at once / one space", "≥ 1.6x", _ratio("two_vs_one", 1.6, True)),
    ("p50 growth from the size before", "≤ 1.5x each", _growth),
    (
        "related, 50 clients over HTTP / the raw query, 50 driver clients (throughput)",
        "≥ 0.7x",
        _ratio("clients_vs_raw", 0.7, True),
    ),
    ("API RSS under 50 clients", "≤ 500 MB", _rss),
)


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
        f"{'/'.join(map(str, sorted(rounds)))} rounds of each round's p50 / p95, in ms; ratios are "
        "paired within a round. ✅ met, ❌ not met, no mark: not decidable at this size.",
        "",
        "## Goals",
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
        cells = [f"{_ms(_op(r, name, 'p50'))} / {_ms(_op(r, name, 'p95'))}" for r in sizes.values()]
        lines.append(f"| {title} | " + " | ".join(cells) + " |")
    lines += ["", "## Throughput, build and memory", "", head, rule]
    figure_rows: tuple[tuple[str, Callable[[Record], str]], ...] = (
        ("generate (claims/s; min per 100k)", _build),
        ("embed the space's claims (s)", lambda r: f"{r['build']['embed_seconds']:,.0f}"),
        ("remember batched / raw (claims/s)", _batched),
        ("one space / two spaces (claims/s)", _spaces),
        ("API RSS before / peak, 50 clients (MiB)", _memory),
        ("related, 50 clients at once: HTTP / raw floor (calls/s)", _clients),
        ("search self-recall@12", lambda r: f"{r['figures']['search_self_recall']:.0%}"),
        ("the small space beside: self-recall@12 / its vectors", _beside),
    )
    for title, cell in figure_rows:
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


def _build(r: Record) -> str:
    b = r["build"]
    rate = b["claims"] / b["generate_seconds"] if b["generate_seconds"] else 0.0
    return f"{rate:,.0f}/s; {b['generate_seconds'] / b['claims'] * 100_000 / 60:.1f} min"


def _batched(r: Record) -> str:
    f = r["figures"]
    return f"{f['batched_per_s']:,.0f} / {f['raw_per_s']:,.0f}"


def _spaces(r: Record) -> str:
    f = r["figures"]
    return f"{f['one_space_per_s']:,.0f} / {f['two_spaces_per_s']:,.0f}"


def _beside(r: Record) -> str:
    f = r["figures"]
    if "beside_self_recall" not in f:
        return "–"
    return f"{f['beside_self_recall']:.0%} / {f['beside_vectors']:,}"


def _memory(r: Record) -> str:
    f = r["figures"]
    return f"{f['rss_before_mb']:,.0f} / {f['rss_peak_mb']:,.0f}"


def _clients(r: Record) -> str:
    f = r["figures"]
    if "clients_raw_per_s" not in f:
        return "–"
    return f"{f['clients_per_s']:,.0f} / {f['clients_raw_per_s']:,.0f}"


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
            axis.plot(claims, [_op(r, name, q) for r in sizes], style, label=q)
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
