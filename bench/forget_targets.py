"""The forget bench's space and targets: a `bench-forget-<n>` space generated through the
commands and reused until too much of it is forgotten, and disjoint targets of every kind drawn
from what is still live in it (read with Cypher of the bench's own: choosing, not timed).
"""

from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass
from typing import Any, LiteralString

import typer
from rich.console import Console

from bench._support import OPERATOR, delete_space
from bench.generate import generate
from bench.mix import END, ClaimMix, entity_counts
from graph.memory import Memory

ACTOR = OPERATOR
PREFIX = "bench-forget-"
REFERENCE_OBSERVATIONS = 20

# What the space holds and which targets are left, read before and after the rounds (not timed).
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


@dataclass(frozen=True)
class Targets:
    """What each measured call forgets, erases or remembers (one per call, all distinct)."""

    claims: list[str]
    pairs: list[tuple[str, str]]
    """(subject entity key, predicate)."""
    episodes: list[str]
    raw: list[str]
    remember: list[dict[str, Any]]


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


async def space_use(memory: Memory, space_id: str) -> Use:
    row = (await memory.graph.read(SPACE_USE, spaceId=space_id))[0]
    return Use(row["episodes"], row["erasedEpisodes"], row["revisions"], row["keys"], row["live"])


async def prepare_space(
    memory: Memory,
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
    spaces = {s.name: s.id for s in await memory.admin.all_spaces() if s.name.startswith(prefix)}
    numbered = sorted(
        (int(name.removeprefix(prefix)), name)
        for name in spaces
        if re.fullmatch(r"\d+", name.removeprefix(prefix))
    )
    if numbered and not fresh:
        name = numbered[-1][1]
        use = await space_use(memory, spaces[name])
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
        await delete_space(memory, old)
    name = f"{prefix}{numbered[-1][0] + 1 if numbered else 1}"
    console.print(f"generating space {name!r}: {claims:,} claims, {episode_claims} per episode …")
    generated = await generate(
        memory, name, claims=claims, seed=seed, batch=episode_claims, console=console
    )
    console.print(f"generated in {generated.seconds:.0f} s")
    return name, next(s.id for s in await memory.admin.all_spaces() if s.name == name)


async def pick_targets(
    memory: Memory, space: str, space_id: str, needed: int, rng: random.Random
) -> Targets:
    """`needed` targets of each kind, disjoint (see the module docstring)."""
    graph = memory.graph
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
    episode = await memory.writes.open_episode(ACTOR, space, {"title": "bench forget reference"})
    said = await memory.writes.record_observations(
        ACTOR,
        space,
        [
            {
                "episode_id": episode.id,
                "content": f"Reference observation {n} for remember latency.",
                "role": "user",
                "observed_at": END,
            }
            for n in range(REFERENCE_OBSERVATIONS)
        ],
    )
    mix = ClaimMix(rng, entity_counts(len(entity_keys)))
    mix.memory_serial = time.time_ns() // 1000  # keys never used before in a reused space
    inputs = [mix.memory(END).remember_input(said[n % len(said)].id) for n in range(needed)]
    return Targets(
        claims=claim_ids[:needed],
        pairs=[(entity_keys[subject], predicate) for subject, predicate in chosen_pairs],
        episodes=chosen_episodes,
        raw=claim_ids[needed:],
        remember=inputs,
    )
