"""How long `forget` takes at 100k claims — one claim, a subject + predicate, an episode — next to
a raw-Cypher erasure of one claim and a `remember` of one claim, measured side by side in one run.

Why side by side: latency on a shared machine drifts, so every round runs each variant once, in
an order that rotates per round, and the table gives percentiles over the rounds with the seed
gate (p95 ≤ 100 ms) and the goal (p95 ≤ 20 ms) as PASS/FAIL. `forget` is one transaction (tick
the clock, select, check legal holds, erase, cascade, tombstone, audit) and then `purge_blobs`
(a read of tombstones with pending blob files); that read is also timed on its own. The raw
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
import re
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, LiteralString

import typer
from neo4j.exceptions import CypherSyntaxError
from rich.console import Console
from rich.table import Table

from bench._support import (
    SCAN_OPERATORS,
    bench_console,
    delete_space,
    drain_embeddings,
    open_graph,
    percentile,
    profile_rolled_back,
    progress_bar,
    query_plan,
    timed_queries,
)
from bench.generate import generate
from bench.mix import END, ClaimMix, entity_counts
from graph.commands import audit, holds, revisions, writing
from graph.commands import entity_refs as entities
from graph.commands.entity_refs import EntityRef
from graph.commands.episodes import (
    ObservationInput,
    OpenEpisodeInput,
    open_episode,
    record_observations,
)
from graph.commands.remember import RememberInput, remember
from graph.domain.actor import Actor
from graph.domain.model import Privacy, Role
from graph.erasure import engine as erasure
from graph.erasure import forget as forgetting
from graph.erasure import purge_outbox, selectors
from graph.erasure.forget import ForgetInput, ForgetReceipt, forget
from graph.erasure.purge_outbox import purge_blobs
from graph.erasure.selectors import Selector, SelectorKind
from graph.meaning.embeddings import Embedder
from graph.store.db import Graph, query_count

ACTOR = Actor.operator("bench:forget_latency")
PREFIX = "bench-forget-"
GATE_MS = 100.0
GOAL_MS = 20.0
REFERENCE_OBSERVATIONS = 20

FORGETS = ("claim", "subject+predicate", "episode")
VARIANTS = (*FORGETS, "raw erase", "remember", "purge_blobs")

SPACES: LiteralString = """
MATCH (s:Space)
WHERE s.name STARTS WITH $prefix AND s.erasedAt IS NULL
RETURN s.name AS name, s.id AS id
"""

SPACE_USE: LiteralString = """
MATCH (e:Episode)
WHERE e.spaceId = $spaceId
  AND (e.title STARTS WITH 'bench conversation' OR e.erasedAt IS NOT NULL)
WITH count(e) AS episodes, count(e.erasedAt) AS erasedEpisodes
MATCH (c:Claim)
WHERE c.spaceId = $spaceId
RETURN episodes, erasedEpisodes, count(c) AS revisions,
       count(CASE WHEN c.revision = 1 THEN 1 END) AS keys,
       count(CASE WHEN c.supersededAt IS NULL AND c.erasedAt IS NULL AND c.status = 'active'
             THEN 1 END) AS live
"""

EPISODES: LiteralString = """
MATCH (e:Episode)
WHERE e.spaceId = $spaceId AND e.erasedAt IS NULL AND e.title STARTS WITH 'bench conversation'
RETURN e.id AS id
ORDER BY e.id
"""

CLAIMS_OF_EPISODES: LiteralString = """
UNWIND $ids AS id
MATCH (:Episode {id: id})-[:HAS_OBSERVATION]->(:Observation)<-[:SUPPORTED_BY]-(c:Claim)
RETURN DISTINCT c.key AS key, c.subjectId AS subjectId, c.predicate AS predicate
"""

LIVE_CLAIMS: LiteralString = """
MATCH (c:Claim)
WHERE c.spaceId = $spaceId AND c.supersededAt IS NULL AND c.erasedAt IS NULL
  AND c.status = 'active' AND c.type <> 'entity'
