"""A realistic Engram graph of N claims, written through Engram's own door (`Memory`).

Read benchmarks (related, explainRelation, search, time travel, history) need a graph shaped like
real use, and written the way real use writes it: every claim cites an observation of an episode,
relations start and end between 2019 and 2026, a few claims are corrected. Only the public
commands are used (`create_space`, `open_episode`, `record_observations`, `remember`, `correct`,
`seal_episode`), so every invariant — evidence, revisions, typed relations, audit — holds as it
would in production; raw Cypher would build a graph Engram could never have produced.

    >>> generated = await generate(memory, "bench", claims=100_000)
    >>> generated.entity_keys["person"][:2]
    ('entity:person:p0', 'entity:person:p1')

    python -m bench.generate --claims 100000 --space bench [--checkpoint bench.json]

The mix: ~10 % entity claims (people, orgs, projects), ~50 % relation facts between them
(WORKS_AT, KNOWS, MEMBER_OF, CONTRIBUTES_TO, with valid intervals), ~40 % typed memories
(pref, goal, task, decision, event), each key new, so each remembered claim is revision 1; ~2 %
of each conversation's relations and memories are then corrected in it (SUPERSEDE ending them
earlier, or RETRACT). The same seed gives the same keys, values and intervals (ids are UUIDs).

Each conversation (`batch` claims) is one episode: opened, its observations recorded, its claims
remembered and corrected, sealed. With a `checkpoint` file the run can be killed and started
again: it goes on after the last sealed conversation (one that was cut off is sealed as it is,
and written again unless its claims were already remembered).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import Progress, TaskID

from bench._support import OPERATOR, delete_space, open_memory, progress_bar
from bench.mix import (
    CORRECTION_SHARE,
    END,
    ENTITY_SHARE,
    RELATION_SHARE,
    START,
    ClaimMix,
    ClaimSpec,
    entity_counts,
)
from bench.resume import Checkpoint, remembered, seal_cut
from graph.domain.model import Claim
from graph.domain.vocabulary import CorrectionKind
from graph.memory import Memory
from graph.runtime import Graph, get_settings

ACTOR = OPERATOR


@dataclass(frozen=True)
class GeneratedGraph:
    """What later benchmarks need to aim their reads at the generated graph (of this run only,
    when it resumed an earlier one)."""

    space: str
    episode_ids: tuple[str, ...]
    entity_keys: dict[str, tuple[str, ...]]
    """Entity keys by kind (`person`, `org`, `project`)."""
    claim_ids: tuple[str, ...]
    """Every remembered claim, in write order (entities first)."""
    relations: int
    """Relation facts among the claims."""
    observation_ids: tuple[str, ...]
    corrections: int
    seconds: float
    """This run's; `total_seconds` adds those of the runs it resumed."""
    remember_seconds: float
    """Time spent inside `remember` calls only."""
    total_seconds: float = 0.0
    resumed_at: int = 0
    """Conversations an earlier run had written already."""

    @property
    def claims_per_second(self) -> float:
        return len(self.claim_ids) / self.seconds if self.seconds else 0.0


