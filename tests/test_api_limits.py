"""Limits and hygiene: depth, aliases, tokens, page sizes, masked errors, no N+1."""

from __future__ import annotations

import uuid

import httpx
import pytest
from strawberry.extensions.validation_cache import _get_validate_cache

from api.app import create_app
from graph.runtime import Graph, Neo4jTarget, Settings
from tests.http import gql, running
from tests.story import Story, new_story


@pytest.fixture
async def story(graph: Graph) -> Story:
    return await new_story(graph)


async def test_an_over_deep_query_is_refused(
    story: Story, test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    shallow = test_settings.model_copy(update={"max_depth": 2})
    three = '{ claims(space: "alice") { nodes { key } } }'
    four = '{ claims(space: "alice") { nodes { subject { name } } } }'
    async with running(create_app(shallow, neo4j_target)) as client:
        assert "errors" not in await gql(client, three)
        body = await gql(client, four)
    assert body["data"] is None
    assert "'anonymous' exceeds maximum operation depth of 2" in body["errors"][0]["message"]


async def test_an_over_aliased_query_is_refused(story: Story, client: httpx.AsyncClient) -> None:
    aliases = " ".join(f"a{i}: spaces {{ name }}" for i in range(21))
    body = await gql(client, "{ " + aliases + " }")
    assert "21 aliases found. Allowed: 20" in body["errors"][0]["message"]


async def test_a_document_is_validated_once_and_then_answered_from_the_validation_cache(
    story: Story, client: httpx.AsyncClient
) -> None:
    """The depth and alias limits are the same rules for every request, so the cache (keyed by
    the document and the rules) knows a document it has validated; strawberry's cache is
    private, so its counters are read through its own accessor."""
    cache = _get_validate_cache(256)
    document = "{ s" + uuid.uuid4().hex + ": spaces { name } }"
    before = cache.cache_info()
    assert "errors" not in await gql(client, document)
    first = cache.cache_info()
    assert "errors" not in await gql(client, document)
    second = cache.cache_info()
    assert (first.misses - before.misses, first.hits - before.hits) == (1, 0)
    assert (second.misses - first.misses, second.hits - first.hits) == (0, 1)


async def test_an_over_long_query_is_refused(story: Story, client: httpx.AsyncClient) -> None:
    fields = " ".join("name" for _ in range(2100))
    body = await gql(client, "{ spaces { " + fields + " } }")
    assert (
        "Document contains more than 2000 tokens. Parsing aborted." in body["errors"][0]["message"]
    )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ('{ claims(space: "alice", first: 101) { nodes { key } } }', "first must be between 1"),
        (
            '{ related(space: "alice", entity: {key: "entity:person:x"}, hops: 5) { truncated } }',
            "hops must be between 1 and 4",
        ),
        ('{ search(space: "alice", query: "x", first: 51) { score } }', "first must be between"),
        ('{ context(space: "alice", budgetBytes: 0) { text } }', "budgetBytes must be between"),
    ],
)
async def test_an_over_wide_request_is_a_validation_error(
    story: Story, client: httpx.AsyncClient, query: str, message: str
) -> None:
    body = await gql(client, query)
    [error] = body["errors"]
    assert error["extensions"]["code"] == "VALIDATION"
    assert message in error["message"]


async def test_related_reports_truncation_instead_of_cutting_silently(
    story: Story, client: httpx.AsyncClient
) -> None:
    await story.entity("entity:org:hub", "Hub")
    for i in range(6):
        await story.entity(f"entity:person:p{i}", f"P{i}")
        said = await story.say(f"p{i} works at hub")
        await story.remember(
            said,
            type="fact",
            subject={"key": f"entity:person:p{i}"},
            predicate="WORKS_AT",
            object={"key": "entity:org:hub"},
        )
    query = """query($first: Int!) { related(space: "alice", entity: {key: "entity:org:hub"},
        first: $first) { nodes { distance } truncated } }"""
    small = (await gql(client, query, {"first": 4}))["data"]["related"]
    assert (len(small["nodes"]), small["truncated"]) == (4, True)
    whole = (await gql(client, query, {"first": 50}))["data"]["related"]
    assert (len(whole["nodes"]), whole["truncated"]) == (7, False)


async def test_a_page_of_claims_with_nested_fields_costs_a_constant_number_of_queries(
    story: Story, client: httpx.AsyncClient
) -> None:
    await story.entity("entity:org:acme", "Acme")
    query = """{ claims(space: "alice", first: 100) { nodes {
        key subject { name } object { name } evidence { text kind } } } }"""
    counts = []
    for people in (2, 12):
        for i in range(len(counts) * 2, people):
            await story.entity(f"entity:person:q{i}", f"Q{i}")
            said = await story.say(f"q{i} works at acme")
            await story.remember(
                said,
                type="fact",
                subject={"key": f"entity:person:q{i}"},
                predicate="WORKS_AT",
                object={"key": "entity:org:acme"},
            )
        body = await gql(client, query)
        assert "errors" not in body
        counts.append((len(body["data"]["claims"]["nodes"]), body["extensions"]["queries"]))
    (few, few_queries), (many, many_queries) = counts
    assert many > few * 4
    assert few_queries == many_queries == 4, "view + page + evidence batch + entity batch"


async def test_an_unexpected_failure_is_masked(
    story: Story, client: httpx.AsyncClient, graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    import graph.reads.listing as listing

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret internals: bolt://user:pw@db")

    monkeypatch.setattr(listing, "list_claims", broken)
    body = await gql(client, '{ claims(space: "alice") { nodes { key } } }')
    assert body["errors"] == [
        {
            "message": "Unexpected error.",
            "locations": [{"line": 1, "column": 3}],
            "path": ["claims"],
        }
    ]
