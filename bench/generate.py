"""A realistic Engram graph of N claims, written through Engram's own commands.

Read benchmarks (related, explainRelation, search, time travel, history) need a graph shaped like
real use, and written the way real use writes it: every claim cites an observation of an episode,
relations start and end between 2019 and 2026, a few claims are corrected. Only the public
commands are used (`create_space`, `open_episode`, `record_observations`, `seal_episode`,
`remember`, `correct`), so every invariant — evidence, revisions, typed relations, audit — holds
as it would in production; raw Cypher would build a graph Engram could never have produced.

    >>> generated = await generate(graph, "bench", claims=100_000)
    >>> generated.entity_keys["person"][:2]
    ('entity:person:p0', 'entity:person:p1')

    python -m bench.generate --claims 100000 --space bench

The mix: ~10 % entity claims (people, orgs, projects), ~50 % relation facts between them
(WORKS_AT, KNOWS, MEMBER_OF, CONTRIBUTES_TO, with valid intervals), ~40 % typed memories
(pref, goal, task, decision, event), each key new, so each remembered claim is revision 1; then
~2 % of the relations and memories are corrected (SUPERSEDE ending them earlier, or RETRACT).
The same seed gives the same keys, values and intervals (ids are UUIDs and differ per run).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress, TaskID

from bench._support import delete_space, open_graph, progress_bar
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
from graph.commands.correct import CorrectInput, correct
from graph.commands.episodes import (
    ObservationInput,
    OpenEpisodeInput,
    SealEpisodeInput,
    open_episode,
    record_observations,
    seal_episode,
)
from graph.commands.evidence import EvidenceRef
from graph.commands.remember import remember
from graph.commands.spaces import create_space
from graph.domain.actor import Actor
from graph.domain.model import Claim, CorrectionKind, EpisodeKind, Role
from graph.store.db import Graph

ACTOR = Actor.operator("bench:generate")


@dataclass(frozen=True)
class RelationSample:
    """A relation fact as remembered (revision 1; see `GeneratedGraph.corrections`)."""

    claim_id: str
    subject_key: str
    predicate: str
    object_key: str
    valid_from: datetime
    valid_to: datetime | None


@dataclass(frozen=True)
class Correction:
    claim_id: str
    """The corrected revision (superseded by the correction)."""
    new_claim_id: str
    kind: CorrectionKind


@dataclass(frozen=True)
class GeneratedGraph:
    """What later benchmarks need to aim their reads at the generated graph."""

    space: str
    space_id: str
    episode_ids: tuple[str, ...]
    entity_keys: dict[str, tuple[str, ...]]
    """Entity keys by kind (`person`, `org`, `project`)."""
    claim_ids: tuple[str, ...]
    """Every remembered claim, in write order (entities first)."""
    relations: tuple[RelationSample, ...]
    memory_keys: tuple[str, ...]
    observation_ids: tuple[str, ...]
    corrections: tuple[Correction, ...]
    seconds: float
    remember_seconds: float
    """Time spent inside `remember` calls only."""

    @property
    def episode_id(self) -> str:
        return self.episode_ids[0]

    @property
    def claims_per_second(self) -> float:
        return len(self.claim_ids) / self.seconds if self.seconds else 0.0


@dataclass
class _Run:
    """What a generation run has written so far."""

    graph: Graph
    space: str
    claims_per_observation: int
    progress: Progress
    task: TaskID
    episode_ids: list[str] = field(default_factory=list)
    observation_ids: list[str] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    remember_seconds: float = 0.0

    async def write_chunk(self, specs: list[ClaimSpec]) -> list[Claim]:
        """One conversation: open an episode, record its observations in one transaction,
        remember the claims they support in one transaction, seal it."""
        per = self.claims_per_observation
        groups = [specs[i : i + per] for i in range(0, len(specs), per)]
        # An observation is as late as the latest claim it supports, so no relation it
        # reports starts after it was said.
        times = [max(spec.observed_at for spec in group) for group in groups]
        episode = await open_episode(
            self.graph,
            self.space,
            OpenEpisodeInput(
                title=f"bench conversation {len(self.episode_ids) + 1}",
                kind=EpisodeKind.CONVERSATION,
                participants=["user", "assistant"],
                started_at=times[0],
            ),
            actor=ACTOR,
        )
        self.episode_ids.append(episode.id)
        observations = await record_observations(
            self.graph,
            self.space,
            [
                ObservationInput(
                    episode_id=episode.id,
                    content=" ".join(spec.sentence for spec in group),
                    role=Role.USER,
                    observed_at=at,
                )
                for group, at in zip(groups, times, strict=True)
            ],
            actor=ACTOR,
        )
        self.observation_ids.extend(o.id for o in observations)
        items = [
            spec.remember_input(observation.id)
            for group, observation in zip(groups, observations, strict=True)
            for spec in group
        ]
        started = time.perf_counter()
        claims = await remember(self.graph, self.space, items, actor=ACTOR)
        self.remember_seconds += time.perf_counter() - started
        await seal_episode(
            self.graph,
            self.space,
            SealEpisodeInput(episode_id=episode.id, ended_at=times[-1]),
            actor=ACTOR,
        )
        self.claims.extend(claims)
        self.progress.advance(self.task, len(claims))
        return claims


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
    graph: Graph,
    space: str,
    claims: int = 100_000,
    seed: int = 7,
    batch: int = 500,
    *,
    claims_per_observation: int = 2,
    correction_share: float = CORRECTION_SHARE,
    console: Console | None = None,
    show_progress: bool = True,
) -> GeneratedGraph:
    """Create `space` and fill it with `claims` remembered claims (plus ~2 % corrections),
    `batch` claims per `remember` transaction."""
    if claims < 50:
        raise ValueError("generate at least 50 claims, so every kind of claim appears")
    if batch < 1 or claims_per_observation < 1:
        raise ValueError("batch and claims_per_observation are at least 1")
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

    def entity_specs() -> Iterator[ClaimSpec]:
        for index, (kind, number) in enumerate(mix.entities()):
            yield mix.entity(kind, number, said_at(index))

    def other_specs() -> Iterator[ClaimSpec]:
        for index, kind in enumerate(kinds, start=n_entities):
            at = said_at(index)
            yield mix.relation(at) if kind == "relation" else mix.memory(at)

    started = time.perf_counter()
    created = await create_space(graph, space, "generated by bench.generate", actor=ACTOR)
    relations: list[RelationSample] = []
    memory_keys: list[str] = []
    to_correct: dict[str, Claim] = {}
    seen_keys: set[str] = set()
    with progress_bar(console, disable=not show_progress) as progress:
        run = _Run(
            graph,
            space,
            claims_per_observation,
            progress,
            progress.add_task("remember", total=claims),
        )
        # Entities first: `remember` resolves a relation's entities before it writes, so they
        # must have been committed by an earlier transaction.
        for chunk in _chunks(entity_specs(), batch):
            await run.write_chunk(chunk)
        for chunk in _chunks(other_specs(), batch):
            written = await run.write_chunk(chunk)
            for spec, claim in zip(chunk, written, strict=True):
                if spec.kind == "relation":
                    assert claim.valid_from is not None
                    relations.append(
                        RelationSample(
                            claim.id,
                            spec.fields["subject"].key,
                            spec.fields["predicate"],
                            spec.fields["object"].key,
                            claim.valid_from,
                            claim.valid_to,
                        )
                    )
                else:
                    memory_keys.append(claim.key)
                # Only a claim that is still current can be corrected: a key remembered again
                # (a repeated triple in a small graph) has moved on to a newer revision.
                if claim.key in seen_keys:
                    to_correct.pop(claim.key, None)
                elif rng.random() < correction_share:
                    to_correct[claim.key] = claim
                seen_keys.add(claim.key)
        corrections = await _correct(graph, space, rng, run, list(to_correct.values()), progress)

    return GeneratedGraph(
        space=space,
        space_id=created.id,
        episode_ids=tuple(run.episode_ids),
        entity_keys=mix.entity_keys(),
        claim_ids=tuple(claim.id for claim in run.claims),
        relations=tuple(relations),
        memory_keys=tuple(memory_keys),
        observation_ids=tuple(run.observation_ids),
        corrections=tuple(corrections),
        seconds=time.perf_counter() - started,
        remember_seconds=run.remember_seconds,
    )


async def _correct(
    graph: Graph,
    space: str,
    rng: random.Random,
    run: _Run,
    targets: list[Claim],
    progress: Progress,
) -> list[Correction]:
    """Correct each target once, one `correct` transaction each (there is no batched form):
    60 % SUPERSEDE ending the claim earlier (a time-travel read sees the change), 40 % RETRACT.
    Each correction cites a user observation saying so, recorded in one later episode."""
    if not targets:
        return []
    task = progress.add_task("correct", total=len(targets))
    episode = await open_episode(
        graph,
        space,
        OpenEpisodeInput(title="bench corrections", started_at=END - timedelta(days=1)),
        actor=ACTOR,
    )
    run.episode_ids.append(episode.id)
    said = await record_observations(
        graph,
        space,
        [
            ObservationInput(
                episode_id=episode.id,
                content=f"That is wrong about {claim.key}.",
                role=Role.USER,
                observed_at=END,
            )
            for claim in targets
        ],
        actor=ACTOR,
    )
    run.observation_ids.extend(o.id for o in said)
    corrections: list[Correction] = []
    for claim, observation in zip(targets, said, strict=True):
        evidence = [EvidenceRef(observation_id=observation.id)]
        if rng.random() < 0.6:
            start = claim.valid_from or START
            end = claim.valid_to or max(END, start + timedelta(days=365))
            valid_to = start + max(timedelta(days=1), (end - start) * rng.uniform(0.2, 0.8))
            change = CorrectInput(
                claim_id=claim.id,
                kind=CorrectionKind.SUPERSEDE,
                reason="it ended earlier than first said",
                evidence=evidence,
                valid_to=valid_to,
            )
        else:
            change = CorrectInput(
                claim_id=claim.id,
                kind=CorrectionKind.RETRACT,
                reason="the user said it never held",
                evidence=evidence,
            )
        new = await correct(graph, space, change, actor=ACTOR)
        corrections.append(Correction(claim.id, new.id, change.kind))
        progress.advance(task)
    await seal_episode(
        graph, space, SealEpisodeInput(episode_id=episode.id, ended_at=END), actor=ACTOR
    )
    return corrections


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def main(
    claims: Annotated[int, typer.Option(min=50, help="Claims to remember.")] = 100_000,
    space: Annotated[str, typer.Option(help="Space to create (must not exist).")] = "bench",
    seed: Annotated[int, typer.Option(help="Seed of the mix, keys, values and times.")] = 7,
    batch: Annotated[int, typer.Option(min=1, help="Claims per remember transaction.")] = 500,
    claims_per_observation: Annotated[
        int, typer.Option(min=1, help="Claims citing each observation.")
    ] = 2,
    replace: Annotated[
        bool, typer.Option(help="Delete the space first (only 'bench*' spaces).")
    ] = False,
) -> None:
    """Generate a realistic graph of CLAIMS claims in a fresh space, through Engram's commands."""
    console = Console()

    async def run() -> GeneratedGraph:
        async with open_graph() as graph:
            if replace and await delete_space(graph, space):
                console.print(f"deleted the old space {space!r}")
            return await generate(
                graph,
                space,
                claims=claims,
                seed=seed,
                batch=batch,
                claims_per_observation=claims_per_observation,
                console=console,
            )

    generated = asyncio.run(run())
    n = len(generated.claim_ids)
    entities = sum(len(keys) for keys in generated.entity_keys.values())
    console.print(
        f"space {generated.space!r}: {n} claims ({entities}"
        f" entities, {len(generated.relations)} relations, {len(generated.memory_keys)} memories),"
        f" {len(generated.corrections)} corrections, {len(generated.observation_ids)} observations,"
        f" {len(generated.episode_ids)} episodes"
    )
    console.print(
        f"took {generated.seconds:.1f} s: {generated.claims_per_second:,.0f} claims/s overall, "
        f"{n / generated.remember_seconds:,.0f} claims/s inside remember"
    )


if __name__ == "__main__":
    app()
