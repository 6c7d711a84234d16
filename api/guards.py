"""Load guards: a cap on request bodies and on GraphQL requests served at once.

    app = Starlette(middleware=[
        Middleware(BodyLimit, max_bytes=1_048_576),            # 413 before anything is parsed
        Middleware(InFlightLimit, max_in_flight=16, wait=2.0),  # 503 + Retry-After beyond it
        ...
    ])

Both answer before any Neo4j work, so a flood of huge bodies or heavy reads costs the server
little and leaves `/healthz` and `/readyz` (never limited) answering at once.
"""

from __future__ import annotations

import asyncio

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

RETRY_AFTER_BUSY = 1
"""Seconds a client is told to wait when every slot is taken; work is short, so turns come soon."""


class BodyLimit:
    """413 for a body larger than `max_bytes`: at once when Content-Length says so, else as soon
    as the bytes read pass the cap. The body is read whole before the app runs, so a slow upload
    never holds one of `InFlightLimit`'s slots."""

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
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # only http.disconnect can come now
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

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


class InFlightLimit:
    """At most `max_in_flight` requests under `path` run at once; one more waits up to `wait`
    seconds for a turn and is then answered 503 with Retry-After (never queued without end,
    never left to pile up on Neo4j's connection pool until something fails with a 500)."""

    def __init__(
        self, app: ASGIApp, max_in_flight: int, wait: float, path: str = "/graphql"
    ) -> None:
        self.app = app
        self.path = path
        self.wait = wait
        self.slots = asyncio.Semaphore(max_in_flight)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self.path):
            await self.app(scope, receive, send)
            return
        try:
            # A free slot is taken without suspending, so even a wait of 0 admits it.
            async with asyncio.timeout(self.wait):
                await self.slots.acquire()
        except TimeoutError:
            response = JSONResponse(
                {"error": "the server is busy; try again shortly"},
                status_code=503,
                headers={"Retry-After": str(RETRY_AFTER_BUSY)},
            )
            await response(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.slots.release()
