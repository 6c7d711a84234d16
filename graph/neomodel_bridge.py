"""Share Engram's one async driver with neomodel, so both use one pool and one database.

neomodel 7 keeps its driver process-wide (not in a ContextVar that an ASGI request would not
see); its target database, though, is context-local, so it is set from the config in every
context that uses neomodel (`use_neomodel`).
"""

from __future__ import annotations

from neomodel import adb, get_config

from graph.db import Graph


async def share_driver(graph: Graph) -> None:
    """Hand `graph`'s driver to neomodel for the whole process."""
    get_config().database_name = graph.database
    await adb.set_connection(driver=graph.driver)


async def release_driver() -> None:
    """Forget the driver in neomodel; its owner (the app's lifespan) closes it."""
    adb.driver = None


def neomodel_driver_is(graph: Graph) -> bool:
    """True when neomodel uses exactly `graph`'s driver (checked by /readyz and the tests)."""
    return adb.driver is graph.driver
