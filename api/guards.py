"""Guards every request to /graphql and /mcp passes before it reaches Neo4j: a cap on bodies, one
admission budget for the whole process, and the API-key check.

    app = Starlette(middleware=[
        Middleware(BodyLimit, max_bytes=1_048_576),            # 413 before anything is parsed
        Middleware(Admission, budget=16, wait=2.0),            # 503 + Retry-After beyond it
        Middleware(KeyCheck, settings=settings),               # 401, saying why
        ...
    ])

All answer before any Neo4j work, so a flood of huge bodies or heavy reads costs the server
little and leaves `/healthz` and `/readyz` (never limited) answering at once. A refusal is shaped
for the door it comes through: on /graphql a GraphQL error with its `extensions.code`, on /mcp a
JSON-RPC error the MCP client reports as it is (`UNAUTHENTICATED: …`, `BUSY: …`).
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph.domain.actor import Actor
from graph.memory import DEV_ACTOR, Memory
from graph.runtime import Settings

RETRY_AFTER_BUSY = 1
"""Seconds a client is told to wait when the budget is spent; work is short, turns come soon."""

GUARDED = ("/graphql", "/mcp")

HEAVY = 4
"""What a heavy read costs of the budget (a light request costs 1): a walk of 3 or 4 hops, an
explanation — the reads whose work grows fastest with the graph."""

JSONRPC_UNAUTHORIZED = -32001
JSONRPC_BUSY = -32000


def refusal(scope: Scope, status: int, code: str, message: str, **headers: str) -> JSONResponse:
    """A request refused whole, as its door speaks: MCP's JSON-RPC error, or GraphQL's error
    (with `error` too, for a plain HTTP client)."""
    if scope["path"].startswith("/mcp"):
        rpc = JSONRPC_UNAUTHORIZED if status == 401 else JSONRPC_BUSY
        body: dict[str, Any] = {
            "jsonrpc": "2.0",
            "id": _request_id(scope.get("state", {}).get("body", b"")),
            "error": {"code": rpc, "message": f"{code}: {message}", "data": {"code": code}},
        }
    else:
        body = {"error": message, "errors": [{"message": message, "extensions": {"code": code}}]}
    return JSONResponse(body, status_code=status, headers=headers)


def _request_id(body: bytes) -> str | int | None:
    """The JSON-RPC id of the request refused, so the client matches the error to its call
    (None when the body names none or cannot be read, as JSON-RPC says)."""
    try:
        request = json.loads(body) if body else None
    except (ValueError, RecursionError):
        return None
    found = request.get("id") if isinstance(request, dict) else None
    return found if isinstance(found, str | int) and not isinstance(found, bool) else None


class BodyLimit:
    """413 for a body larger than `max_bytes`: at once when Content-Length says so, else as soon
    as the bytes read pass the cap. The body is read whole before the app runs, so a slow upload
    never holds a share of the admission budget."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self._declared_length(scope) > self.max_bytes:
            await self._too_large(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: nothing to answer
                return
            chunk: bytes = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._too_large(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        scope.setdefault("state", {})["body"] = body
        await self.app(scope, replaying(body, receive), send)

    @staticmethod
    def _declared_length(scope: Scope) -> int:
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    return int(value)
                except ValueError:
                    return 0  # malformed: counted as it streams instead
        return 0

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = JSONResponse(
            {"error": f"the request body is larger than {self.max_bytes} bytes"},
            status_code=413,
            # The unread rest of the body makes the connection unusable for another request.
            headers={"Connection": "close"},
        )
        await response(scope, receive, send)


def replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the app `body` (already read) once, then what the client sends."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if replayed:
            return await receive()  # only http.disconnect can come now
        replayed = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


_DEEP_HOPS = re.compile(r"\b(?:hops|maxHops)\s*:\s*[34]\b")
_HOPS_VARIABLE = re.compile(r"\b(?:hops|maxHops)\s*:\s*\$(\w+)")


def cost(path: str, body: bytes) -> int:
    """What a request costs of the budget: `HEAVY` for a walk of 3 or 4 hops or an explanation
    (on either door), else 1. Read from the body without trusting it: anything unreadable is
    light, and is refused later by its door."""
    try:
        request = json.loads(body) if body else None
    except (ValueError, RecursionError):  # not JSON, or nested past what a door accepts
        return 1
    if not isinstance(request, dict):
        return 1
    if path.startswith("/mcp"):
        params = request.get("params") if request.get("method") == "tools/call" else None
        tool = params.get("name") if isinstance(params, dict) else None
        arguments = params.get("arguments") if isinstance(params, dict) else None
        hops = arguments.get("hops") if isinstance(arguments, dict) else None
        deep = isinstance(hops, int) and hops >= 3
        return HEAVY if tool == "explain_relation" or (tool == "related" and deep) else 1
    query = request.get("query")
    variables = request.get("variables")
    if not isinstance(query, str):
        return 1
    given = variables if isinstance(variables, dict) else {}
    deep_variable = any(
        _deep(given[name]) if name in given else _deep_default(query, name)
        for name in _HOPS_VARIABLE.findall(query)
    )
    heavy = "explainRelation" in query or _DEEP_HOPS.search(query) or deep_variable
    return HEAVY if heavy else 1


def _deep(hops: object) -> bool:
    return isinstance(hops, int) and not isinstance(hops, bool) and hops >= 3


def _deep_default(query: str, variable: str) -> bool:
    """Whether `$variable` is declared with a default of 3 or more hops (`$h: Int = 3`)."""
    declared = re.search(rf"\${re.escape(variable)}\s*:\s*Int!?\s*=\s*(\d+)", query)
    return declared is not None and int(declared.group(1)) >= 3


class Admission:
    """One budget for every request to /graphql and /mcp in the process: `budget` units, a
    light request costing 1 and a heavy read `HEAVY` (`cost`). A request the budget cannot hold
    waits up to `wait` seconds for its share and is then answered 503 with Retry-After — never
    queued without end, never left to pile up on Neo4j's connection pool."""

    def __init__(self, app: ASGIApp, budget: int, wait: float) -> None:
        self.app = app
        self.wait = wait
        self.budget = budget
        self.free = budget
        self.turns = asyncio.Condition()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(GUARDED):
            await self.app(scope, receive, send)
            return
        share = min(cost(scope["path"], scope.get("state", {}).get("body", b"")), self.budget)
        try:
            async with asyncio.timeout(self.wait), self.turns:
                await self.turns.wait_for(lambda: self.free >= share)
                self.free -= share
        except TimeoutError:
            busy = refusal(
                scope,
                503,
                "BUSY",
                f"the server is busy; try again in {RETRY_AFTER_BUSY} s",
                **{"Retry-After": str(RETRY_AFTER_BUSY)},
            )
            await busy(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            async with self.turns:
                self.free += share
                self.turns.notify_all()


NO_KEY = "an API key is needed (Authorization: Bearer egk_… or X-API-Key: egk_…)"
UNKNOWN_KEY = "this key is not known or was revoked"


class KeyCheck:
    """Who asks on /graphql and /mcp: the API key's principal, or 401 saying why — no key, or a
    key that is not known or was revoked (one answer for both, so it tells a stranger nothing).
    Inside the admission budget, so a flood of keyed requests waits for a turn before it costs
    Neo4j a key lookup."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(GUARDED):
            await self.app(scope, receive, send)
            return
        presented = None if self.settings.dev else presented_key(scope)
        principal = await self._principal(scope, presented)
        if principal is None:
            why = NO_KEY if not presented else UNKNOWN_KEY
            refused = refusal(
                scope, 401, "UNAUTHENTICATED", why, **{"WWW-Authenticate": 'Bearer realm="engram"'}
            )
            await refused(scope, receive, send)
            return
        scope.setdefault("state", {})["principal"] = principal
        await self.app(scope, receive, send)

    async def _principal(self, scope: Scope, presented: str | None) -> Actor | None:
        if self.settings.dev:
            return DEV_ACTOR
        if not presented:
            return None
        memory: Memory = scope["app"].state.memory
        return await memory.admin.authenticate(presented)


def presented_key(scope: Scope) -> str | None:
    """The API key a request presents: `Authorization: Bearer …` or `X-API-Key`."""
    headers: dict[str, str] = {
        k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]
    }
    authorization = headers.get("authorization", "")
    if authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    key: str | None = headers.get("x-api-key")
    return key
