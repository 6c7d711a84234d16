"""Engram's Neo4j Browser guide: every slide's Cypher run against the people story, exactly as
Browser runs it, and the guide and style pages as Engram serves them."""

from __future__ import annotations

from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import Any, LiteralString

import pytest
from neo4j import AsyncManagedTransaction

from api.app import create_app
from api.browser_guide_page import AUTO_CONNECT_OFF, SLIDES, browser_style, params_command
from graph.domain.actor import Actor
from graph.domain.vocabulary import SelectorKind
from graph.memory import ForgetInput, Memory, Selector
from graph.runtime import (
    Graph,
    Neo4jTarget,
    Settings,
    allowed_guide_hosts,
    guide_origin,
    guide_queries,
)
from tests.http import running
from tests.people_story import People, people_story

NOISE = {"Meaning", "Clock", "Migration", "AuditEvent", "ApiKey", "Tombstone", "LegalHold"}


@dataclass(frozen=True)
class Drawn:
    """What Browser draws for a query: node captions and (from, type, to) edges by caption."""

    nodes: set[str]
    edges: set[tuple[str, str, str]]
    labels: set[str]


def _caption(properties: dict[str, Any]) -> str:
    for key in ("name", "caption", "content"):
        if properties.get(key) is not None:
            return str(properties[key])
    raise AssertionError(f"a node without a caption: {properties}")


async def drawn(graph: Graph, query: LiteralString, **params: Any) -> Drawn:
    async def work(tx: AsyncManagedTransaction) -> Drawn:
        result = await tx.run(query, guide_queries.guide_params(**params))
        shown = await result.graph()
        captions = {node.element_id: _caption(dict(node)) for node in shown.nodes}
        edges = set()
        for rel in shown.relationships:
            assert rel.start_node is not None and rel.end_node is not None
            start, end = rel.start_node.element_id, rel.end_node.element_id
            edges.add((captions[start], rel.type, captions[end]))
        labels = {label for node in shown.nodes for label in node.labels}
        return Drawn(set(captions.values()), edges, labels)

    return await graph.read_tx(work)


@pytest.fixture
async def people(memory: Memory, graph: Graph, test_settings: Settings) -> People:
    world = await people_story(graph)
    secret = await world.story.say("my bank PIN is 4321")
    await memory.forgetting.forget(
        Actor.operator("test"),
        "alice",
        ForgetInput(
            selector=Selector(kind=SelectorKind.OBSERVATION, id=secret), reason="asked to forget"
        ),
    )
    return world


async def test_the_current_graph_slide_draws_named_current_relations_only(
    people: People,
) -> None:
    shown = await drawn(people.story.graph, guide_queries.CURRENT_GRAPH)
    assert shown.edges == {
        ("Alice", "WORKS_AT", "Globex"),
        ("Alice", "CONTRIBUTES_TO", "Engram"),
        ("Bob", "WORKS_AT", "Acme Global"),
        ("Carol", "WORKS_AT", "Globex"),
        ("Carol", "CONTRIBUTES_TO", "Engram"),
    }, "no superseded revision, no relation that ended, nothing retracted"
    assert shown.nodes == {"Alice", "Bob", "Carol", "Acme Global", "Globex", "Engram"}
    assert shown.labels & NOISE == set()


async def test_the_neighbourhood_slide_draws_two_hops_as_the_world_was_then(
    people: People,
) -> None:
    shown = await drawn(
        people.story.graph, guide_queries.NEIGHBOURHOOD_AS_OF, asOf="2022-06-01T00:00:00Z"
    )
    assert shown.edges == {("Alice", "WORKS_AT", "Acme Global"), ("Bob", "WORKS_AT", "Acme Global")}
    later = await drawn(
        people.story.graph, guide_queries.NEIGHBOURHOOD_AS_OF, asOf="2024-06-01T00:00:00Z"
    )
    assert later.edges == {
        ("Alice", "WORKS_AT", "Globex"),
        ("Alice", "CONTRIBUTES_TO", "Engram"),
        ("Carol", "WORKS_AT", "Globex"),
        ("Carol", "CONTRIBUTES_TO", "Engram"),
    }


async def test_the_evidence_slide_draws_the_claim_and_what_it_rests_on(people: People) -> None:
    shown = await drawn(people.story.graph, guide_queries.RELATION_EVIDENCE)
    assert shown.edges == {
        ("Alice", "WORKS_AT", "Acme Global"),
        ("Alice works at Acme Global", "SUPPORTED_BY", "alice WORKS_AT acme"),
        ("Alice works at Acme Global", "CORRECTED_BY", "alice left Acme at the end of June 2023"),
    }
    # Unembedded: a claim whose meaning vector is not computed yet (the worker is off here).
    assert shown.labels - {"Unembedded"} == {"Entity", "Person", "Org", "Claim", "Observation"}


