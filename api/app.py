"""The Starlette application: /graphql, /mcp, /healthz, /readyz, Neo4j Browser at /browser and,
in dev mode, GraphiQL at /graphql (its assets at /graphiql/assets).

    app = create_app(settings, resolve_target(settings))
    uvicorn.run(app)

The lifespan owns the one async driver: it connects, hands the driver to neomodel, applies
pending migrations, and closes the driver at shutdown. `/graphql` and `/mcp` (MCP over
streamable HTTP, `api.agent_mcp`) need an API key
(`Authorization: Bearer egk_…` or `X-API-Key`) unless the server runs in dev mode; `/healthz`,
`/readyz` (which says only ready or why not), Neo4j Browser's static files (which talk to
Neo4j with Neo4j's own password) and, in dev mode, GraphiQL's scripts and stylesheet are open.
While it serves, a background worker fills in the claims' meaning vectors from the embedding
outbox (`ENGRAM_EMBED_INTERVAL`, 0 = off) — in one process when several serve together
(`engram serve --workers N`, `background_turn`).

A request passes, outermost first: the timeout and access log (and 503 when Neo4j is
unavailable), the body cap (413), one admission budget for /graphql and /mcp together (503 +
Retry-After; a heavy read costs more of it), the API-key check (401), then the route — so
nothing reaches Neo4j before it is known to be small, admitted and authenticated, and every
step counts against `ENGRAM_REQUEST_TIMEOUT` (`api.guards`).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import quote, urlencode

from cross_web import AsyncHTTPRequestAdapter  # strawberry's HTTP adapters live there
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData
from strawberry.schema import BaseSchema
from strawberry.types import ExecutionResult

from api.agent_mcp.transports import HttpEndpoint
from api.browser_guide_page import guide_routes
from api.graphiql_assets import GraphiQLAssets
from api.graphiql_page import graphiql_response, graphiql_routes
from api.graphql.error_types import neo4j_unavailable
from api.graphql.request_body import PayloadRefused, check_body_is_an_object, decode_request_json
from api.graphql.request_context import EngramContext
from api.graphql.schema import build_schema
from api.guards import Admission, BodyLimit, KeyCheck
from graph.domain.actor import Actor
from graph.domain.errors import SetupError
from graph.memory import Memory
from graph.runtime import GUIDE_PATH, UNAVAILABLE, Neo4jTarget, Settings, guide_origin

log = logging.getLogger("engram")
access_log = logging.getLogger("engram.access")

RETRY_AFTER_UNAVAILABLE = 5
"""Seconds a client is told to wait while Neo4j cannot answer (a restart takes a few)."""


class EngramGraphQL(GraphQL[EngramContext, None]):
    """Strawberry's ASGI view with Engram's context, its JSON limits and its 503 for Neo4j down;
    its IDE is Engram's own GraphiQL page, on when `graphiql` assets are given."""

    def __init__(self, schema: BaseSchema, graphiql: GraphiQLAssets | None) -> None:
        super().__init__(schema, graphql_ide="graphiql" if graphiql is not None else None)
        self.graphiql = graphiql

    async def render_graphql_ide(self, request: Request) -> Response:
        assert self.graphiql is not None  # Strawberry asks only when graphql_ide is set
        return graphiql_response(self.graphiql)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        except PayloadRefused as refused:
            await refused.response()(scope, receive, send)

    def decode_json(self, data: str | bytes) -> object:
        return decode_request_json(data)

    async def parse_http_body(
        self, request: AsyncHTTPRequestAdapter
    ) -> GraphQLRequestData | list[GraphQLRequestData]:
        if request.method == "POST" and "application/json" in (request.content_type or ""):
            check_body_is_an_object(await request.get_body())  # read once, cached by Starlette
        return await super().parse_http_body(request)

    async def process_result(
        self, request: Request, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        # Raised, not answered: EngramMiddleware turns it into 503 with Retry-After.
        if (failure := neo4j_unavailable(request)) is not None:
            raise failure
        return await super().process_result(request, result)

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> EngramContext:
        state = request.app.state
        return EngramContext(
            request=request if isinstance(request, Request) else None,
            response=response if isinstance(response, Response) else None,
            memory=state.memory,
            principal=request.scope["state"]["principal"],
        )


def browser_url(target: Neo4jTarget, origin: str) -> str:
    """Where Neo4j Browser opens: preset to Engram's Bolt URI, user and database, with Engram's
    guide playing (`origin` is where Browser loads Engram from, see `guide_origin`)."""
    scheme, _, address = target.uri.partition("://")
    dbms = f"{scheme}://{quote(target.user, safe='')}@{address}"
    query = urlencode(
        {
            "dbms": dbms,
            "db": target.database,
            "preselectAuthMethod": "NATIVE",
            "cmd": "play",
            "arg": origin + GUIDE_PATH,
        }
    )
    return f"{origin}/browser/?{query}"


class EngramMiddleware:
    """The request timeout, 503 while Neo4j is unavailable, and the structured access log.

    It is the outermost layer, so the timeout covers everything inside it — reading the body,
    waiting for a turn, the API-key lookup — and every answer, refusals included, is logged."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status: dict[str, int | None] = {"code": None}

        async def send_and_note(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            async with asyncio.timeout(self.settings.request_timeout):
                await self.app(scope, receive, send_and_note)
        except TimeoutError:
            response = JSONResponse(
                {"error": f"request took longer than {self.settings.request_timeout:.0f} s"},
                status_code=504,
            )
            await response(scope, receive, send_and_note)
        except UNAVAILABLE as failure:
            if status["code"] is not None:  # already answering: nothing better can be sent now
                raise
            log.warning("Neo4j unavailable: %s", type(failure).__name__)
            response = JSONResponse(
                {"error": "the database is unavailable; try again shortly"},
                status_code=503,
                headers={"Retry-After": str(RETRY_AFTER_UNAVAILABLE)},
            )
            await response(scope, receive, send_and_note)
        finally:
            principal: Actor | None = scope.get("state", {}).get("principal")
            access_log.info(
                json.dumps(
                    {
                        "method": scope.get("method"),
                        "path": scope.get("path"),
                        # No answer sent: Starlette's error handler answers 500 outside us.
                        "status": status["code"] or 500,
                        "ms": round((time.perf_counter() - started) * 1000, 1),
                        "principal": principal.name if principal else None,
                    }
                )
            )


def create_app(
    settings: Settings,
    target: Neo4jTarget,
    *,
    browser_dir: Path | None = None,
    graphiql: GraphiQLAssets | None = None,
    migrate_on_start: bool = True,
    background_lock: Path | None = None,
) -> Starlette:
    """The Engram ASGI app for `target`; Browser is served when `browser_dir` is given, GraphiQL
    in dev mode when its `graphiql` assets are given. One of several processes serving together
    is given their shared `background_lock`: the one that holds it runs the background work
    (`background_turn`)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # Retries end well inside the request timeout, so Neo4j down is answered 503, not 504:
        # the driver stops retrying after retry_time but may first sleep one more back-off
        # (doubling from 1 s), so a quarter of the timeout ends by about half of it.
        memory = await Memory.open(
            settings,
            target,
            retry_time=settings.request_timeout / 4,
            embed_threads=settings.embed_threads,
        )
        try:
            if migrate_on_start:
                for migration in await memory.admin.migrate():
                    log.info("applied migration %s", migration.name)
            with background_turn(background_lock) as ours:
                if ours:
                    # Drain the forget outbox a crash may have left (blob files, space purges).
                    await memory.forgetting.drain_purges()
                app.state.memory = memory
                interval = settings.embed_interval if ours else 0
                async with mcp.running(), embedding_worker(memory, interval):
                    yield
        finally:
            await memory.close()

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        memory: Memory = request.app.state.memory
        try:
            readiness = await memory.admin.readiness()
        except SetupError as failure:
            return JSONResponse({"status": "unready", "reason": str(failure)}, status_code=503)
        except Exception as failure:
            return JSONResponse(
                {"status": "unready", "reason": f"Neo4j unreachable: {type(failure).__name__}"},
                status_code=503,
            )
        if readiness.pending:
            return JSONResponse(
                {"status": "unready", "reason": "pending migrations", "pending": readiness.pending},
                status_code=503,
            )
        return JSONResponse(
            {
                "status": "ready",
                "database": readiness.database,
                "neomodel": {
                    "sharesDriver": readiness.neomodel_shares_driver,
                    "database": readiness.neomodel_database,
                },
            }
        )

    async def browser_redirect(request: Request) -> Response:
        origin = guide_origin(request.url.hostname or "", request.url.port, request.url.scheme)
        return RedirectResponse(browser_url(target, origin))

    schema = build_schema(
        dev=settings.dev,
        max_depth=settings.max_depth,
        max_aliases=settings.max_aliases,
        max_tokens=settings.max_tokens,
    )
    mcp = HttpEndpoint(settings)
    routes: list[Route | Mount] = [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/graphql", EngramGraphQL(schema, graphiql if settings.dev else None)),
        Route("/mcp", mcp),
    ]
    if settings.dev and graphiql is not None:
        routes.extend(graphiql_routes(graphiql))
    if browser_dir is not None:
        routes.append(Route("/browser", browser_redirect))
        routes.extend(guide_routes())
        routes.append(Mount("/browser", StaticFiles(directory=browser_dir, html=True)))

    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[  # outermost first; the order is the point (see the module's docstring)
            Middleware(EngramMiddleware, settings=settings),
            Middleware(BodyLimit, max_bytes=settings.max_body_bytes),
            Middleware(
                Admission, budget=settings.in_flight_per_worker, wait=settings.in_flight_wait
            ),
            Middleware(KeyCheck, settings=settings),
        ],
    )
    app.state.settings = settings
    app.state.target = target
    return app


