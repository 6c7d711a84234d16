"""The README's example queries are real: they run against the people story as written."""

from __future__ import annotations

import re
from pathlib import Path

from api.app import create_app
from graph.store.db import Graph, Neo4jTarget
from graph.store.settings import Settings
from tests.http import gql, running
from tests.people_story import people_story

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
EXAMPLES = re.findall(r"```graphql\n(.*?)```", README, flags=re.DOTALL)


async def test_the_readmes_related_explain_and_correct_examples_work_on_the_people_story(
    graph: Graph, test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    assert len(EXAMPLES) == 7
    people = await people_story(graph)
    related, explain, correction, *_ = EXAMPLES
    [observation] = await graph.read(
        "MATCH (o:Observation) WHERE o.content STARTS WITH 'alice WORKS_AT acme' RETURN o.id AS id"
    )
    [current] = await graph.read(
        "MATCH (c:Claim {key: 'fact:person/bob:WORKS_AT:org/acme'}) RETURN c.id AS id"
    )
    correction = correction.replace('claimId: "…"', f'claimId: "{current["id"]}"').replace(
        'observationId: "…"', f'observationId: "{observation["id"]}"'
    )
    async with running(create_app(test_settings, neo4j_target)) as client:
        near = await gql(client, related)
        why = await gql(client, explain)
        fixed = await gql(client, correction)
    assert [n["entity"]["key"] for n in near["data"]["related"]["nodes"]] == [
        "entity:person:alice",
        "entity:org:acme",
        "entity:person:bob",
    ]
    [path] = why["data"]["explainRelation"]["paths"]
    assert [s["to"]["name"] for s in path["steps"]] == ["Acme Global", "Bob"]
    assert fixed["data"]["correct"]["errors"] == []
    assert fixed["data"]["correct"]["claim"]["revision"] == 2
    assert people.claims["bob-acme"].revision == 1


async def test_the_readmes_messages_example_finds_what_was_said_in_the_window(
    graph: Graph, test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    said = EXAMPLES[3]
    assert said.lstrip().startswith("{\n  messages(")
    await people_story(graph)
    async with running(create_app(test_settings, neo4j_target)) as client:
        answer = await gql(client, said)
    assert "errors" not in answer, answer
    assert [
        (m["observation"]["content"], m["observation"]["role"], m["sources"])
        for m in answer["data"]["messages"]
    ] == [("alice left Acme at the end of June 2023", "USER", ["words"])]


async def test_the_readmes_facts_in_any_order_answer_as_it_says(
    graph: Graph, test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    *_, first, later, reads = EXAMPLES
    async with running(create_app(test_settings, neo4j_target)) as client:
        # A space as the README makes it, with Engram's default rules (WORKS_AT is ONE).
        await gql(client, 'mutation { createSpace(name: "alice") { space { id } } }')
        for mutation in (first, later):
            told = await gql(client, mutation)
            assert "errors" not in told and told["data"]["rememberMany"]["claims"], told
        answer = (await gql(client, reads))["data"]
    shown = {
        view: [
            (r["to"]["name"], r["validFrom"][:10], (r["validTo"] or "(open)")[:10])
            for r in answer[view]["relations"]
        ]
        for view in ("in2021", "in2022", "in2023", "now")
    }
    assert shown == {
        "in2021": [("Pinecrest Labs", "2020-01-01", "2022-01-01")],
        "in2022": [("Initech", "2022-01-01", "2022-07-01")],
        "in2023": [("Pinecrest AI", "2022-07-01", "2024-03-01")],
        "now": [("Globex", "2024-03-01", "(open)")],
    }
    assert answer["byTodaysName"] == {"name": "Pinecrest Labs"}
    assert sorted(n["entity"]["name"] for n in answer["lookedUp"]["nodes"]) == [
        "Mara Lind",
        "Pinecrest Labs",
    ]
