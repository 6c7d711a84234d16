"""What every `engram` command shares: its two consoles, the memory for one command, and how a
reading command names its view (space, `--as-of`, `--known-at`, `--tier`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer
from rich.console import Console

from graph.domain.actor import Actor, Grant
from graph.domain.timeutil import parse_instant
from graph.domain.vocabulary import Privacy

if TYPE_CHECKING:  # imported when a command runs: `--help` and `--version` stay quick
    from graph.memory import Memory, View

T = TypeVar("T")

# Never wrapped at the terminal's width, never coloured by guesswork (numbers, brackets): what a
# command prints is data, the same in a terminal as in a pipe.
out = Console(soft_wrap=True, highlight=False)
err = Console(stderr=True, soft_wrap=True, highlight=False)


def with_memory(work: Callable[[Memory], Awaitable[T]], *, embed_threads: int = 1) -> T:
    """Open the memory (starting the local Neo4j if needed), run `work`, close."""

    from graph.memory import Memory

    async def main() -> T:
        async with await Memory.open(embed_threads=embed_threads) as memory:
            return await work(memory)

    return asyncio.run(main())


class Tier(StrEnum):
    PUBLIC = "public"
    NORMAL = "normal"
    PRIVATE = "private"
    SECRET = "secret"


AsOf = Annotated[
    str | None,
    typer.Option(
        help="Valid-time instant (ISO-8601, or YYYY-MM-DD / YYYY-MM in UTC); default now."
    ),
]
KnownAt = Annotated[
    str | None,
    typer.Option(
        help="Recorded-time instant (ISO-8601, or YYYY-MM-DD / YYYY-MM in UTC); default now."
    ),
]
ReadTier = Annotated[Tier, typer.Option(help="Read as a reader at this privacy tier.")]


def instant(text: str | None, option: str) -> datetime | None:
    """An instant given on the command line: ISO-8601 with an offset, or a bare `YYYY-MM-DD`
    or `YYYY-MM` (its first instant, UTC)."""
    if text is None:
        return None
    try:
        return parse_instant(text)
    except ValueError as failure:
        raise typer.BadParameter(str(failure), param_hint=option) from None


async def reader_view(
    memory: Memory, space: str | None, as_of: str | None, known_at: str | None, tier: Tier
) -> View:
    """The view a reading command asked for, as a reader at `tier` (the only space when none
    is named)."""
    if space is None:
        names = [s.name for s in await memory.admin.all_spaces()]
        if len(names) != 1:
            message = f"there are {len(names)} spaces; name one"
            raise typer.BadParameter(message, param_hint="--space")
        space = names[0]
    reader = Actor(f"cli:{tier.value}", {space: Grant(space, Privacy[tier.name])})
    return await memory.reads.view(
        reader, space, instant(as_of, "--as-of"), instant(known_at, "--known-at")
    )
