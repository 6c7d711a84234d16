"""The goals `bench.scale_report` renders, each a check of one size's record (and the size
before it) answering its text and whether it is met: issue 29's, each figure beside its floor
measured in the same run, then the goals of earlier issues that still hold; and the throughput
table's rows. A size measured by older code (without some figures) answers '–' and no verdict
where a figure is missing."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

Record = dict[str, Any]
Verdict = tuple[str, bool | None]


def ms_text(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def op(record: Record, name: str, q: str) -> float:
    return float(record["ops"].get(name, {}).get(q, math.nan))


def _fig(record: Record, name: str) -> float:
    value = record["figures"].get(name)
    return math.nan if value is None else float(value)


def _rate(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:,.0f}"


def _x(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.2f}x"


def _verdict(value: float, bound: float, at_least: bool) -> bool | None:
    if math.isnan(value):
        return None
    return value >= bound if at_least else value <= bound


Check = Callable[[Record, Record | None], Verdict]


def _beside_latency(path: str, floor: str, ratio: str, bound: float) -> Check:
    """A path's p50 beside its floor's p50 (ms), and their ratio paired within rounds."""

    def check(record: Record, _: Record | None) -> Verdict:
        value = _fig(record, ratio)
        if math.isnan(value):
            return "–", None
        text = f"{ms_text(op(record, path, 'p50'))} / {ms_text(op(record, floor, 'p50'))} ms"
        return f"{text} = {_x(value)}", _verdict(value, bound, False)

    return check


def _beside_rate(path: str, floor: str, ratio: str, bound: float, unit: str) -> Check:
    """A path's rate beside its floor's (medians), and their ratio paired within rounds."""

    def check(record: Record, _: Record | None) -> Verdict:
        value = _fig(record, ratio)
        if math.isnan(value) or math.isnan(_fig(record, floor)):
            return "–", None  # measured before this figure (or this floor) was
        text = f"{_rate(_fig(record, path))} / {_rate(_fig(record, floor))} {unit}"
        return f"{text} = {_x(value)}", _verdict(value, bound, True)

    return check


def _search_p95(record: Record, _: Record | None) -> Verdict:
    """Decided at 1M claims and beyond; below, only a miss is decisive."""
    value = op(record, "search", "p95")
    text = f"{ms_text(value)} ms (raw queries {ms_text(op(record, 'search_raw', 'p95'))} ms)"
    met = _verdict(value, 50, False)
    return text, met if record["claims"] >= 1_000_000 or met is False else None


def _decades(record: Record, previous: Record) -> float:
    return math.log10(record["claims"] / previous["claims"])


def _per_decade(record: Record, previous: Record, name: str) -> float:
    """How much the p50 of `name` grew per tenfold claims since the size before."""
    grown = op(record, name, "p50") / op(previous, name, "p50")
    return float(grown ** (1 / _decades(record, previous)))


def _search_growth(record: Record, previous: Record | None) -> Verdict:
    if previous is None or _decades(record, previous) <= 0:
        return "–", None
    engram, raw = (_per_decade(record, previous, n) for n in ("search", "search_raw"))
    return f"{_x(engram)} (raw queries {_x(raw)})", _verdict(engram, 1.5, False)


def _share(name: str, bound: float, *, needs: str | None = None) -> Check:
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


def _vectors(record: Record, _: Record | None) -> Verdict:
    """Vectors stored per second end to end (`bench.vector_rate`), the model alone beside."""
    value = _fig(record, "vectors_per_s")
    if math.isnan(value):
        return "–", None
    model = _rate(_fig(record, "vectors_model_per_s"))
    return f"{_rate(value)}/s (the model alone {model}/s)", value >= 500


def _generate(record: Record, _: Record | None) -> Verdict:
    build = record["build"]
    per_claim = build["generate_seconds"] / build["claims"]
    minutes = per_claim * 1_000_000 / 60
    measured = build["claims"] >= 1_000_000
    text = f"{minutes:.0f} min{'' if measured else ' (projected)'}"
    return text, minutes <= 20 if measured else None


def _latency(name: str, q: str, bound: float) -> Check:
    def check(record: Record, _: Record | None) -> Verdict:
        value = op(record, name, q)
        return f"{ms_text(value)} ms", _verdict(value, bound, False)

    return check


def _growth(record: Record, previous: Record | None) -> Verdict:
    if previous is None or _decades(record, previous) <= 0:
        return "–", None
    ratios = {n: _per_decade(record, previous, n) for n in ("related", "explain")}
    text = ", ".join(f"{n} {_x(r)}" for n, r in ratios.items())
    return text, all(r <= 1.5 for r in ratios.values())


def _rss(record: Record, _: Record | None) -> Verdict:
    figures = record["figures"]
    peak = figures["rss_peak_mb"]
    text = f"{peak:.0f} MiB peak ({figures['refused']} refused)"
    return text, peak <= 500 and figures["refused"] == 0


GOALS: tuple[tuple[str, str, Check], ...] = (
    (
        "related 2 hops, GraphQL p50 / the raw one-query floor p50",
        "≤ 1.3x",
        _beside_latency("related_graphql", "related_raw", "related_graphql_vs_raw_p50", 1.3),
    ),
    ("search top 12, domain p95 (the raw index queries beside)", "≤ 50 ms at 1M", _search_p95),
    ("search p50 growth per tenfold claims (the raw queries beside)", "≤ 1.5x", _search_growth),
    ("search self-recall@12", "≥ 99%", _share("search_self_recall", 0.99)),
    (
        "a small space beside it (1k claims): meaning recall@12 against exact scoring",
        "≥ 99%",
        _share("beside_meaning_recall", 0.99, needs="beside_indexed"),
    ),
    (
        "remember batched / the same shape written raw (claims/s)",
        "≥ 0.8x",
        _beside_rate("batched_per_s", "raw_same_shape_per_s", "batched_vs_raw", 0.8, "claims/s"),
    ),
    (
        "remember by names with evidence text over HTTP / the raw fact floor (facts/s)",
        "≥ 0.8x",
        _beside_rate("names_http_per_s", "raw_facts_per_s", "names_http_vs_raw", 0.8, "facts/s"),
    ),
    (
        "remember one fact over HTTP, p50 / the raw one-fact transaction p50",
        "≤ 1.5x",
        _beside_latency(
            "remember_http_single", "remember_raw_fact_single", "single_http_vs_raw", 1.5
        ),
    ),
    (
        "related, 50 clients over HTTP (a worker per core) / raw, 50 driver clients (calls/s)",
        "≥ 0.7x",
        _beside_rate("clients_per_s", "clients_raw_per_s", "clients_vs_raw", 0.7, "calls/s"),
    ),
    ("meaning vectors stored, end to end", "≥ 500/s", _vectors),
    (
        "two spaces written at once / one space (claims/s)",
        "≥ 1.6x",
        _beside_rate("two_spaces_per_s", "one_space_per_s", "two_vs_one", 1.6, "claims/s"),
    ),
    ("earlier: generate 1M claims through the commands", "≤ 20 min", _generate),
    ("earlier: related 2 hops, domain p95", "≤ 15 ms", _latency("related", "p95", 15)),
    ("earlier: explainRelation GraphQL p95", "≤ 40 ms", _latency("explain_graphql", "p95", 40)),
    ("earlier: related and explain p50 growth per tenfold claims", "≤ 1.5x each", _growth),
    ("earlier: API RSS under 50 clients", "≤ 500 MB", _rss),
)
"""Issue 29's goals, each figure beside its floor measured in the same run; then the goals of
earlier issues that still hold (its ratios replace the absolute write goals of before)."""


def _cell(fmt: str, *names: str) -> Callable[[Record], str]:
    """A table cell of figures, or '–' when a size was measured before one of them was."""

    def cell(record: Record) -> str:
        values = [_fig(record, name) for name in names]
        if any(math.isnan(v) for v in values):
            return "–"
        return fmt.format(*values)

    return cell


def _single(path: str, floor: str, ratio: str) -> Callable[[Record], str]:
    def cell(record: Record) -> str:
        if math.isnan(_fig(record, ratio)):
            return "–"
        return (
            f"{ms_text(op(record, path, 'p50'))} / {ms_text(op(record, floor, 'p50'))} = "
            f"{_x(_fig(record, ratio))}"
        )

    return cell


def _build(r: Record) -> str:
    b = r["build"]
    rate = b["claims"] / b["generate_seconds"] if b["generate_seconds"] else 0.0
    return f"{rate:,.0f}/s; {b['generate_seconds'] / b['claims'] * 100_000 / 60:.1f} min"


def _embed(r: Record) -> str:
    b = r["build"]
    if "embedded" not in b or not b["embed_seconds"]:
        return f"{b['embed_seconds']:,.0f}"
    return f"{b['embed_seconds']:,.0f} ({b['embedded'] / b['embed_seconds']:,.0f} vectors/s)"


def _batched(r: Record) -> str:
    """Engram beside the same shape and the bare claim (sizes measured before the same shape
    was had the bare claim alone, as `raw_per_s`)."""
    f = r["figures"]
    if "batched_per_s" not in f:
        return "–"
    same = _rate(_fig(r, "raw_same_shape_per_s"))
    bare = _rate(_fig(r, "raw_bare_per_s" if "raw_bare_per_s" in f else "raw_per_s"))
    return f"{_rate(f['batched_per_s'])} / {same} / {bare}"


FIGURES: tuple[tuple[str, Callable[[Record], str]], ...] = (
    ("generate (claims/s; min per 100k)", _build),
    ("embed the space's claims while building (s)", _embed),
    ("remember batched: Engram / same shape raw / bare claim (claims/s)", _batched),
    (
        "this Neo4j's own limit: bare nodes/s / bare relationships/s",
        _cell("{:,.0f} / {:,.0f}", "bare_nodes_per_s", "bare_relationships_per_s"),
    ),
    (
        "remember one claim in-process, p50: Engram / same shape raw (ms)",
        _single("remember_single", "remember_single_raw", "single_vs_raw_p50"),
    ),
    (
        "by names with evidence text: HTTP / in-process / raw facts / raw evidence only (facts/s)",
        _cell(
            "{:,.0f} / {:,.0f} / {:,.0f} / {:,.0f}",
            "names_http_per_s",
            "names_engine_per_s",
            "raw_facts_per_s",
            "raw_evidence_per_s",
        ),
    ),
    (
        "one fact by names in-process, p50: Engram / raw one-fact transaction (ms)",
        _single("remember_names_single", "remember_raw_fact_single", "single_engine_vs_raw"),
    ),
    (
        "explainRelation, GraphQL p50 / raw one-query floor p50",
        _single("explain_graphql", "explain_raw", "explain_graphql_vs_raw_p50"),
    ),
    (
        "meaning vectors: end to end / the model alone (per s)",
        _cell("{:,.0f} / {:,.0f}", "vectors_per_s", "vectors_model_per_s"),
    ),
    (
        "one space / two spaces (claims/s)",
        _cell("{:,.0f} / {:,.0f}", "one_space_per_s", "two_spaces_per_s"),
    ),
    (
        "API RSS before / peak, 50 clients (MiB)",
        _cell("{:,.0f} / {:,.0f}", "rss_before_mb", "rss_peak_mb"),
    ),
    (
        "the small space beside: self-recall@12 / its vectors",
        _cell("{:.0%} / {:,.0f}", "beside_self_recall", "beside_vectors"),
    ),
)
