"""The GraphQL side of the read benches: the queries a client sends for `related` and
`explainRelation` (names, claims and evidence selected — what a client actually waits for), and
Engram's app in this process to send them to (httpx over ASGI, dev mode, no API key).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from api.app import create_app
from graph.runtime import Neo4jTarget, Settings, get_settings, resolve_target

GQL_RELATED = """
query Related($space: String!, $id: ID!, $asOf: DateTime!, $hops: Int!, $first: Int!) {
  related(space: $space, entity: {id: $id}, hops: $hops, first: $first, asOf: $asOf) {
    truncated
    nodes { distance entity { id key name } }
    relations { type claimId claimKey validFrom validTo confidence }
  }
}
"""

GQL_EXPLAIN = """
query Explain($space: String!, $from: ID!, $to: ID!, $asOf: DateTime!, $hops: Int!,
              $first: Int!) {
  explainRelation(space: $space, from: {id: $from}, to: {id: $to}, maxHops: $hops,
                  first: $first, asOf: $asOf) {
    reason
    paths {
      length
      steps {
        direction
        from { key name }
        to { key name }
        relation { type validFrom validTo }
        claim { key text confidence }
        evidence { kind text observedAt }
      }
    }
  }
}
"""


class GraphQLClient:
    """Engram's GraphQL app in this process (dev mode: no API key), its lifespan running."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def query(self, query: str, variables: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """The `data` of the answer and the Cypher queries the server ran for it."""
        response = await self.client.post("/graphql", json={"query": query, "variables": variables})
        body: dict[str, Any] = response.json()
        if body.get("errors"):
            raise RuntimeError(f"GraphQL errors: {body['errors']}")
        return body["data"], int(body.get("extensions", {}).get("queries", 0))


@asynccontextmanager
async def graphql_client(
    settings: Settings | None = None, target: Neo4jTarget | None = None
) -> AsyncIterator[GraphQLClient]:
    """The app on the configured Neo4j (or `target`), in dev mode, its embedding worker off."""
    settings = (settings or get_settings()).model_copy(update={"dev": True, "embed_interval": 0})
    app = create_app(settings, target or resolve_target(settings), migrate_on_start=False)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://engram.bench") as client:
            yield GraphQLClient(client)
