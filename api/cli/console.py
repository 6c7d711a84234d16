"""What every `engram` command shares: its two consoles and a connection for one command."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from rich.console import Console

from graph.store.db import Graph, connect, resolve_target
from graph.store.neomodel_bridge import release_driver, share_driver
from graph.store.settings import get_settings

T = TypeVar("T")

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


def with_graph(work: Callable[[Graph], Awaitable[T]]) -> T:
    """Connect (starting the local Neo4j if needed), run `work`, close."""

    async def main() -> T:
        graph = await connect(resolve_target(get_settings()))
        try:
            await share_driver(graph)
            return await work(graph)
        finally:
            await release_driver()
            await graph.close()

    return asyncio.run(main())
