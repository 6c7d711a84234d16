"""`python -m bench.scale` end to end at a tiny size: it builds the space through the commands,
runs every read and write bench once, and writes the table and the plot with every operation."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pytest
from rich.console import Console

from bench._support import OPERATOR
from bench.generate import generate
from bench.graphql_reads import GraphQLClient
from bench.raw_read_queries import RAW_RELATED, seen
from bench.read_latency import ENTITIES, Runner, Sample
from bench.scale import Plan, parse_size, run_scale
from bench.scale_report import GOALS, OPERATIONS
from bench.search_latency import CURRENT_TEXTS
from graph.domain.read_records import ClaimFilter
from graph.domain.vocabulary import ClaimStatus, MemoryType
from graph.memory import Memory
from graph.reads.visibility import visible
from graph.runtime import Graph, Neo4jTarget, Settings

CLAIM_ROWS = """
MATCH (s:Space {name: $space}), (c:Claim {spaceId: s.id})
RETURN c.key AS key, c.revision AS revision, c.status AS status, c.validTo AS validTo
ORDER BY key, revision
"""

TINY = Plan(
    rounds=1,
    read_samples=2,
    search_samples=1,
    single=2,
    batched=20,
    batch_size=10,
    write_entities=10,
    ingest_batched=4,
    ingest_size=2,
    ingest_single=1,
    vector_claims=20,
    two_space_claims=2,
    two_space_writers=2,
    clients=50,
    mutation_calls=1,
    warm_up=0,
    generate_batch=60,
    beside_claims=60,
    beside_samples=2,
)


@pytest.mark.fast
def test_sizes_are_read_with_their_suffixes() -> None:
    assert [parse_size(s) for s in ("10k", "100k", "1M", "200")] == [
        ("10k", 10_000),
        ("100k", 100_000),
        ("1M", 1_000_000),
        ("200", 200),
    ]


async def test_the_scale_runner_writes_a_table_and_a_plot_with_every_operation(
    test_settings: Settings, neo4j_target: Neo4jTarget, tmp_path: Path
) -> None:
    out, data = tmp_path / "results", tmp_path / "data"

    results = await run_scale(
        ["60"],
        out=out,
        data_dir=data,
        plan=TINY,
        settings=test_settings,
        target=neo4j_target,
        console=Console(file=io.StringIO()),
        show_progress=False,
    )

    record = results["sizes"]["60"]
    assert sorted(record["ops"]) == sorted(name for name, _ in OPERATIONS)
    assert all(op["n"] > 0 for op in record["ops"].values())
    assert record["build"]["claims"] == 60
    assert record["build"]["space"] == "bench-scale-60"
    assert record["figures"]["clients"] == 50
    every_path_beside_its_floor = {
        "related_graphql_vs_raw_p50",
        "explain_graphql_vs_raw_p50",
        "batched_vs_raw",
        "single_vs_raw_p50",
        "names_http_vs_raw",
        "single_http_vs_raw",
        "clients_vs_raw",
        "two_vs_one",
        "vectors_per_s",
        "vectors_model_per_s",
        "raw_same_shape_per_s",
        "raw_bare_per_s",
        "bare_nodes_per_s",
        "bare_relationships_per_s",
    }
    assert {
        name: record["figures"].get(name, 0) > 0 for name in every_path_beside_its_floor
    } == dict.fromkeys(every_path_beside_its_floor, True)
    assert record["figures"]["beside_samples"] == 2
    assert record["figures"]["beside_indexed"] is False  # 60 claims: scored exactly, no verdict
    assert record["build"]["embedded"] >= 60  # every claim (and any correction's revision)
    assert record["neo4j"]["version"].startswith("5.")
    table = (out / "scale.md").read_text()
    assert "(not indexed)" in table
    assert [title in table for _, title in OPERATIONS] == [True] * len(OPERATIONS)
    assert [f"| {name} | {bound} |" in table for name, bound, _ in GOALS] == [True] * len(GOALS)
    assert "60 claims" in table and record["commit"] in table
    assert (out / "scale.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert list(json.loads((out / "scale.json").read_text())["sizes"]) == ["60"]
    assert json.loads((data / "60.json").read_text())["finished"] is True


class Killed(Exception):
    pass


def dies_at_the_third_seal(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> Memory:
    """The memory, its process killed as it seals its third conversation."""
    seal, seals = memory.writes.seal_episode, [0]

    async def sealing(*args: Any, **kwargs: Any) -> Any:
        seals[0] += 1
        if seals[0] == 3:
            raise Killed
        return await seal(*args, **kwargs)

    monkeypatch.setattr(memory.writes, "seal_episode", sealing)
    return memory


async def test_a_killed_generation_goes_on_where_it_stopped_and_writes_what_one_run_writes(
    graph: Graph, test_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkpoint = tmp_path / "resumed.json"
    with pytest.raises(Killed):
        await generate(
            dies_at_the_third_seal(Memory(graph, test_settings), monkeypatch),
            "bench-resumed",
            claims=100,
            batch=25,
            show_progress=False,
            checkpoint=checkpoint,
        )
    cut = json.loads(checkpoint.read_text())
    assert (cut["done"], cut["open_episode"] is not None, cut["finished"]) == (2, True, False)

    resumed = await generate(
        Memory(graph, test_settings),
        "bench-resumed",
        claims=100,
        batch=25,
        show_progress=False,
        checkpoint=checkpoint,
    )
    await generate(graph, "bench-whole", claims=100, batch=25, show_progress=False)

    assert resumed.resumed_at == 2
    assert len(resumed.claim_ids) == 40  # the conversations after the cut one: 25 + 15 claims
    assert json.loads(checkpoint.read_text())["finished"] is True
    assert await graph.read(CLAIM_ROWS, space="bench-resumed") == await graph.read(
        CLAIM_ROWS, space="bench-whole"
    )


async def test_the_one_query_floors_answer_what_related_and_explain_answer_in_the_same_view(
    graph: Graph, test_settings: Settings
) -> None:
    memory = Memory(graph, test_settings)
    await generate(memory, "bench-floors", claims=200, batch=100, show_progress=False)
    at = [datetime(2021, 7, 1, tzinfo=UTC), datetime(2026, 7, 1, tzinfo=UTC)]
    views = {t: await memory.reads.view(OPERATOR, "bench-floors", as_of=t) for t in at}
    ids = [row["id"] for row in await graph.read(ENTITIES, spaceId=views[at[0]].space_id)]
    runner = Runner(memory, views, cast(GraphQLClient, None))
    related: list[tuple[set[tuple[str, ...]], set[tuple[str, ...]]]] = []
    paths: list[tuple[int, int]] = []
    for t, view in views.items():
        for entity_id in ids:
            found = await memory.reads.related(view, entity_id, hops=2, first=50)
            rows = await graph.read(RAW_RELATED, **view.params(), id=entity_id, first=50, limit=200)
            floor = {
                (r["type"], r["source"], r["target"], r["claimId"])
                for row in rows
                for r in row["relations"]
            }
            domain = {(r.type, r.source_id, r.target_id, r.claim_id) for r in found.relations}
            related.append((domain, floor))
        for other in ids[1:]:
            sample = Sample("explain", t, (ids[0], other))
            domain_call, floor_call = runner.call(sample, "engram"), runner.call(sample, "raw")
            paths.append(((await domain_call()).size, (await floor_call()).size))

    assert [domain for domain, _ in related] == [floor for _, floor in related]
    assert [domain for domain, _ in paths] == [floor for _, floor in paths]
    assert sum(len(domain) for domain, _ in related) > 0
    assert sum(domain for domain, _ in paths) > 0


@pytest.mark.fast
def test_the_floors_visibility_predicate_says_what_every_read_says() -> None:
    def clauses(predicate: str) -> set[str]:
        flat = predicate.replace("(", "").replace(")", "")
        return {clause.strip() for clause in flat.split(" AND ")}

    assert clauses(seen("r")) == clauses(visible("r"))
    assert len(clauses(visible("r"))) == 7


NOT_SUPERSEDED_NOW = """
MATCH (s:Space {name: $space}), (c:Claim {spaceId: s.id})
WHERE c.supersededAt IS NULL AND c.status = 'active' AND c.type <> 'entity'
  AND coalesce(c.validFrom, datetime()) <= datetime()
  AND coalesce(c.validTo, datetime() + duration('P1D')) > datetime()
RETURN c.id AS id
"""


async def test_the_search_bench_draws_its_texts_from_the_claims_a_view_shows_now(
    memory: Memory,
) -> None:
    """A claim a later-valid told fact of its key replaced is not searched for as current."""
    await generate(memory, "bench-sample", claims=300, batch=100, show_progress=False)
    view = await memory.reads.view(OPERATOR, "bench-sample")
    shown: set[str] = set()
    after = None
    while True:
        page = await memory.reads.claims(
            view, ClaimFilter(statuses=(ClaimStatus.ACTIVE,)), first=100, after=after
        )
        shown |= {c.id for c in page.claims if c.type is not MemoryType.ENTITY}
        if not page.has_more:
            break
        after = page.end
    drawn = {row["id"] for row in await memory.graph.read(CURRENT_TEXTS, spaceId=view.space_id)}
    replaced = {
        row["id"] for row in await memory.graph.read(NOT_SUPERSEDED_NOW, space="bench-sample")
    }
    assert drawn == shown
    assert replaced - shown, "some told facts were replaced in valid time by a later-valid one"
