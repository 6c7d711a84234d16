"""Do writers of two spaces get in each other's way? `remember` throughput of the same writers
all in one space, beside half of them in each of two spaces — side by side, in one run.

Each space has its own recorded-time clock (`graph.store.clock`): the writers of one space tick
it one after the other, writers of different spaces never wait for each other. Both variants use
the same number of concurrent writers and write the same number of single-claim `remember`
calls, so what differs is only how many clocks they share. Every round measures both, in an
order that alternates per round; the table gives medians of claims/s and the median of the
ratio paired within a round (two spaces / one space).

    .venv/bin/python -m bench.two_spaces [--claims 400] [--writers 8] [--rounds 5]

It writes only into two new spaces named `bench-<random>` and deletes them at the end.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from bench._support import OPERATOR, delete_space, fresh_space_name, open_memory
from graph.memory import Memory

ACTOR = OPERATOR


async def observation_in(memory: Memory, space: str) -> str:
    await memory.writes.create_space(ACTOR, space)
    chat = await memory.writes.open_episode(ACTOR, space, {"title": "bench"})
    said = await memory.writes.record_observation(
        ACTOR, space, {"episode_id": chat.id, "content": "bench evidence", "role": "user"}
    )
    return said.id


async def writer(memory: Memory, space: str, said: str, tag: str, claims: int) -> None:
    for n in range(claims):
        await memory.writes.remember(
            ACTOR,
            space,
            [
                {
                    "key": f"pref:other:{tag}-{n}",
                    "value": {"value": n},
                    "evidence": [{"observation_id": said}],
                }
            ],
        )


async def rate(
    memory: Memory, targets: list[tuple[str, str]], tag: str, claims: int, writers: int
) -> float:
    """Claims/s of `writers` concurrent writers spread round-robin over `targets`."""
    each = claims // writers
    started = time.perf_counter()
    await asyncio.gather(
        *(writer(memory, *targets[w % len(targets)], f"{tag}-w{w}", each) for w in range(writers))
    )
    return each * writers / (time.perf_counter() - started)


async def measure_two_spaces(
    memory: Memory, console: Console, *, claims: int, writers: int, rounds: int
) -> tuple[list[float], list[float]]:
    """Claims/s of each round, one space and two spaces (in two new bench spaces, deleted
    after); what `bench.scale` runs."""
    names = [fresh_space_name(), fresh_space_name()]
    one: list[float] = []
    two: list[float] = []
    try:
        a, b = [(name, await observation_in(memory, name)) for name in names]
        await rate(memory, [a, b], "warm", writers * 5, writers)
        for r in range(rounds):
            order = ["one", "two"] if r % 2 == 0 else ["two", "one"]
            for variant in order:
                if variant == "one":
                    one.append(await rate(memory, [a], f"r{r}-one", claims, writers))
                else:
                    two.append(await rate(memory, [a, b], f"r{r}-two", claims, writers))
            console.print(f"round {r + 1}: one space {one[-1]:,.0f}/s, two {two[-1]:,.0f}/s")
    finally:
        for name in names:
            await delete_space(memory, name)
    return one, two


async def run_bench(console: Console, *, claims: int, writers: int, rounds: int) -> None:
    async with open_memory() as memory:
        one, two = await measure_two_spaces(
            memory, console, claims=claims, writers=writers, rounds=rounds
        )
    table = Table(
        title=f"remember, {writers} concurrent writers, 1 claim per call, {rounds} rounds"
    )
    table.add_column("variant")
    table.add_column("claims/s (median)", justify="right")
    table.add_row("one space (all writers)", f"{statistics.median(one):,.0f}")
    table.add_row("two spaces (half each)", f"{statistics.median(two):,.0f}")
    ratios = [t / o for t, o in zip(two, one, strict=True)]
    table.add_row("two / one (paired median)", f"{statistics.median(ratios):.2f}x")
    console.print(table)


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def main(
    claims: Annotated[int, typer.Option(min=2, help="Claims per variant per round.")] = 400,
    writers: Annotated[int, typer.Option(min=2, help="Concurrent writers in all.")] = 8,
    rounds: Annotated[int, typer.Option(min=1, help="Rounds; 5 or more for medians.")] = 5,
) -> None:
    """Measure remember throughput of one space beside two spaces written at once."""
    asyncio.run(run_bench(Console(), claims=claims, writers=writers, rounds=rounds))


if __name__ == "__main__":
    app()
