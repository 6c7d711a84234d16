"""Share Engram's one async driver with neomodel, so both use one pool and one database.

neomodel 7 keeps its driver process-wide, but the database it talks to is context-local: a
ContextVar that `adb.set_connection` sets (from `config.database_name`) in the calling context
and that only contexts spawned afterwards inherit. An ASGI request or a CLI command is not such
a child, so left alone neomodel would use the server's default database, not NEO4J_DATABASE.

So `share_driver` calls `set_connection` once, in a context of its own, and keeps that context;
`in_neomodel` runs every neomodel call in a fresh copy of it. That is neomodel's documented
inheritance and nothing else: no private attribute is read or written, and each call starts
with no transaction of its caller's (neomodel's transactions are context-local as well).

    await share_driver(graph)
    key = await in_neomodel(graph, ApiKey.nodes.get_or_none(key_id="3f9a0c1b2d4e"))

neomodel cannot join a transaction it did not begin (`adb.begin` opens its own session; there
is no public way to hand it Engram's managed transaction), so the nodes it owns are written in
its own transactions: see `graph/commands/apikeys.py`.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Coroutine
from typing import Any, LiteralString, TypeVar

from neomodel import adb, get_config

from graph.domain.errors import SetupError
from graph.store.db import Graph

T = TypeVar("T")

DATABASE_NAME: LiteralString = "CALL db.info() YIELD name RETURN name"

_bound: dict[str, Any] = {"context": None, "graph": None}


async def share_driver(graph: Graph) -> None:
    """Hand `graph`'s driver and database to neomodel for the whole process."""
    get_config().database_name = graph.database
    context = contextvars.copy_context()
    await asyncio.create_task(adb.set_connection(driver=graph.driver), context=context)
    _bound.update(context=context, graph=graph)


async def release_driver() -> None:
    """Forget the driver in neomodel; its owner (the app's lifespan) closes it."""
    adb.driver = None
    _bound.update(context=None, graph=None)


async def in_neomodel(graph: Graph, work: Coroutine[Any, Any, T]) -> T:
    """Run `work` (a coroutine of neomodel calls) on `graph`'s database.

    Binds neomodel to `graph` first when it is bound to no graph or to another one (a command
    run outside the app, a restore target); neomodel has one driver per process, so the last
    graph bound is the one it keeps."""
    context = _bound["context"]
    if context is None or _bound["graph"] is not graph or adb.driver is not graph.driver:
        await share_driver(graph)
        context = _bound["context"]
    if not isinstance(context, contextvars.Context):
        work.close()
        raise SetupError("neomodel could not be bound to Engram's driver")
    return await asyncio.create_task(work, context=context.copy())


def bound_graph() -> Graph:
    """The graph neomodel is bound to (set by `share_driver`)."""
    graph = _bound["graph"]
    if not isinstance(graph, Graph) or adb.driver is not graph.driver:
        raise SetupError("neomodel is not bound to Engram's driver; call share_driver first")
    return graph


async def neomodel_database(graph: Graph) -> str:
    """The database neomodel's queries reach, as the server names it (checked by /readyz)."""

    async def ask() -> str:
        async with adb.read_transaction:
            rows, _ = await adb.cypher_query(DATABASE_NAME)
            return str(rows[0][0])

    return await in_neomodel(graph, ask())


def neomodel_driver_is(graph: Graph) -> bool:
    """True when neomodel uses exactly `graph`'s driver (checked by /readyz and the tests)."""
    return adb.driver is graph.driver