@dataclass
class _Run:
    """What a generation run has written so far."""

    memory: Memory
    space: str
    seed: int
    claims_per_observation: int
    correction_share: float
    progress: Progress
    task: TaskID
    checkpoint: Checkpoint
    episode_ids: list[str] = field(default_factory=list)
    observation_ids: list[str] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    relations: int = 0
    corrections: int = 0
    remember_seconds: float = 0.0

    async def write_chunk(self, number: int, specs: list[ClaimSpec]) -> None:
        """One conversation: open an episode, record its observations in one transaction,
        remember the claims they support in one transaction, correct a few, seal it."""
        per = self.claims_per_observation
        groups = [specs[i : i + per] for i in range(0, len(specs), per)]
        # An observation is as late as the latest claim it supports, so no relation it
        # reports starts after it was said.
        times = [max(spec.observed_at for spec in group) for group in groups]
        episode = await self.memory.writes.open_episode(
            ACTOR,
            self.space,
            {
                "title": f"bench conversation {number + 1}",
                "kind": "conversation",
                "participants": ["user", "assistant"],
                "started_at": times[0],
            },
        )
        self.checkpoint.open_episode = episode.id
        self.checkpoint.save()
        self.episode_ids.append(episode.id)
        observations = await self.memory.writes.record_observations(
            ACTOR,
            self.space,
            [
                {
                    "episode_id": episode.id,
                    "content": " ".join(spec.sentence for spec in group),
                    "role": "user",
                    "observed_at": at,
                }
                for group, at in zip(groups, times, strict=True)
            ],
        )
        self.observation_ids.extend(o.id for o in observations)
        items = [
            spec.remember_input(observation.id)
            for group, observation in zip(groups, observations, strict=True)
            for spec in group
        ]
        started = time.perf_counter()
        claims = await self.memory.writes.remember(ACTOR, self.space, items)
        self.remember_seconds += time.perf_counter() - started
        self.claims.extend(claims)
        self.relations += sum(spec.kind == "relation" for spec in specs)
        # Corrections draw from a generator of their own per conversation, so a resumed run
        # draws the same claims as an uninterrupted one.
        rng = random.Random(f"{self.seed}:{number}")
        keys = [claim.key for claim in claims]
        targets = [
            claim
            for spec, claim in zip(specs, claims, strict=True)
            if spec.kind != "entity"
            and keys.count(claim.key) == 1
            and rng.random() < self.correction_share
        ]
        await self.correct(episode.id, times[-1], targets, rng)
        await self.seal(episode.id, times[-1])
        self.progress.advance(self.task, len(claims))

    async def seal(self, episode_id: str, ended_at: datetime) -> None:
        await self.memory.writes.seal_episode(
            ACTOR, self.space, {"episode_id": episode_id, "ended_at": ended_at}
        )
        self.checkpoint.done += 1
        self.checkpoint.open_episode = None
        self.checkpoint.save()

    async def correct(
        self, episode_id: str, at: datetime, targets: list[Claim], rng: random.Random
    ) -> None:
        """Correct each target once, one `correct` transaction each (there is no batched form):
        60 % SUPERSEDE ending the claim earlier (a time-travel read sees the change), 40 %
        RETRACT, each citing a user observation saying so."""
        if not targets:
            return
        said = await self.memory.writes.record_observations(
            ACTOR,
            self.space,
            [
                {
                    "episode_id": episode_id,
                    "content": f"That is wrong about {claim.key}.",
                    "role": "user",
                    "observed_at": at,
                }
                for claim in targets
            ],
        )
        self.observation_ids.extend(o.id for o in said)
        for claim, observation in zip(targets, said, strict=True):
            change: dict[str, Any] = {
                "claim_id": claim.id,
                "evidence": [{"observation_id": observation.id}],
            }
            if rng.random() < 0.6:
                start = claim.valid_from or START
                end = claim.valid_to or max(END, start + timedelta(days=365))
                valid_to = start + max(timedelta(days=1), (end - start) * rng.uniform(0.2, 0.8))
                change |= {
                    "kind": CorrectionKind.SUPERSEDE,
                    "reason": "it ended earlier than first said",
                    "valid_to": valid_to,
                }
            else:
                change |= {"kind": CorrectionKind.RETRACT, "reason": "the user said it never held"}
            await self.memory.writes.correct(ACTOR, self.space, change)
            self.corrections += 1


def _chunks(specs: Iterator[ClaimSpec], size: int) -> Iterator[list[ClaimSpec]]:
    chunk: list[ClaimSpec] = []
    for spec in specs:
        chunk.append(spec)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