@contextlib.contextmanager
def background_turn(lock: Path | None) -> Iterator[bool]:
    """Whether this process runs the background work (the embedding worker, the start-up drain
    of the forget outbox): always when it serves alone (`lock` None); else when it takes the
    exclusive lock on the file its sibling processes share, held while it serves. Exactly one
    of them gets it (the others would compute the same vectors again); when that one dies,
    `engram serve` starts another in its place, which takes it."""
    if lock is None:
        yield True
        return
    with lock.open("a") as held:
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)


@asynccontextmanager
async def embedding_worker(memory: Memory, interval: float) -> AsyncIterator[None]:
    """Fill in meaning vectors in the background while the app serves (off when interval is 0)."""
    if interval <= 0:
        yield
        return

    async def work() -> None:
        failures = 0
        every_space = True  # the first drain also promotes spaces that grew before V0014
        while True:
            try:
                stored = await memory.admin.embed_pending(every_space=every_space)
                failures, every_space = 0, False
                if stored:
                    log.info("embedded %d claims", stored)
            except Exception:
                failures += 1
                log.exception("the embedding worker failed (%d in a row); it tries again", failures)
            # After failures, wait longer (up to a minute) instead of repeating the same error.
            await asyncio.sleep(min(interval * 2**failures, max(interval, 60.0)))

    task = asyncio.create_task(work(), name="engram-embedding-worker")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
