"""The crowd benches' lean HTTP client (`bench.keepalive`): answers read by their length, one
connection kept for many calls, and an answer it cannot read refused aloud. Against a small
server made here (its whole job is to answer); the bench itself runs it against `engram serve`
in `test_scale_runner`."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest

from bench.keepalive import KeepAlive

pytestmark = pytest.mark.fast

Answer = Callable[[int, bytes], bytes]
"""What the server sends for its n-th request on a connection, given that request's body."""


@asynccontextmanager
async def server(answer: Answer) -> AsyncIterator[tuple[int, list[int]]]:
    """A server on a free port; its port and the number of connections it accepted."""
    accepted: list[int] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError):
            await answer_calls(reader, writer)
        writer.close()
        await writer.wait_closed()

    async def answer_calls(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(1)
        number = 0
        while head := await reader.readuntil(b"\r\n\r\n"):  # the client's close ends it
            length = next(
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            body = await reader.readexactly(length)
            number += 1
            writer.write(answer(number, body))
            await writer.drain()

    listening = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    try:
        yield port, accepted
    finally:
        listening.close()
        await listening.wait_closed()


def echo(number: int, body: bytes) -> bytes:
    payload = json.dumps({"call": number, "sent": json.loads(body)}).encode()
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(payload), payload)


async def test_many_calls_go_over_one_connection_each_answer_read_by_its_length() -> None:
    async with server(echo) as (port, accepted):
        connection = await KeepAlive.open("127.0.0.1", port)
        answers = [await connection.post_json("/graphql", {"n": n}) for n in range(3)]
        await connection.close()
    assert answers == [(200, {"call": n + 1, "sent": {"n": n}}) for n in range(3)]
    assert accepted == [1]


async def test_a_busy_answer_gives_its_status_and_an_empty_one_none() -> None:
    def busy(number: int, body: bytes) -> bytes:
        return b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 1\r\ncontent-length: 0\r\n\r\n"

    async with server(busy) as (port, _):
        connection = await KeepAlive.open("127.0.0.1", port)
        assert await connection.post_json("/graphql", {}) == (503, None)
        await connection.close()


async def test_an_answer_in_chunks_is_refused_by_name() -> None:
    def chunked(number: int, body: bytes) -> bytes:
        return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"

    async with server(chunked) as (port, _):
        connection = await KeepAlive.open("127.0.0.1", port)
        with pytest.raises(RuntimeError, match="/graphql answered in chunks"):
            await connection.post_json("/graphql", {})
        await connection.close()


async def test_an_answer_without_a_length_is_refused_by_name() -> None:
    def unmeasured(number: int, body: bytes) -> bytes:
        return b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n{}"

    async with server(unmeasured) as (port, _), await KeepAlive.open("127.0.0.1", port) as kept:
        with pytest.raises(RuntimeError, match="/graphql answered without a Content-Length"):
            await kept.post_json("/graphql", {})
