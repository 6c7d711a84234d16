"""The Starlette application: /graphql, /healthz, /readyz and Neo4j Browser at /browser.

    >>> app = create_app(settings, resolve_target(settings))
    >>> uvicorn.run(app)

The lifespan owns the one async driver: it connects, hands the driver to neomodel, applies
pending migrations, and closes the driver at shutdown.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL

from api.context import EngramContext
from api.schema import schema
from graph.db import Graph, Neo4jTarget, connect
from graph.errors import SetupError
from graph.migrate import migrate, pending
from graph.neomodel_bridge import neomodel_driver_is, release_driver, share_driver
from graph.settings import Settings

log = logging.getLogger("engram")


class EngramGraphQL(GraphQL[EngramContext, None]):
    """Strawberry's ASGI view with Engram's context."""

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> EngramContext:
        app_state = request.app.state
        return EngramContext(
            request=request if isinstance(request, Request) else None,
            response=response if isinstance(response, Response) else None,
            graph=app_state.graph,
            settings=app_state.settings,
        )


def browser_url(target: Neo4jTarget, public_base: str = "") -> str:
    """Where Neo4j Browser opens, preset to Engram's Bolt URI and user."""
    return f"{public_base}/browser/?dbms={quote(target.uri, safe='')}&preselectAuthMethod=NATIVE"


def create_app(
    settings: Settings,
    target: Neo4jTarget,
    *,
    browser_dir: Path | None = None,
    migrate_on_start: bool = True,
) -> Starlette:
    """The Engram ASGI app for `target`; Browser is served when `browser_dir` is given."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        graph = await connect(target)
        try:
            await share_driver(graph)
            if migrate_on_start:
                applied = await migrate(graph)
                for migration in applied:
                    log.info("applied migration %s", migration.name)
            app.state.graph = graph
            yield
        finally:
            await release_driver()
            await graph.close()

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        graph: Graph = request.app.state.graph
        try:
            await graph.driver.verify_connectivity()
            waiting = await pending(graph)
        except SetupError as failure:
            return JSONResponse({"status": "unready", "reason": str(failure)}, status_code=503)
        except Exception as failure:
            return JSONResponse(
                {"status": "unready", "reason": f"Neo4j unreachable: {type(failure).__name__}"},
                status_code=503,
            )
        if waiting:
            names = [m.name for m in waiting]
            return JSONResponse(
                {"status": "unready", "reason": "pending migrations", "pending": names},
                status_code=503,
            )
        body: dict[str, Any] = {
            "status": "ready",
            "neo4j": target.uri,
            "database": graph.database,
            "neomodel": neomodel_driver_is(graph),
        }
        return JSONResponse(body)

    async def browser_redirect(request: Request) -> Response:
        return RedirectResponse(browser_url(target))

    routes: list[Route | Mount] = [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/graphql", EngramGraphQL(schema, graphql_ide="graphiql" if settings.dev else None)),
    ]
    if browser_dir is not None:
        routes.append(Route("/browser", browser_redirect))
        routes.append(Mount("/browser", StaticFiles(directory=browser_dir, html=True)))

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.settings = settings
    app.state.target = target
    return app