async def generate(
    target: Memory | Graph,
    space: str,
    claims: int = 100_000,
    seed: int = 7,
    batch: int = 500,
    *,
    claims_per_observation: int = 2,
    correction_share: float = CORRECTION_SHARE,
    console: Console | None = None,
    show_progress: bool = True,
    checkpoint: Path | None = None,
) -> GeneratedGraph:
    """Create `space` and fill it with `claims` remembered claims (plus ~2 % corrections),
    `batch` claims per conversation; with `checkpoint`, go on where a killed run stopped."""
    if claims < 50:
        raise ValueError("generate at least 50 claims, so every kind of claim appears")
    if batch < 1 or claims_per_observation < 1:
        raise ValueError("batch and claims_per_observation are at least 1")
    memory = target if isinstance(target, Memory) else Memory(target, get_settings())
    plan = {"space": space, "claims": claims, "seed": seed, "batch": batch}
    state = Checkpoint.load(checkpoint, plan | {"per": claims_per_observation})
    rng = random.Random(seed)
    counts = entity_counts(max(5, round(claims * ENTITY_SHARE)))
    n_entities = sum(counts.values())
    n_relations = round(claims * RELATION_SHARE)
    n_memories = claims - n_entities - n_relations
    mix = ClaimMix(rng, counts)

    def said_at(index: int) -> datetime:
        return START + (END - START) * (index / claims)

    # Relations and memories interleaved, in an order fixed by the seed.
    kinds = ["relation"] * n_relations + ["memory"] * n_memories
    rng.shuffle(kinds)

    def specs() -> Iterator[ClaimSpec]:
        for index, (kind, number) in enumerate(mix.entities()):
            yield mix.entity(kind, number, said_at(index))
        for index, kind in enumerate(kinds, start=n_entities):
            at = said_at(index)
            yield mix.relation(at) if kind == "relation" else mix.memory(at)

    def conversations() -> Iterator[list[ClaimSpec]]:
        # Entities first, in conversations of their own: `remember` resolves a relation's
        # entities before it writes, so they must have been committed by an earlier one.
        stream = specs()
        yield from _chunks((next(stream) for _ in range(n_entities)), batch)
        yield from _chunks(stream, batch)

    started = run_started = time.perf_counter()
    exists = any(s.name == space for s in await memory.admin.all_spaces())
    if not exists or not state.started:
        state.save()  # first: a kill before the space is created leaves a checkpoint to go on
        # Refuses a space that exists without a checkpoint of this generation.
        await memory.writes.create_space(ACTOR, space, "generated by bench.generate")
    resumed_at = state.done
    with progress_bar(console, disable=not show_progress) as progress:
        run = _Run(
            memory,
            space,
            seed,
            claims_per_observation,
            correction_share,
            progress,
            progress.add_task("remember", total=claims),
            state,
        )
        for number, chunk in enumerate(conversations()):
            if number < state.done:  # written by an earlier run: only drawn again
                progress.advance(run.task, len(chunk))
                continue
            if state.open_episode is not None:  # cut off by a kill
                await seal_cut(memory, space, state.open_episode, chunk)
                state.open_episode = None
                if await remembered(memory, space, chunk):
                    state.done += 1
                state.save()
                if number < state.done:
                    progress.advance(run.task, len(chunk))
                    continue
            await run.write_chunk(number, chunk)
            state.seconds += time.perf_counter() - started
            state.save()
            started = time.perf_counter()
    state.seconds += time.perf_counter() - started
    state.finished = True
    state.save()
    return GeneratedGraph(
        space=space,
        episode_ids=tuple(run.episode_ids),
        entity_keys=mix.entity_keys(),
        claim_ids=tuple(claim.id for claim in run.claims),
        relations=run.relations,
        observation_ids=tuple(run.observation_ids),
        corrections=run.corrections,
        seconds=time.perf_counter() - run_started,
        remember_seconds=run.remember_seconds,
        total_seconds=state.seconds,
        resumed_at=resumed_at,
    )


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def main(
    claims: Annotated[int, typer.Option(min=50, help="Claims to remember.")] = 100_000,
    space: Annotated[str, typer.Option(help="Space to create (must not exist).")] = "bench",
    seed: Annotated[int, typer.Option(help="Seed of the mix, keys, values and times.")] = 7,
    batch: Annotated[int, typer.Option(min=1, help="Claims per conversation.")] = 500,
    claims_per_observation: Annotated[
        int, typer.Option(min=1, help="Claims citing each observation.")
    ] = 2,
    replace: Annotated[
        bool, typer.Option(help="Delete the space first (only 'bench*' spaces).")
    ] = False,
    checkpoint: Annotated[
        Path | None, typer.Option(help="JSON file of progress: a killed run goes on from it.")
    ] = None,
) -> None:
    """Generate a realistic graph of CLAIMS claims in a fresh space, through Engram's commands."""
    console = Console()

    async def run() -> GeneratedGraph:
        async with open_memory() as memory:
            if replace and await delete_space(memory, space):
                console.print(f"deleted the old space {space!r}")
                if checkpoint is not None:
                    checkpoint.unlink(missing_ok=True)
            return await generate(
                memory,
                space,
                claims=claims,
                seed=seed,
                batch=batch,
                claims_per_observation=claims_per_observation,
                console=console,
                checkpoint=checkpoint,
            )

    generated = asyncio.run(run())
    n = len(generated.claim_ids)
    console.print(
        f"space {generated.space!r}: {n} claims written by this run ({generated.relations}"
        f" relations), {generated.corrections} corrections,"
        f" {len(generated.observation_ids)} observations, {len(generated.episode_ids)} episodes;"
        f" {generated.total_seconds:.1f} s in all"
    )


if __name__ == "__main__":
    app()
