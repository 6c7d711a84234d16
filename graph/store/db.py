"""Neo4j access: which Neo4j, one async driver, and the transaction helpers every command uses.

    target = resolve_target(get_settings())        # starts the local Neo4j if needed
    graph = await connect(target)
    rows = await graph.read(SOME_QUERY, spaceId="…")
    await graph.close()

Every read runs in a read transaction and every write in a write transaction, so with a routing
URI (`neo4j://`, `neo4j+s://`) a cluster sends reads to its readers and writes to the leader; a
single server (Community) answers both from its one-member routing table. A read of one query
(`Graph.read`) is an auto-commit read (`RUN` with read access): one round trip, where a managed
transaction (`execute_read`, used by `read_tx` for several queries) adds a `COMMIT` — 1.9 against
2.9 ms p50 for a one-row query here. Both are retried on transient failures for the same time.
Writes always run in managed write transactions (`execute_write`); auto-commit write sessions are
used only for what must run outside a transaction (`CALL … IN TRANSACTIONS`).

`connect` fails loudly (`SetupError`) on a wrong password, an unreachable URI or a database that
does not exist; nothing falls back to anything else.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, LiteralString, TypeVar

from neo4j import (
    READ_ACCESS,
    AsyncDriver,
    AsyncGraphDatabase,
    AsyncManagedTransaction,
    Record,
    RoutingControl,
)
from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConnectionAcquisitionTimeoutError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graph.domain.errors import SetupError
from graph.store.local.server import LocalNeo4j, RunningNeo4j
from graph.store.settings import Settings

T = TypeVar("T")

_FIRST_RETRY_DELAY = 0.1
"""Seconds before a failed read's first retry, doubled for each next one (with ±20 % jitter)."""

query_count: ContextVar[list[int] | None] = ContextVar("engram_query_count", default=None)
"""When set to a one-element list, every query run through `Graph` increments it (N+1 checks)."""

UNAVAILABLE: tuple[type[Exception], ...] = (
    ServiceUnavailable,
    SessionExpired,
    ConnectionAcquisitionTimeoutError,
    TransientError,
)
"""Failures that say Neo4j cannot answer now (down, restarting, pool or memory exhausted) rather
than that the request is wrong: the API answers them with 503 and Retry-After."""


@dataclass(frozen=True)
class Neo4jTarget:
    """Where Engram's Neo4j is and how to log in."""

    uri: str
    user: str
    password: str | None
    database: str
    local: RunningNeo4j | None = None


def resolve_target(settings: Settings, *, start_local: bool = True) -> Neo4jTarget:
    """The configured Neo4j, or the local one (started if `start_local` and not running)."""
    if settings.neo4j_uri is not None:
        password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else None
        return Neo4jTarget(
            settings.neo4j_uri, settings.neo4j_user, password, settings.neo4j_database
        )
    server = LocalNeo4j(settings)
    running = server.start() if start_local else server.status()
    if running is None:
        raise SetupError("the local Neo4j is not running; start it with `engram neo4j start`")
    return Neo4jTarget(running.uri, running.user, running.password, "neo4j", running)


async def connect(target: Neo4jTarget, *, retry_time: float = 30.0) -> Graph:
    """An open, verified connection to `target`'s database.

    Transactions are retried on transient failures for up to `retry_time` seconds; a server
    keeps it below its request timeout, so a Neo4j that stays down is answered as unavailable
    (503) rather than outlasted by the timeout (504)."""
    auth = (target.user, target.password) if target.password is not None else None
    driver = AsyncGraphDatabase.driver(
        target.uri,
        auth=auth,
        connection_acquisition_timeout=30.0,
        max_connection_pool_size=50,
        max_transaction_retry_time=retry_time,
        notifications_min_severity="OFF",
    )
    try:
        await driver.verify_connectivity()
        await driver.execute_query(
            "RETURN 1", database_=target.database, routing_=RoutingControl.READ
        )
    except AuthError as failure:
        await driver.close()
        raise SetupError(
            f"Neo4j at {target.uri} refused user {target.user!r}: wrong NEO4J_USER/NEO4J_PASSWORD "
            f"({failure.message})"
        ) from failure
    except ServiceUnavailable as failure:
        await driver.close()
        raise SetupError(f"Neo4j at {target.uri} is unreachable: {failure}") from failure
    except ClientError as failure:
        await driver.close()
        if failure.code == "Neo.ClientError.Database.DatabaseNotFound":
            raise SetupError(
                f"Neo4j at {target.uri} has no database {target.database!r} (NEO4J_DATABASE)"
            ) from failure
        raise SetupError(f"Neo4j at {target.uri} refused a first query: {failure}") from failure
    except (Neo4jError, OSError, ValueError) as failure:
        await driver.close()
        raise SetupError(f"cannot use Neo4j at {target.uri}: {failure}") from failure
    return Graph(driver, target.database, retry_time=retry_time)


