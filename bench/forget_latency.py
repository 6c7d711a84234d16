"""How long `forget` takes at 100k claims — one claim, a subject + predicate, an episode — next to
a raw-Cypher erasure of one claim and a `remember` of one claim, measured side by side in one run.

Why side by side: latency on a shared machine drifts, so every round runs each variant once, in
an order that rotates per round, and the table gives percentiles over the rounds with the seed
gate (p95 ≤ 100 ms) and the goal (p95 ≤ 20 ms) as PASS/FAIL. `forget` is one transaction (tick
the clock, select, check legal holds, erase, cascade, tombstone, audit), all through
`Memory.forget`; `Memory.drain_purges` (what a server runs after its forgets: blob files and
forgotten spaces left for after commit) is also timed on its own. The raw
baseline erases one claim node's content in one transaction (SET erasedAt, REMOVE properties)
and nothing else.

Forgetting destroys what it selects, so it runs in a space of its own, `bench-forget-<n>`,
generated like `bench` (through Engram's commands) but with 50-claim conversations, so there are
enough episodes to forget (~2000 per 100k claims) and one episode is a conversation's worth. The
space is reused by later runs until `--max-consumed` of its episodes or live claims are gone,
then deleted and a new one generated. Every target is distinct and the kinds' targets are
disjoint: no claim target shares a subject + predicate target or cites an episode target.

    python -m bench.forget_latency [--samples 200] [--claims 100000] [--fresh] [--drop]

It writes only into `bench-forget-*` spaces, so it is safe next to a developer's own data.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, LiteralString

import typer
from rich.console import Console
from rich.table import Table

from bench._support import (
    OPERATOR,
    bench_console,
    delete_space,
    drain_embeddings,
    open_memory,
    percentile,
    progress_bar,
)
from bench.forget_targets import PREFIX, Targets, pick_targets, prepare_space, space_use
from graph.memory import Memory
from graph.runtime import query_count

ACTOR = OPERATOR
GATE_MS = 100.0
GOAL_MS = 20.0

FORGETS = ("claim", "subject+predicate", "episode")
VARIANTS = (*FORGETS, "raw erase", "remember", "purge")

TOMBSTONES: LiteralString = "MATCH (t:Tombstone) RETURN count(t) AS n"

# The floor, on the memory's own connection: one claim's content erased, nothing else.
RAW_ERASE: LiteralString = """
MATCH (c:Claim {id: $id})
SET c.erasedAt = datetime(), c.key = 'forgotten:' + c.id
REMOVE c.valueJson, c.text, c.name, c.aliases, c.reason, c.predicate, c.subjectId, c.objectId
"""


@dataclass(frozen=True)
class Call:
    queries: int
    erased_claims: int = 0
    erased_observations: int = 0
    made_inactive: int = 0


@dataclass
class Timings:
    ms: dict[str, list[float]] = field(default_factory=dict)
    calls: dict[str, list[Call]] = field(default_factory=dict)

    def add(self, variant: str, ms: float, call: Call) -> None:
        self.ms.setdefault(variant, []).append(ms)
        self.calls.setdefault(variant, []).append(call)


class Runner:
    def __init__(self, memory: Memory, space: str) -> None:
        self.memory = memory
        self.space = space

    async def counted(self, work: Callable[[], Awaitable[Any]]) -> Call:
        counter = [0]
        token = query_count.set(counter)
        try:
            receipt = await work()
        finally:
            query_count.reset(token)
        if receipt is None:
            return Call(counter[0])
        return Call(
            counter[0],
            receipt.erased["claims"],
            receipt.erased["observations"],
            receipt.made_inactive,
        )

    def forget(self, selector: dict[str, Any]) -> Callable[[], Awaitable[Call]]:
        request = {"selector": selector, "reason": "bench"}
        return lambda: self.counted(
            lambda: self.memory.forgetting.forget(ACTOR, self.space, request)
        )

    def raw_erase(self, claim_id: str) -> Callable[[], Awaitable[Call]]:
        async def work() -> None:
            await self.memory.graph.write(RAW_ERASE, id=claim_id)

        return lambda: self.counted(work)

    def remember(self, item: dict[str, Any]) -> Callable[[], Awaitable[Call]]:
        async def work() -> None:
            await self.memory.writes.remember(ACTOR, self.space, [item])

        return lambda: self.counted(work)

    def purge(self) -> Callable[[], Awaitable[Call]]:
        async def work() -> None:
            await self.memory.forgetting.drain_purges()

        return lambda: self.counted(work)

    def calls(self, targets: Targets, index: int) -> dict[str, Callable[[], Awaitable[Call]]]:
        subject, predicate = targets.pairs[index]
        return {
            "claim": self.forget({"kind": "CLAIM", "id": targets.claims[index]}),
            "subject+predicate": self.forget(
                {"kind": "SUBJECT_PREDICATE", "subject": {"key": subject}, "predicate": predicate}
            ),
            "episode": self.forget({"kind": "EPISODE", "id": targets.episodes[index]}),
            "raw erase": self.raw_erase(targets.raw[index]),
            "remember": self.remember(targets.remember[index]),
            "purge": self.purge(),
        }


async def run_bench(
    console: Console,
    *,
    prefix: str,
    claims: int,
    samples: int,
    warm_up: int,
    episode_claims: int,
    seed: int,
    fresh: bool,
    drop: bool,
    max_consumed: float,
) -> None:
    started = time.perf_counter()
    rng = random.Random(seed)
    timings = Timings()
    async with open_memory() as memory:
        space, space_id = await prepare_space(
            memory,
            console,
            prefix=prefix,
            claims=claims,
            episode_claims=episode_claims,
            seed=seed,
            fresh=fresh,
            max_consumed=max_consumed,
        )
        # Forget also deletes meaning vectors: measure with them there, as a server has them.
        await drain_embeddings(console, memory)
        use = await space_use(memory, space_id)
        targets = await pick_targets(memory, space, space_id, warm_up + samples, rng)
        tombstones = (await memory.graph.read(TOMBSTONES))[0]["n"]
        console.print(
            f"space {space!r}: {use.revisions:,} claim revisions ({use.live:,} live), "
            f"{use.episodes:,} episodes; {tombstones:,} tombstones in the database; "
            f"{samples} rounds after {warm_up} warm-up rounds"
        )
        runner = Runner(memory, space)
        with progress_bar(console) as progress:
            task = progress.add_task("warm-up", total=warm_up + samples)
            for index in range(warm_up + samples):
                if index == warm_up:
                    progress.update(task, description="measure")
                calls = runner.calls(targets, index)
                turn = index % len(VARIANTS)
                for variant in VARIANTS[turn:] + VARIANTS[:turn]:
                    began = time.perf_counter()
                    call = await calls[variant]()
                    ms = 1000 * (time.perf_counter() - began)
                    if index >= warm_up:
                        timings.add(variant, ms, call)
                progress.advance(task)
        after = await space_use(memory, space_id)
        console.print(
            f"after the run: {after.live:,} live claims, {after.erased_episodes:,}/"
            f"{after.episodes:,} episodes forgotten ({after.consumed:.0%} of the space used)"
        )
        report(console, timings, samples, use.revisions)
        if drop:
            console.print(f"deleting space {space!r} …")
            await delete_space(memory, space)
    console.print(f"total {time.perf_counter() - started:.0f} s")


def report(console: Console, timings: Timings, samples: int, revisions: int) -> None:
    table = Table(
        title=(
            f"forget in a space of {revisions:,} claim revisions: ms over {samples} rounds, "
            "variants interleaved per round"
        ),
        caption=(
            f"gate: p95 ≤ {GATE_MS:.0f} ms (seed) · goal: p95 ≤ {GOAL_MS:.0f} ms · x raw: "
            "percentile / raw erase percentile · raw erase: one transaction SET erasedAt, "
            "REMOVE content on one claim · purge: Memory.drain_purges alone"
        ),
    )
    headers = ("variant", "p50", "p95", "max", "gate", "goal", "p50 x raw", "p95 x raw")
    for header in headers:
        table.add_column(header, justify="right")
    for header in ("queries/call", "erased claims / obs", "made inactive"):
        table.add_column(header, justify="right")
    raw = timings.ms["raw erase"]
    raw_p50, raw_p95 = percentile(raw, 50), percentile(raw, 95)
    for variant in VARIANTS:
        ms = timings.ms[variant]
        calls = timings.calls[variant]
        p50, p95 = percentile(ms, 50), percentile(ms, 95)
        is_forget = variant in FORGETS
        queries = [c.queries for c in calls]
        table.add_row(
            variant,
            f"{p50:.1f}",
            f"{p95:.1f}",
            f"{max(ms):.1f}",
            verdict(p95, GATE_MS) if is_forget else "",
            verdict(p95, GOAL_MS) if is_forget else "",
            "" if variant == "raw erase" else f"{p50 / raw_p50:.1f}x",
            "" if variant == "raw erase" else f"{p95 / raw_p95:.1f}x",
            f"{statistics.mean(queries):.1f} ({min(queries)}–{max(queries)})",
            (
                f"{statistics.mean(c.erased_claims for c in calls):.1f} / "
                f"{statistics.mean(c.erased_observations for c in calls):.1f}"
                if is_forget
                else ""
            ),
            f"{statistics.mean(c.made_inactive for c in calls):.1f}" if is_forget else "",
            end_section=variant == FORGETS[-1],
        )
    console.print(table)


def verdict(p95: float, bound: float) -> str:
    return "[green]PASS[/green]" if p95 <= bound else "[red]FAIL[/red]"


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def main(
    samples: Annotated[
        int, typer.Option(min=1, help="Measured rounds (one call per variant).")
    ] = 200,
    warm_up: Annotated[int, typer.Option(min=0, help="Unmeasured rounds first.")] = 10,
    claims: Annotated[int, typer.Option(min=1000, help="Claims of the forget space.")] = 100_000,
    episode_claims: Annotated[
        int, typer.Option(min=2, help="Claims per generated episode (conversation).")
    ] = 50,
    seed: Annotated[int, typer.Option(help="Seed of the space, targets and order.")] = 7,
    fresh: Annotated[bool, typer.Option(help="Generate a new forget space.")] = False,
    drop: Annotated[bool, typer.Option(help="Delete the forget space at the end.")] = False,
    max_consumed: Annotated[
        float, typer.Option(min=0.01, max=1.0, help="Reuse the space while less is used up.")
    ] = 0.3,
    space_prefix: Annotated[
        str, typer.Option(help="Forget spaces are named <prefix><n>; must start with 'bench'.")
    ] = PREFIX,
) -> None:
    """Measure forget latency by selector kind, next to raw erasure and remember."""
    if not space_prefix.startswith("bench"):
        raise typer.BadParameter("forget spaces are bench spaces: the prefix starts with 'bench'")
    asyncio.run(
        run_bench(
            bench_console(),
            prefix=space_prefix,
            claims=claims,
            samples=samples,
            warm_up=warm_up,
            episode_claims=episode_claims,
            seed=seed,
            fresh=fresh,
            drop=drop,
            max_consumed=max_consumed,
        )
    )


if __name__ == "__main__":
    app()