RETURN c.id AS id, c.key AS key, c.subjectId AS subjectId, c.predicate AS predicate
ORDER BY c.key, c.id
"""

ENTITY_KEYS: LiteralString = """
MATCH (e:Entity)
WHERE e.spaceId = $spaceId AND e.erasedAt IS NULL
RETURN e.id AS id, e.key AS key
"""

TOMBSTONES: LiteralString = "MATCH (t:Tombstone) RETURN count(t) AS n"

RAW_ERASE: LiteralString = """
MATCH (c:Claim {id: $id})
SET c.erasedAt = datetime(), c.key = 'forgotten:' + c.id
REMOVE c.valueJson, c.text, c.name, c.aliases, c.reason, c.predicate, c.subjectId, c.objectId
"""


@dataclass(frozen=True)
class Targets:
    """What each measured call forgets, erases or remembers (one per call, all distinct)."""

    claims: list[str]
    pairs: list[tuple[str, str]]
    """(subject entity key, predicate)."""
    episodes: list[str]
    raw: list[str]
    remember: list[RememberInput]
    spare_claim: str
    """One more target of each kind, never forgotten: the rolled-back PROFILE runs on them."""
    spare_pair: tuple[str, str, str]
    """(subject entity id, its key, predicate)."""
    spare_episode: str


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


@dataclass(frozen=True)
class Use:
    episodes: int
    erased_episodes: int
    revisions: int
    keys: int
    live: int

    @property
    def consumed(self) -> float:
        """The larger share of conversations forgotten (only this benchmark forgets episodes) and
        of claims no longer live."""
        episodes = self.erased_episodes / self.episodes if self.episodes else 1.0
        claims = 1 - self.live / self.keys if self.keys else 1.0
        return max(episodes, claims)


async def space_use(graph: Graph, space_id: str) -> Use:
    row = (await graph.read(SPACE_USE, spaceId=space_id))[0]
    return Use(row["episodes"], row["erasedEpisodes"], row["revisions"], row["keys"], row["live"])


async def prepare_space(
    graph: Graph,
    console: Console,
    *,
    prefix: str,
    claims: int,
    episode_claims: int,
    seed: int,
    fresh: bool,
    max_consumed: float,
) -> tuple[str, str]:
    """The newest `<prefix><n>` space if it is big enough and not used up; else delete the
    old ones and generate the next."""
    spaces = {row["name"]: row["id"] for row in await graph.read(SPACES, prefix=prefix)}
    numbered = sorted(
        (int(name.removeprefix(prefix)), name)
        for name in spaces
        if re.fullmatch(r"\d+", name.removeprefix(prefix))
    )
    if numbered and not fresh:
        name = numbered[-1][1]
        use = await space_use(graph, spaces[name])
        if use.keys >= claims and use.consumed < max_consumed:
            console.print(
                f"reusing space {name!r}: {use.revisions:,} claim revisions, {use.live:,} live, "
                f"{use.erased_episodes:,}/{use.episodes:,} episodes forgotten "
                f"({use.consumed:.0%} used of {max_consumed:.0%} allowed)"
            )
            return name, spaces[name]
        console.print(f"space {name!r} is used up or too small ({use.consumed:.0%} used)")
    for _, old in numbered:
        console.print(f"deleting space {old!r} …")
        await delete_space(graph, old)
    name = f"{prefix}{numbered[-1][0] + 1 if numbered else 1}"
    console.print(f"generating space {name!r}: {claims:,} claims, {episode_claims} per episode …")
    generated = await generate(
        graph, name, claims=claims, seed=seed, batch=episode_claims, console=console
    )
    console.print(f"generated in {generated.seconds:.0f} s")
    return name, generated.space_id


async def pick_targets(
    graph: Graph, space: str, space_id: str, needed: int, rng: random.Random
) -> Targets:
    """`needed` targets of each kind and one spare, disjoint (see the module docstring)."""
    needed += 1
    episodes = [row["id"] for row in await graph.read(EPISODES, spaceId=space_id)]
    if len(episodes) < needed:
        raise typer.BadParameter(f"{space!r} has {len(episodes)} episodes left; need {needed}")
    chosen_episodes = rng.sample(episodes, needed)
    cited = await graph.read(CLAIMS_OF_EPISODES, ids=chosen_episodes)
    taken_keys = {row["key"] for row in cited}
    taken_pairs = {(row["subjectId"], row["predicate"]) for row in cited if row["predicate"]}

    live = await graph.read(LIVE_CLAIMS, spaceId=space_id)
    entity_keys = {row["id"]: row["key"] for row in await graph.read(ENTITY_KEYS, spaceId=space_id)}
    pairs = sorted(
        {
            (row["subjectId"], row["predicate"])
            for row in live
            if row["predicate"] and row["subjectId"] in entity_keys
        }
        - taken_pairs
    )
    if len(pairs) < needed:
        raise typer.BadParameter(f"{space!r} has {len(pairs)} subject+predicate pairs left")
    chosen_pairs = rng.sample(pairs, needed)
    excluded_pairs = taken_pairs | set(chosen_pairs)
    by_key: dict[str, str] = {}
    for row in live:
        if row["key"] in taken_keys or (row["subjectId"], row["predicate"]) in excluded_pairs:
            continue
        by_key.setdefault(row["key"], row["id"])
    if len(by_key) < 2 * needed:
        raise typer.BadParameter(f"{space!r} has {len(by_key)} live claims left")
    claim_ids = [by_key[key] for key in rng.sample(sorted(by_key), 2 * needed)]

    # One claim remembered per call, citing observations of an episode of the run's own.
    episode = await open_episode(
        graph, space, OpenEpisodeInput(title="bench forget reference"), actor=ACTOR
    )
    said = await record_observations(
        graph,
        space,
        [
            ObservationInput(
                episode_id=episode.id,
                content=f"Reference observation {n} for remember latency.",
                role=Role.USER,
                observed_at=END,
            )
            for n in range(REFERENCE_OBSERVATIONS)
        ],
        actor=ACTOR,
    )
    mix = ClaimMix(rng, entity_counts(len(entity_keys)))
    mix.memory_serial = time.time_ns() // 1000  # keys never used before in a reused space
    inputs = [mix.memory(END).remember_input(said[n % len(said)].id) for n in range(needed)]
    spare_subject, spare_predicate = chosen_pairs.pop()
    return Targets(
        claims=claim_ids[: needed - 1],
        pairs=[(entity_keys[subject], predicate) for subject, predicate in chosen_pairs],
        episodes=chosen_episodes[:-1],
        raw=claim_ids[needed:-1],
        remember=inputs,
        spare_claim=claim_ids[needed - 1],
        spare_pair=(spare_subject, entity_keys[spare_subject], spare_predicate),
        spare_episode=chosen_episodes[-1],
    )


class Runner:
    def __init__(self, graph: Graph, space: str, blob_root: Path) -> None:
        self.graph = graph
        self.space = space
        self.blob_root = blob_root

    async def counted(self, work: Callable[[], Awaitable[ForgetReceipt | None]]) -> Call:
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

    def forget(self, selector: Selector) -> Callable[[], Awaitable[Call]]:
        request = ForgetInput(selector=selector, reason="bench")

        async def work() -> ForgetReceipt:
            return await forget(
                self.graph, self.space, request, actor=ACTOR, blob_root=self.blob_root
            )

        return lambda: self.counted(work)

    def raw_erase(self, claim_id: str) -> Callable[[], Awaitable[Call]]:
        async def work() -> None:
            await self.graph.write(RAW_ERASE, id=claim_id)

        return lambda: self.counted(work)

    def remember(self, item: RememberInput) -> Callable[[], Awaitable[Call]]:
        async def work() -> None:
            await remember(self.graph, self.space, [item], actor=ACTOR)

        return lambda: self.counted(work)

    def purge(self) -> Callable[[], Awaitable[Call]]:
        async def work() -> None:
            await purge_blobs(self.graph, self.blob_root)

        return lambda: self.counted(work)

    def calls(self, targets: Targets, index: int) -> dict[str, Callable[[], Awaitable[Call]]]:
        subject, predicate = targets.pairs[index]
        return {
            "claim": self.forget(Selector(kind=SelectorKind.CLAIM, id=targets.claims[index])),
            "subject+predicate": self.forget(
                Selector(
                    kind=SelectorKind.SUBJECT_PREDICATE,
                    subject=EntityRef(key=subject),
                    predicate=predicate,
                )
            ),
            "episode": self.forget(Selector(kind=SelectorKind.EPISODE, id=targets.episodes[index])),
            "raw erase": self.raw_erase(targets.raw[index]),
            "remember": self.remember(targets.remember[index]),
            "purge_blobs": self.purge(),
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
    plans: bool,
    per_query: int,
) -> None:
    started = time.perf_counter()
    rng = random.Random(seed)
    timings = Timings()
    async with open_graph() as graph:
        space, space_id = await prepare_space(
            graph,
            console,
            prefix=prefix,
            claims=claims,
            episode_claims=episode_claims,
            seed=seed,
            fresh=fresh,
            max_consumed=max_consumed,
        )
        # Forget also deletes meaning vectors: measure with them there, as a server has them.
        await drain_embeddings(console, graph, Embedder(threads=2))
        use = await space_use(graph, space_id)
        targets = await pick_targets(graph, space, space_id, warm_up + samples + per_query, rng)
        tombstones = (await graph.read(TOMBSTONES))[0]["n"]
        console.print(
            f"space {space!r}: {use.revisions:,} claim revisions ({use.live:,} live), "
            f"{use.episodes:,} episodes; {tombstones:,} tombstones in the database; "
            f"{samples} rounds after {warm_up} warm-up rounds"
        )
        with tempfile.TemporaryDirectory(prefix="engram-bench-blobs-") as blobs:
            runner = Runner(graph, space, Path(blobs))
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
            if per_query:
                breakdown = await time_queries(runner, targets, warm_up + samples, per_query)
        after = await space_use(graph, space_id)
        console.print(
            f"after the run: {after.live:,} live claims, {after.erased_episodes:,}/"
            f"{after.episodes:,} episodes forgotten ({after.consumed:.0%} of the space used)"
        )
        # The figures first: the plan listings below are diagnostics.
        report(console, timings, samples, use.revisions)
        if per_query:
            report_breakdown(console, breakdown, per_query)
        if plans:
            await print_plans(console, graph)
            await print_profiles(console, graph, space, space_id, targets)
        if drop:
            console.print(f"deleting space {space!r} …")
            await delete_space(graph, space)
    console.print(f"total {time.perf_counter() - started:.0f} s")


_WRITES = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE|DETACH)\b")
_CYPHER = re.compile(r"\b(MATCH|CREATE|MERGE|UNWIND)\b")


def forget_path_queries() -> list[tuple[str, LiteralString]]:
    """Every Cypher constant of the modules forget runs through (each text once)."""
    found: dict[str, tuple[str, LiteralString]] = {}
    modules = (writing, selectors, entities, holds, forgetting, revisions, audit)
    for module in modules:
        where = module.__name__.removeprefix("graph.")
        for name, value in vars(module).items():
            if name.startswith("_") or not name.isupper():
                continue
            queries = value.items() if isinstance(value, dict) else [(None, value)]
            for key, query in queries:
                if isinstance(query, str) and _CYPHER.search(query) and query not in found:
                    label = f"{where}.{name}" + (f"[{key}]" if key is not None else "")
                    found[query] = (label, query)
    return list(found.values())


async def print_plans(console: Console, graph: Graph) -> None:
    """EXPLAIN every query on forget's path (nothing runs) and list those whose plan scans a
    whole label or every node; reads without parameters are PROFILEd for their db hits."""
    table = Table(title="forget path: queries whose plan scans (EXPLAIN; PROFILE where safe)")
    for header in ("query", "scan operator", "details", "db hits / rows (PROFILE)"):
        table.add_column(header)
    checked = 0
    for name, query in forget_path_queries():
        try:
            steps = await query_plan(graph, query, profile=False)
        except CypherSyntaxError:
            continue  # a fragment other queries start with (the clock tick), not a query
        checked += 1
        for step in steps:
            if step.operator not in SCAN_OPERATORS:
                continue
            profiled = "-"
            if not _WRITES.search(query) and "$" not in query:
                run = await query_plan(graph, query, profile=True)
                scan = next(s for s in run if s.operator == step.operator)
                profiled = f"{sum(s.db_hits or 0 for s in run):,} / {scan.rows:,}"
            table.add_row(name, step.operator, step.details, profiled)
    console.print(table)
    console.print(f"{checked} queries explained")


async def forget_cases(
    graph: Graph, space: str, space_id: str, targets: Targets
) -> list[tuple[str, str, LiteralString, dict[str, Any]]]:
    """(selector kind, name, query, params): forget's queries with the parameters forget would
    pass for the spare targets (read first, as forget would, to get the ids)."""
    now = datetime.now(UTC)
    subject_id, subject_key, predicate = targets.spare_pair
    # The bench forgets as a trusted caller, at every tier (as `forget` from Python does).
    space_params = {"spaceId": space_id, "maxPrivacy": int(Privacy.SECRET)}
    of_key = await graph.read(
        selectors.ROWS_OF_KEY_OF_CLAIM, id=targets.spare_claim, **space_params
    )
    of_pair = await graph.read(
        selectors.CLAIMS_OF_SUBJECT_PREDICATE,
        subjectId=subject_id,
        predicate=predicate,
        **space_params,
    )
    observed = await graph.read(selectors.OBSERVATIONS_OF_EPISODE, id=targets.spare_episode)
    observations = sorted(observed[0]["ids"])
    citing = await graph.read(erasure.CLAIMS_CITING_OBSERVATIONS, ids=observations)
    citing_ids = sorted(row["id"] for row in citing)
    cases: list[tuple[str, str, LiteralString, dict[str, Any]]] = [
        ("all", "writing.TICK_IN_SPACE", writing.TICK_IN_SPACE, {"space": space}),
        ("all", "holds.ACTIVE_HOLDS", holds.ACTIVE_HOLDS, space_params),
        ("all", "erasure.SPACE_SALT", erasure.SPACE_SALT, {**space_params, "fresh": "x"}),
        (
            "all",
            "forget.CREATE_TOMBSTONE",
            forgetting.CREATE_TOMBSTONE,
            {"props": {"id": "bench-profile", "spaceId": space_id}, "now": now},
        ),
        (
            "all",
            "audit.CREATE_AUDIT_EVENTS",
            audit.CREATE_AUDIT_EVENTS,
            {"events": [{"id": "bench-profile"}], "now": now, **space_params, "actor": ACTOR.name},
        ),
        ("all", "purge_outbox.PENDING_BLOBS", purge_outbox.PENDING_BLOBS, {}),
    ]
    for kind, ids in (("claim", of_key[0]["ids"]), ("subject+predicate", of_pair[0]["ids"])):
        cases += [
            (kind, "erasure.EXCLUSIVE_EVIDENCE", erasure.EXCLUSIVE_EVIDENCE, {"ids": ids}),
            (kind, "erasure.ERASE_CLAIMS", erasure.ERASE_CLAIMS, {"ids": ids, "now": now}),
        ]
    cases += [
        (
            "claim",
            "selectors.ROWS_OF_KEY_OF_CLAIM",
            selectors.ROWS_OF_KEY_OF_CLAIM,
            {"id": targets.spare_claim, **space_params},
        ),
        (
            "subject+predicate",
            "entities.ENTITIES_BY_KEY",
            entities.ENTITIES_BY_KEY,
            {"keys": [subject_key], **space_params, "now": now},
        ),
        (
            "subject+predicate",
            "selectors.CLAIMS_OF_SUBJECT_PREDICATE",
            selectors.CLAIMS_OF_SUBJECT_PREDICATE,
            {"subjectId": subject_id, "predicate": predicate, **space_params},
        ),
        (
            "episode",
            "selectors.ONE_NODE[EPISODE]",
            selectors.ONE_NODE["EPISODE"],
            {"id": targets.spare_episode, **space_params},
        ),
        (
            "episode",
            "selectors.OBSERVATIONS_OF_EPISODE",
            selectors.OBSERVATIONS_OF_EPISODE,
            {"id": targets.spare_episode},
        ),
        (
            "episode",
            "erasure.CLAIMS_CITING_OBSERVATIONS",
            erasure.CLAIMS_CITING_OBSERVATIONS,
            {"ids": observations},
        ),
        (
            "episode",
            "erasure.OBSERVATION_TEXTS",
            erasure.OBSERVATION_TEXTS,
            {"ids": observations},
        ),
        (
            "episode",
            "erasure.ERASE_OBSERVATIONS",
            erasure.ERASE_OBSERVATIONS,
            {"ids": observations, "now": now},
        ),
        (
            "episode",
            "erasure.ERASE_EPISODES",
            erasure.ERASE_EPISODES,
            {"ids": [targets.spare_episode], "now": now},
        ),
        (
            "episode",
            "erasure.CASCADE",
            erasure.CASCADE,
            {
                "ids": citing_ids,
                **space_params,
                "now": now,
                "reason": erasure.CASCADE_REASON,
                "actor": ACTOR.name,
            },
        ),
    ]
    return cases


async def print_profiles(
    console: Console, graph: Graph, space: str, space_id: str, targets: Targets
) -> None:
    """PROFILE forget's queries on the spare targets, each in a rolled-back transaction."""
    table = Table(
        title="forget's queries on one spare target per kind: PROFILE, rolled back",
        caption="costliest: the operator with the most db hits",
    )
    for header in ("selector", "query", "db hits", "rows", "costliest operator", "scans"):
        table.add_column(header, justify="right" if header in ("db hits", "rows") else "left")
    for kind, name, query, params in await forget_cases(graph, space, space_id, targets):
        steps = await profile_rolled_back(graph, query, params)
        costliest = max(steps, key=lambda s: s.db_hits or 0)
        scans = ", ".join(s.operator for s in steps if s.operator in SCAN_OPERATORS)
        details = " ".join(costliest.details.split())
        table.add_row(
            kind,
            name,
            f"{sum(s.db_hits or 0 for s in steps):,}",
            f"{steps[0].rows or 0:,}",
            f"{costliest.operator} ({costliest.db_hits or 0:,}) {details[:50]}",
            f"[red]{scans}[/red]" if scans else "",
        )
    console.print(table)