class Graph:
    """Engram's database: one async driver and the configured database, used for every query."""

    def __init__(self, driver: AsyncDriver, database: str, *, retry_time: float = 30.0) -> None:
        self.driver = driver
        self.database = database
        self.retry_time = retry_time
        self.ticked: dict[str, Any] = {}
        """What each space's last tick in this process found (`commands.writing.Ticked`), by
        name: what a write may guess before its own tick answers."""

    async def close(self) -> None:
        await self.driver.close()

    async def read(self, query: LiteralString, /, **params: Any) -> list[dict[str, Any]]:
        """Run one read query as an auto-commit read (retried on transient failures, as a
        managed transaction is, for up to `retry_time` seconds); rows as dicts."""
        deadline = time.monotonic() + self.retry_time
        delay = _FIRST_RETRY_DELAY
        while True:
            try:
                return await self._read_once(query, params)
            except (Neo4jError, DriverError) as failure:
                wait = delay * random.uniform(0.8, 1.2)
                if not failure.is_retryable() or time.monotonic() + wait > deadline:
                    raise
            await asyncio.sleep(wait)
            delay *= 2

    async def _read_once(
        self, query: LiteralString, params: dict[str, Any]
    ) -> list[dict[str, Any]]:
        _count_query()
        async with self.driver.session(
            database=self.database, default_access_mode=READ_ACCESS
        ) as session:
            result = await session.run(query, sent(params))
            return [_row(record) async for record in result]

    async def write(self, query: LiteralString, /, **params: Any) -> list[dict[str, Any]]:
        """Run one write query in its own transaction (auto-retried); rows as dicts."""
        return await self.write_tx(_fetch_all(query, params))

    async def read_tx(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """Run `work` in a read transaction; it may be retried, so it must be idempotent."""
        async with self.driver.session(database=self.database) as session:
            return await session.execute_read(work)

    async def write_tx(self, work: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """Run `work` in a write transaction; it may be retried, so it must be idempotent."""
        async with self.driver.session(database=self.database) as session:
            return await session.execute_write(work)


async def run(
    tx: AsyncManagedTransaction, query: LiteralString, /, **params: Any
) -> list[dict[str, Any]]:
    """Run `query` inside `tx` and return its rows as dicts (counted for N+1 checks)."""
    _count_query()
    result = await tx.run(query, sent(params))
    return [_row(record) async for record in result]


class ListParameter(list[Any]):
    """A list parameter as the driver's debug log shows it: by its length. The driver formats
    every statement's parameters for that log even when nothing logs at debug level (neo4j 6.1,
    `AsyncBolt5x5.run`): 10 ms of a 500-claim `remember`'s 250, and for meaning vectors (384
    numbers each) a sixth of storing them — 327 → 396 vectors/s end to end, `bench.vector_rate`.
    The words and quotes in a batch's lists stay out of that log when it is on, too."""

    def __repr__(self) -> str:
        return f"<list of {len(self)}>"


def sent(params: dict[str, Any]) -> dict[str, Any]:
    """`params` with each list as a `ListParameter` (the driver packs it as the list it is)."""
    return {
        name: ListParameter(value) if isinstance(value, list) else value
        for name, value in params.items()
    }


CHECK_ROWS = os.environ.get("ENGRAM_CHECK_ROWS") == "1"
"""Check that every row holds plain data (the test suite sets `ENGRAM_CHECK_ROWS=1`)."""


def _row(record: Record) -> dict[str, Any]:
    """A row as the driver decoded it. Engram's queries return plain data — maps, lists,
    scalars, temporal values; never a node, relationship or path, which `Record.data` would
    turn into maps by walking every value of every row (about 1 µs a value: a third of a
    `related` answer's time in Python, and of a batch's lookup)."""
    row = dict(zip(record.keys(), record.values(), strict=True))
    if CHECK_ROWS and record.data() != row:
        raise TypeError(f"a query returned a node, relationship or path: {sorted(row)}")
    return row


def _count_query() -> None:
    counter = query_count.get()
    if counter is not None:
        counter[0] += 1


def _fetch_all(
    query: LiteralString, params: dict[str, Any]
) -> Callable[[AsyncManagedTransaction], Awaitable[list[dict[str, Any]]]]:
    async def work(tx: AsyncManagedTransaction) -> list[dict[str, Any]]:
        return await run(tx, query, **params)

    return work


__all__ = [
    "UNAVAILABLE",
    "Graph",
    "Neo4jTarget",
    "connect",
    "query_count",
    "resolve_target",
    "run",
]
