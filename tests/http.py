"""An in-process Engram app with its lifespan running, and a GraphQL helper."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from starlette.applications import Starlette


@asynccontextmanager
async def running(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    """The app's lifespan entered (driver, neomodel, migrations) and a client bound to it."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://engram.test") as client:
            yield client


async def gql(
    client: httpx.AsyncClient, query: str, variables: dict[str, Any] | None = None, **kw: Any
) -> dict[str, Any]:
    response = await client.post("/graphql", json={"query": query, "variables": variables}, **kw)
    body: dict[str, Any] = response.json()
    return body
