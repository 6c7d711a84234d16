"""A TCP proxy in front of the real test Neo4j, to make it unreachable on cue.

The app under test connects to the proxy with a real driver; `close()` then drops every
connection and refuses new ones (Neo4j down), `stall()` keeps connections open but forwards
nothing (Neo4j hung). No mock: the driver meets real network failures.

    async with TcpProxy("127.0.0.1", 7687) as proxy:
        target = replace(neo4j_target, uri=proxy.uri, local=None)
        ...
        await proxy.close()
"""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType


class TcpProxy:
    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.flowing = asyncio.Event()
        self.flowing.set()
        self.server: asyncio.Server | None = None
        self.writers: list[asyncio.StreamWriter] = []
        self.pipes: set[asyncio.Task[None]] = set()

    @property
    def uri(self) -> str:
        assert self.server is not None
        port = self.server.sockets[0].getsockname()[1]
        return f"bolt://127.0.0.1:{port}"

    async def __aenter__(self) -> TcpProxy:
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        failure: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.close()

    def stall(self) -> None:
        """Stop forwarding bytes; connections stay open, so a query waits for an answer."""
        self.flowing.clear()

    async def close(self) -> None:
        """Refuse new connections and drop every open one."""
        if self.server is not None:
            self.server.close()
            self.server = None
        for writer in self.writers:
            writer.close()
        for pipe in list(self.pipes):
            pipe.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pipe
        for writer in self.writers:
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        self.writers.clear()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(self.host, self.port)
        self.writers += [writer, upstream_writer]
        for source, sink in ((reader, upstream_writer), (upstream_reader, writer)):
            pipe = asyncio.create_task(self._pipe(source, sink))
            self.pipes.add(pipe)
            pipe.add_done_callback(self.pipes.discard)

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await source.read(65536):
                await self.flowing.wait()
                sink.write(data)
                await sink.drain()
        sink.close()