async def test_the_before_correction_slide_draws_the_edge_the_correction_replaced(
    people: People,
) -> None:
    shown = await drawn(people.story.graph, guide_queries.BEFORE_CORRECTION)
    assert shown.edges == {
        ("Alice", "WORKS_AT", "Acme Global"),
        ("Alice", "WORKS_AT", "Globex"),
        ("Alice", "CONTRIBUTES_TO", "Engram"),
    }


async def test_the_history_slide_lists_every_revision_with_both_times(people: People) -> None:
    rows = await people.story.graph.read(
        guide_queries.RELATION_HISTORY, **guide_queries.guide_params()
    )
    assert [
        (row["claim"], row["revision"], row["status"], row["validTo"], row["reason"])
        for row in rows
    ] == [
        ("Alice works at Acme Corp", 1, "superseded", None, None),
        ("Alice works at Acme Global", 2, "active", "2023-06-30T00:00:00Z", "she left"),
    ]
    first, second = rows
    assert first["supersededAt"] == second["recordedAt"] is not None
    assert second["supersededAt"] is None


async def test_the_tombstone_slide_shows_what_was_forgotten_without_content(
    people: People,
) -> None:
    rows = await people.story.graph.read(guide_queries.TOMBSTONES, **guide_queries.guide_params())
    assert [{k: v for k, v in row.items() if k != "forgottenAt"} for row in rows] == [
        {
            "selector": "OBSERVATION",
            "reason": "asked to forget",
            "actor": "test",
            "tier": 3,
            "erasedNodes": 1,
            "counts": '{"artifacts": 0, "claims": 0, "entities": 0, "episodes": 0, '
            '"observations": 1}',
        }
    ]
    assert "4321" not in repr(rows)


async def test_every_slide_query_is_one_of_the_tested_constants() -> None:
    tested = {
        guide_queries.CURRENT_GRAPH,
        guide_queries.NEIGHBOURHOOD_AS_OF,
        guide_queries.RELATION_EVIDENCE,
        guide_queries.BEFORE_CORRECTION,
    }
    tested |= {guide_queries.RELATION_HISTORY, guide_queries.TOMBSTONES}
    assert {slide.cypher for slide in SLIDES if slide.cypher} == tested


async def test_engram_serves_the_guide_with_every_slide_and_its_style(
    test_settings: Settings, neo4j_target: Neo4jTarget, tmp_path: Path
) -> None:
    browser_dir = tmp_path / "browser"
    browser_dir.mkdir()
    app = create_app(test_settings, neo4j_target, browser_dir=browser_dir)
    async with running(app) as client:
        page = await client.get("/browser-guide/")
        style = await client.get("/browser-guide/engram.grass")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    text = unescape(page.text)
    assert text.count("<slide ") == len(SLIDES) == 7
    for block in [
        ":style http://engram.test/browser-guide/engram.grass",
        AUTO_CONNECT_OFF,
        params_command(guide_queries.GUIDE_PARAMS),
        *(slide.cypher for slide in SLIDES if slide.cypher),
    ]:
        assert f'<pre class="runnable">{block}</pre>' in text
    assert style.status_code == 200
    assert style.text == browser_style()
    assert (
        'node.Entity {\n  color: #A5ABB6;\n  diameter: 52px;\n  caption: "{name}";\n}' in style.text
    )
    assert "node.Person {\n  color: #68BDF6;\n  diameter: 64px;\n}" in style.text


CLIENT_CONFIG = """
CALL dbms.clientConfig() YIELD name, value
WHERE name STARTS WITH 'browser.' OR name = 'client.allow_telemetry'
RETURN name, value ORDER BY name
"""


async def test_the_local_neo4j_tells_browser_to_fetch_from_engram_and_play_the_guide(
    graph: Graph, test_settings: Settings
) -> None:
    # What Browser reads after connecting: its allow-list for :play/:style and what to run.
    settings = {row["name"]: row["value"] for row in await graph.read(CLIENT_CONFIG)}
    origin = f"http://localhost:{test_settings.port}"
    assert settings["browser.remote_content_hostname_whitelist"] == "localhost,127.0.0.1"
    assert settings["browser.post_connect_cmd"] == (
        f"style {origin}/browser-guide/engram.grass; play {origin}/browser-guide/"
    )
    assert settings["client.allow_telemetry"] == "false"


async def test_a_loopback_or_wildcard_interface_is_spelled_localhost_for_browser() -> None:
    assert guide_origin("127.0.0.1", 8000) == "http://localhost:8000"
    assert guide_origin("0.0.0.0", 8000) == "http://localhost:8000"
    assert guide_origin("engram.example", None, "https") == "https://engram.example"
    assert allowed_guide_hosts("127.0.0.1") == "localhost,127.0.0.1"
    assert allowed_guide_hosts("engram.example") == "localhost,127.0.0.1,engram.example"
