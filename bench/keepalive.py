"""A lean HTTP/1.1 client for the crowd benches: one keep-alive connection per simulated client,
a JSON POST, and an answer read by its Content-Length — nothing more (an answer in chunks or
without a length is refused by name).

Why not httpx there: 50 clients on one `httpx.AsyncClient` cost the bench process 4.6 ms of CPU
per call, more than the 4.2–5.2 ms the `engram serve` answering them spent (measured side by side
with `/proc/<pid>/stat` on this 2-core machine). The load generator then took the cores the
server and Neo4j needed, and `bench.concurrent_reads` measured mostly its own client: 98–132
calls/s through httpx against 222–233/s through this one (0.15 ms a call), same server, same
starts. A real deployment's clients run elsewhere; here they share the machine, so they must be
cheap.

    connection = await KeepAlive.open("127.0.0.1", 8000)
    status, answer = await connection.post_json("/graphql", {"query": "{ __typename }"})
    # (200, {'data': {'__typename': 'Query'}})
    await connection.close()
"""

from __future__ import annotations

import asyncio
import json
from typing import Any


class KeepAlive:
    """One HTTP/1.1 connection, reused for every call (the server keeps it open)."""

    def __init__(
        self, host: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self._host = host.encode("ascii")
        self._reader = reader
        self._writer = writer

    @classmethod
    async def open(cls, host: str, port: int) -> KeepAlive:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(host, reader, writer)

    async def post_json(self, path: str, body: Any) -> tuple[int, Any]:
        """POST `body` as JSON; the answer's status and its JSON (None when it has no body)."""
        data = json.dumps(body).encode()
        self._writer.write(
            b"POST %s HTTP/1.1\r\nhost: %s\r\ncontent-type: application/json\r\n"
            b"content-length: %d\r\n\r\n%s" % (path.encode("ascii"), self._host, len(data), data)
        )
        head = (await self._reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        status_line, *header_lines = head.split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "chunked" in headers.get("transfer-encoding", ""):
            raise RuntimeError(f"{path} answered in chunks; this client reads Content-Length only")
        if "content-length" not in headers:
            raise RuntimeError(f"{path} answered without a Content-Length; this client needs one")
        length = int(headers["content-length"])
        payload = await self._reader.readexactly(length)
        return status, json.loads(payload) if payload else None

    async def close(self) -> None:
        self._writer.close()
        await self._writer.wait_closed()

    async def __aenter__(self) -> KeepAlive:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()
