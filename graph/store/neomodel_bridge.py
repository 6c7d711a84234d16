"""Share Engram's one async driver with neomodel, so both use one pool and one database.

neomodel 7 keeps its driver process-wide (not in a ContextVar that an ASGI request would not
see); its target database, though, is context-local and defaults to the server's default
database. Every request context that may use neomodel binds the configured database first
(`bind_context_database`), so NEO4J_DATABASE is honoured everywhere.
"""

from __future__ import annotations

from neomodel import adb, get_config

from graph.store.db import Graph


async def share_driver(graph: Graph) -> None:
    """Hand `graph`'s driver to neomodel for the whole process."""
    get_config().database_name = graph.database
    await adb.set_connection(driver=graph.driver)


async def release_driver() -> None:
    """Forget the driver in neomodel; its owner (the app's lifespan) closes it."""
    adb.driver = None


def bind_context_database(graph: Graph) -> None:
    """Make neomodel use `graph`'s database in the current context (request or task).

    neomodel has no public setter for this context-local value other than `set_connection`,
    which would also re-query the server's version on every request."""
    adb._database_name = graph.database


def neomodel_database() -> str | None:
    """The database neomodel uses in the current context."""
    name: str | None = adb._database_name
    return name


def neomodel_driver_is(graph: Graph) -> bool:
    """True when neomodel uses exactly `graph`'s driver (checked by /readyz and the tests)."""
    return adb.driver is graph.driver
