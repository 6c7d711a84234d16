"""Cypher queries per GraphQL request, as the server reports them in `extensions.queries`.

    python -m bench.request_costs

Builds a small story in a fresh `bench-costs-…` space through GraphQL only (so the same script
measures any version of Engram), then runs each read the API serves and each mutation once and
prints one table. The bound the tests keep is in tests/test_request_costs.py; this prints the
numbers themselves, e.g. to compare two commits.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import httpx
from rich.console import Console

from api.app import create_app
from graph.runtime import get_settings, resolve_target

console = Console()
SPACE = f"bench-costs-{secrets.token_hex(3)}"

STORY = [
    ("mutation($s: String!) { createSpace(name: $s) { errors { code } } }", {}),
    (
        'mutation($s: String!) { openEpisode(space: $s, input: {title: "chat"}) '
        "{ episode { id } errors { code } } }",
        {},
    ),
]

READS = {
    "entity": '{ entity(space: "$S", key: "entity:person:alice") { name } }',
    "claims (evidence, subject, object)": '{ claims(space: "$S", first: 50) { nodes { key '
    "evidence { text } subject { name } object { name } } } }",
    "related 2 hops (names, from/to)": '{ related(space: "$S", entity: {key: '
    '"entity:person:alice"}, hops: 2) { nodes { entity { name } } relations { from { name } '
    "to { name } } } }",
    "explainRelation (names, claim, evidence)": '{ explainRelation(space: "$S", from: {key: '
    '"entity:person:alice"}, to: {key: "entity:person:bob"}) { paths { steps { from { name } '
    "to { name } claim { key } evidence { text } } } } }",
    "search (claim, evidence)": '{ search(space: "$S", query: "acme") { claim { key '
    "evidence { text } } } }",
    "context": '{ context(space: "$S") { text } }',
    "claimHistory": '{ claimHistory(space: "$S", key: "pref:ui:theme") { revision '
    "evidence { text } } }",
}


async def post(client: httpx.AsyncClient, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    response = await client.post("/graphql", json={"query": query, "variables": variables})
    body: dict[str, Any] = response.json()
    if body.get("errors"):
        raise RuntimeError(f"{query[:60]}…: {body['errors']}")
    return body


async def main() -> None:
    settings = get_settings().model_copy(update={"dev": True, "embed_interval": 0})
    app = create_app(settings, resolve_target(settings))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            rows = await measure(client)
    console.print(f"Cypher queries per GraphQL request (space {SPACE})")
    for name, queries in rows:
        console.print(f"  {name:<42} {queries:>3}")


async def measure(client: httpx.AsyncClient) -> list[tuple[str, int]]:
    await post(client, STORY[0][0], {"s": SPACE})
    opened = await post(client, STORY[1][0], {"s": SPACE})
    episode = opened["data"]["openEpisode"]["episode"]["id"]

    async def say(text: str) -> str:
        body = await post(
            client,
            "mutation($s: String!, $e: ID!, $t: String!) { recordObservation(space: $s, "
            "input: {episodeId: $e, content: $t}) { observation { id } } }",
            {"s": SPACE, "e": episode, "t": text},
        )
        return str(body["data"]["recordObservation"]["observation"]["id"])

    remember = (
        "mutation($s: String!, $i: RememberInput!) { remember(space: $s, input: $i) "
        "{ claim { id key evidence { text } subject { name } } errors { code } } }"
    )
    for key, name in (("alice", "Alice"), ("bob", "Bob")):
        obs = await say(f"{name} exists")
        await post(
            client,
            remember,
            {
                "s": SPACE,
                "i": {
                    "key": f"entity:person:{key}",
                    "value": {"name": name},
                    "evidence": [{"observationId": obs}],
                },
            },
        )
    obs = await say("Acme exists")
    await post(
        client,
        remember,
        {
            "s": SPACE,
            "i": {
                "key": "entity:org:acme",
                "value": {"name": "Acme"},
                "evidence": [{"observationId": obs}],
            },
        },
    )
    for person in ("alice", "bob"):
        obs = await say(f"{person} works at acme")
        await post(
            client,
            remember,
            {
                "s": SPACE,
                "i": {
                    "type": "FACT",
                    "subject": {"key": f"entity:person:{person}"},
                    "predicate": "WORKS_AT",
                    "object": {"key": "entity:org:acme"},
                    "evidence": [{"observationId": obs}],
                },
            },
        )
    obs = await say("I like dark mode")
    theme = await post(
        client,
        remember,
        {
            "s": SPACE,
            "i": {
                "key": "pref:ui:theme",
                "value": {"value": "dark"},
                "evidence": [{"observationId": obs}],
            },
        },
    )
    theme_id = theme["data"]["remember"]["claim"]["id"]

    rows: list[tuple[str, int]] = []
    for name, query in READS.items():
        body = await post(client, query.replace("$S", SPACE), {})
        rows.append((name, int(body["extensions"]["queries"])))

    obs = await say("alice likes acme")
    body = await post(
        client,
        remember,
        {
            "s": SPACE,
            "i": {
                "type": "FACT",
                "subject": {"key": "entity:person:alice"},
                "predicate": "LIKES",
                "object": {"key": "entity:org:acme"},
                "evidence": [{"observationId": obs}],
            },
        },
    )
    rows.append(("remember (claim, evidence, subject)", int(body["extensions"]["queries"])))
    obs = await say("now light mode")
    body = await post(
        client,
        "mutation($s: String!, $c: ID!, $o: ID!) { correct(space: $s, input: {claimId: $c, "
        'kind: SUPERSEDE, value: {value: "light"}, evidence: [{observationId: $o}], '
        'reason: "changed"}) { claim { key evidence { text } } errors { code } } }',
        {"s": SPACE, "c": theme_id, "o": obs},
    )
    rows.append(("correct (claim, evidence)", int(body["extensions"]["queries"])))
    body = await post(
        client,
        "mutation($s: String!, $e: ID!) { recordObservation(space: $s, input: {episodeId: $e, "
        'content: "hi"}) { observation { id } } }',
        {"s": SPACE, "e": episode},
    )
    rows.append(("recordObservation", int(body["extensions"]["queries"])))
    return rows


if __name__ == "__main__":
    asyncio.run(main())