@dataclass
class Breakdown:
    """Per selector kind: total ms per forget, and ms per query text inside its transaction."""

    totals: dict[str, list[float]] = field(default_factory=dict)
    queries: dict[str, dict[str, list[float]]] = field(default_factory=dict)


async def time_queries(runner: Runner, targets: Targets, first: int, rounds: int) -> Breakdown:
    """`rounds` more forgets of each kind with every query timed (after the measured rounds, so
    the wrapper's overhead does not touch them)."""
    breakdown = Breakdown()
    for kind in FORGETS:
        with timed_queries() as times:
            for index in range(first, first + rounds):
                began = time.perf_counter()
                await runner.calls(targets, index)[kind]()
                breakdown.totals.setdefault(kind, []).append(1000 * (time.perf_counter() - began))
        breakdown.queries[kind] = times
    return breakdown


def report_breakdown(console: Console, breakdown: Breakdown, rounds: int) -> None:
    names = {query: name for name, query in forget_path_queries()}
    table = Table(
        title=f"inside forget: ms per query over {rounds} more forgets of each kind",
        caption=(
            "per forget: the query's total ms / forgets · rest: mean forget minus the queries "
            "(commit, sessions, Python) · forget.PENDING_BLOBS: purge_blobs' read after commit"
        ),
    )
    for header in ("selector", "query", "median ms per run", "runs/forget", "ms per forget"):
        table.add_column(header, justify="left" if header in ("selector", "query") else "right")
    for kind in FORGETS:
        times = breakdown.queries[kind]
        ordered = sorted(times.items(), key=lambda item: -sum(item[1]))
        for number, (query, ms) in enumerate(ordered):
            table.add_row(
                kind if number == 0 else "",
                names.get(query, " ".join(query.split())[:48]),
                f"{statistics.median(ms):.1f}",
                f"{len(ms) / rounds:.1f}",
                f"{sum(ms) / rounds:.1f}",
            )
        total = statistics.mean(breakdown.totals[kind])
        queries = sum(sum(ms) for ms in times.values()) / rounds
        table.add_row("", "rest", "", "", f"{total - queries:.1f}")
        table.add_row("", "[bold]forget (mean)[/bold]", "", "", f"{total:.1f}", end_section=True)
    console.print(table)


def report(console: Console, timings: Timings, samples: int, revisions: int) -> None:
    table = Table(
        title=(
            f"forget in a space of {revisions:,} claim revisions: ms over {samples} rounds, "
            "variants interleaved per round"
        ),
        caption=(
            f"gate: p95 ≤ {GATE_MS:.0f} ms (seed) · goal: p95 ≤ {GOAL_MS:.0f} ms · x raw: "
            "percentile / raw erase percentile · raw erase: one transaction SET erasedAt, "
            "REMOVE content on one claim · purge_blobs: the read forget ends with, alone"
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
    plans: Annotated[bool, typer.Option(help="EXPLAIN forget's queries, list scans.")] = True,
    per_query: Annotated[
        int, typer.Option(min=0, help="More forgets per kind with each query timed (0: none).")
    ] = 20,
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
            plans=plans,
            per_query=per_query,
        )
    )


if __name__ == "__main__":
    app()
