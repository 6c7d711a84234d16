"""What every `engram` command shares: its two consoles and the memory for one command."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from rich.console import Console

from graph.memory import Memory

T = TypeVar("T")

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


def with_memory(work: Callable[[Memory], Awaitable[T]], *, embed_threads: int = 1) -> T:
    """Open the memory (starting the local Neo4j if needed), run `work`, close."""

    async def main() -> T:
        async with await Memory.open(embed_threads=embed_threads) as memory:
            return await work(memory)

    return asyncio.run(main())
