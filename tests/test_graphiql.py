"""GraphiQL in dev mode, offline: Engram's own page, its assets from WebJars served by Engram."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

import pytest

from api.app import create_app
from api.cli.serving import graphiql_for
from api.graphiql_assets import GraphiQLAssets, graphiql_assets
from api.graphiql_page import EXAMPLE_QUERY
from graph.domain.actor import Grant
from graph.domain.vocabulary import Privacy
from graph.memory import Memory
from graph.runtime import Graph, Neo4jTarget, Settings
from tests.http import gql, running
from tests.people_story import people_story

HTML = {"accept": "text/html"}
ASSETS = [
    "/graphiql/assets/graphiql/2.4.7/graphiql.min.css",
    "/graphiql/assets/react/18.2.0/umd/react.production.min.js",
    "/graphiql/assets/react-dom/18.2.0/umd/react-dom.production.min.js",
    "/graphiql/assets/graphiql/2.4.7/graphiql.min.js",
]
"""In the page's order: the stylesheet, then React before ReactDOM before GraphiQL."""


@pytest.fixture(scope="session")
def assets(test_settings: Settings) -> GraphiQLAssets:
    return graphiql_assets(test_settings.cache_dir)


def _inline_script(page: str) -> str:
    [script] = re.findall(r"<script>(.*?)</script>", page, re.DOTALL)
    return str(script)


async def test_the_page_references_only_engrams_origin_and_every_asset_is_served_by_engram(
    test_settings: Settings, neo4j_target: Neo4jTarget, assets: GraphiQLAssets
) -> None:
    async with running(create_app(test_settings, neo4j_target, graphiql=assets)) as client:
        page = await client.get("/graphql", headers=HTML)
        referenced = re.findall(r'(?:src|href)="([^"]*)"', page.text)
        served = {path: await client.get(path) for path in referenced[1:]}
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert re.findall(r"https?://", page.text) == [], "no URL of any other origin"
    assert referenced == ["data:,", *ASSETS], "an empty icon, so no /favicon.ico is asked"
    assert {path: response.status_code for path, response in served.items()} == dict.fromkeys(
        ASSETS, 200
    )
    assert {path: response.headers["content-type"] for path, response in served.items()} == {
        ASSETS[0]: "text/css; charset=utf-8",
        **dict.fromkeys(ASSETS[1:], "text/javascript; charset=utf-8"),
    }
    assert "GraphiQL.createFetcher" in served[ASSETS[3]].text
    assert "ReactDOM" not in served[ASSETS[1]].text[:200]  # React's own bundle, not ReactDOM's
    assert "font-family" in served[ASSETS[0]].text


async def test_the_browser_is_kept_on_engrams_origin_and_only_the_pages_own_script_runs(
    test_settings: Settings, neo4j_target: Neo4jTarget, assets: GraphiQLAssets
) -> None:
    async with running(create_app(test_settings, neo4j_target, graphiql=assets)) as client:
        page = await client.get("/graphql", headers=HTML)
    digest = base64.b64encode(hashlib.sha256(_inline_script(page.text).encode()).digest())
    assert page.headers["content-security-policy"] == (
        "default-src 'self'; "
        f"script-src 'self' 'sha256-{digest.decode()}'; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'"
    )


async def test_the_page_opens_on_engrams_example_query_with_a_word_on_api_key_headers(
    test_settings: Settings, neo4j_target: Neo4jTarget, assets: GraphiQLAssets
) -> None:
    async with running(create_app(test_settings, neo4j_target, graphiql=assets)) as client:
        page = await client.get("/graphql", headers=HTML)
    [default_query] = re.findall(r"defaultQuery: (\".*\"),\n", _inline_script(page.text))
    assert json.loads(default_query) == EXAMPLE_QUERY
    assert '{"Authorization": "Bearer egk_…"}' in EXAMPLE_QUERY
    assert '{"X-API-Key": "egk_…"}' in EXAMPLE_QUERY
    assert 'search(space: "alice", query: "where does alice work",' in EXAMPLE_QUERY
    assert 'related(space: "alice",' in EXAMPLE_QUERY
    assert "<title>Engram GraphiQL</title>" in page.text


async def test_the_example_query_answers_on_the_people_story(
    test_settings: Settings, neo4j_target: Neo4jTarget, graph: Graph, assets: GraphiQLAssets
) -> None:
    await people_story(graph)
    async with running(create_app(test_settings, neo4j_target, graphiql=assets)) as client:
        answer = await gql(client, EXAMPLE_QUERY)
    assert "errors" not in answer
    related = answer["data"]["related"]
    assert sorted((n["distance"], n["entity"]["name"]) for n in related["nodes"]) == [
        (0, "Alice"),
        (1, "Engram"),
        (1, "Globex"),
        (2, "Carol"),
    ]
    hits = answer["data"]["search"]
    assert "fact:person/alice:WORKS_AT:org/globex" in [hit["claim"]["key"] for hit in hits]


async def test_graphiql_is_off_in_production_and_its_assets_are_not_served(
    memory: Memory, test_settings: Settings, neo4j_target: Neo4jTarget, assets: GraphiQLAssets
) -> None:
    production = test_settings.model_copy(update={"dev": False})
    async with running(create_app(production, neo4j_target, graphiql=assets)) as client:
        assert (await client.get("/graphql", headers=HTML)).status_code == 401
        issued = await memory.admin.create_key("reader", [Grant("alice", Privacy.NORMAL)])
        with_key = {**HTML, "authorization": f"Bearer {issued.secret}"}
        assert (await client.get("/graphql", headers=with_key)).status_code == 404
        assert (await client.get(ASSETS[3])).status_code == 404


async def test_only_the_pages_own_files_are_served_from_the_assets(
    test_settings: Settings, neo4j_target: Neo4jTarget, assets: GraphiQLAssets
) -> None:
    async with running(create_app(test_settings, neo4j_target, graphiql=assets)) as client:
        statuses = [
            (await client.get(f"/graphiql/assets/{path}")).status_code
            for path in (
                "graphiql/2.4.7/graphiql.js",
                "graphiql/2.4.7/%2e%2e/%2e%2e/react/18.2.0/umd/react.production.min.js",
                "react/18.2.0/umd/react.development.js",
            )
        ]
    assert statuses == [404, 404, 404]


async def test_dev_mode_without_graphiqls_assets_serves_the_api_but_no_page(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    async with running(create_app(test_settings, neo4j_target)) as client:
        assert (await client.get("/graphql", headers=HTML)).status_code == 404
        assert (await gql(client, "{ spaces { name } }"))["data"] == {"spaces": []}


def test_serve_in_dev_mode_without_maven_goes_on_without_graphiql_and_says_why(
    test_settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no mvn, as in the Docker image
    fresh = test_settings.model_copy(update={"cache_dir": tmp_path / "cache"})
    assert graphiql_for(fresh) is None
    assert capsys.readouterr().err == (
        "GraphiQL is off: Maven (`mvn`) is needed once to fetch GraphiQL from Maven Central; "
        "install Maven (the GraphQL API itself needs no GraphiQL)\n"
    )
    assert graphiql_for(test_settings.model_copy(update={"dev": False})) is None, "not asked"
