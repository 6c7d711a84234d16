"""A space with a few hundred claim histories, and a space's current view to compare exactly.

The histories: people and orgs (two orgs renamed), jobs (some ended by a correction, some
retracted), ages revised from a later date, preferences overwritten (some private), tasks moved
on, decisions with coexisting versions.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph.commands.episodes import ObservationInput, record_observations
from graph.commands.remember import RememberInput, remember
from graph.domain.inputs import parse
from graph.domain.model import Claim, canonical_json
from graph.reads.listing import MAX_PAGE, ClaimFilter, list_claims
from graph.reads.resources import entities_by_ids
from graph.reads.traverse import related
from graph.reads.visibility import View
from graph.runtime import Graph
from tests.people_story import on
from tests.story import Story

PEOPLE = 40
ORGS = 8


async def _said(story: Story, texts: list[tuple[str, Any, int]]) -> list[str]:
    """Record (text, observed at, privacy) observations in one transaction; their ids."""
    observations = await record_observations(
        story.graph,
        story.space,
        [
            ObservationInput(
                episode_id=story.episode_id, content=text, observed_at=at, privacy=privacy
            )
            for text, at, privacy in texts
        ],
        actor=story.actor,
    )
    return [o.id for o in observations]


async def _remember_all(story: Story, items: list[tuple[str, dict[str, Any]]]) -> list[Claim]:
    """Remember each (evidence text, fields) in one transaction, each citing its own message."""
    ids = await _said(
        story,
        [(text, fields.get("valid_from"), fields.get("privacy", 1)) for text, fields in items],
    )
    inputs = [
        parse(RememberInput, {**fields, "evidence": [{"observation_id": said}]})
        for said, (_, fields) in zip(ids, items, strict=True)
    ]
    return await remember(story.graph, story.space, inputs, actor=story.actor)


def person(i: int) -> str:
    return f"entity:person:p{i}"


def org(i: int) -> str:
    return f"entity:org:o{i % ORGS}"


async def seed_histories(story: Story) -> int:
    """Write the histories; the number of claim keys written."""
    entities = [(person(i), f"Person {i}") for i in range(PEOPLE)]
    entities += [(org(i), f"Org {i}") for i in range(ORGS)]
    await _remember_all(
        story,
        [
            (f"{name} exists", {"key": key, "value": {"name": name}, "valid_from": on(2018, 1)})
            for key, name in entities
        ],
    )
    await _remember_all(
        story,
        [
            (
                f"Org {i} is now called Org {i} Global",
                {
                    "key": org(i),
                    "value": {"name": f"Org {i} Global", "aliases": [f"Org {i}"]},
                    "valid_from": on(2022, 1),
                },
            )
            for i in (1, 2)
        ],
    )
    jobs = await _remember_all(
        story,
        [
            (
                f"Person {i} works at Org {i % ORGS}",
                {
                    "type": "fact",
                    "subject": {"key": person(i)},
                    "predicate": "WORKS_AT",
                    "object": {"key": org(i)},
                    "valid_from": on(2019 + i % 4, 1 + i % 12),
                    "confidence": 0.6 + (i % 4) / 10,
                },
            )
            for i in range(PEOPLE)
        ],
    )
    ages = [
        (
            f"Person {i} is {30 + i}",
            {
                "type": "fact",
                "subject": {"key": person(i)},
                "predicate": "AGE",
                "value": 30 + i,
                "valid_from": on(2020, 1),
            },
        )
        for i in range(PEOPLE)
    ]
    prefs = [
        (
            f"person {i} likes {i}",
            {
                "key": f"pref:other:p{i}",
                "value": {"value": f"likes {i}", "tags": [i, str(i)]},
                "valid_from": on(2021, 1),
                "privacy": 2 if i % 7 == 0 else 1,
                "importance": (i % 10) / 10,
            },
        )
        for i in range(PEOPLE)
    ]
    tasks = [
        (
            f"task {i} to do",
            {"key": f"task:engram:t{i}", "value": {"status": "todo"}, "valid_from": on(2023, 1)},
        )
        for i in range(PEOPLE)
    ]
    decisions = [
        (
            f"decided {i}",
            {
                "key": f"decision:engram:d{i}",
                "value": {"decision": f"use plan {i}"},
                "valid_from": on(2023, 2),
            },
        )
        for i in range(PEOPLE // 2)
    ]
    await _remember_all(story, ages + prefs + tasks + decisions)
    await _remember_all(
        story,
        [
            (f"Person {i} turned {31 + i}", {**fields, "value": 31 + i, "valid_from": on(2021, 1)})
            for i, (_, fields) in enumerate(ages)
            if i % 4 == 0
        ]
        + [
            (f"person {i} now likes more", {**fields, "value": {"value": f"more {i}"}})
            for i, (_, fields) in enumerate(prefs)
            if i % 2 == 0
        ]
        + [
            (f"task {i} moved", {**fields, "value": {"status": ("done", "doing")[i % 3 - 1]}})
            for i, (_, fields) in enumerate(tasks)
            if i % 3 != 2
        ]
        + [
            (f"decided {i} again", {**fields, "value": {"decision": f"also plan {i}"}})
            for i, (_, fields) in enumerate(decisions)
            if i % 2 == 0
        ],
    )
    for i, job in enumerate(jobs):
        if i % 5 in (0, 1):
            [said] = await _said(story, [(f"about person {i}'s job", on(2024, 1), 1)])
            change = {"kind": "SUPERSEDE", "valid_to": on(2024, 1), "reason": "left"}
            if i % 5 == 1:
                change = {"kind": "RETRACT", "reason": "never worked there"}
            await story.correct(claim_id=job.id, evidence=[{"observation_id": said}], **change)
    return len(entities) + len(jobs) + len(ages) + len(prefs) + len(tasks) + len(decisions)


def _claim_row(c: Claim, key_of: dict[str, str]) -> tuple[Any, ...]:
    return (
        *(c.key, c.type, canonical_json(c.value), key_of.get(c.subject_id or ""), c.predicate),
        *(key_of.get(c.object_id or ""), c.status, c.confidence, c.importance, c.privacy),
        *(c.valid_from, c.valid_to, c.pinned),
    )


async def current_view(
    graph: Graph, space: str, as_of: datetime | None = None
) -> dict[str, list[str]]:
    """A space's current claims, entities and relations (as of `as_of`, default now) as sorted
    texts, ids left out."""
    view = await View.open(graph, space, as_of=as_of)
    claims: list[Claim] = []
    after = None
    while True:
        page = await list_claims(graph, view, ClaimFilter(), first=MAX_PAGE, after=after)
        claims += page.claims
        if not page.has_more:
            break
        after = page.end
    ids = sorted({i for c in claims for i in (c.subject_id, c.object_id) if i is not None})
    entities = [e for e in await entities_by_ids(graph, view, ids) if e is not None]
    key_of = {e.id: e.key for e in entities}
    relations: set[str] = set()
    for entity in entities:
        near = await related(graph, view, entity.id, hops=1, first=500)
        relations |= {
            repr((r.type, key_of[r.source_id], key_of[r.target_id], r.valid_from, r.valid_to))
            + repr((r.claim_key, r.status, r.confidence))
            for r in near.relations
        }
    return {
        "claims": sorted(repr(_claim_row(c, key_of)) for c in claims),
        "entities": sorted(repr((e.key, e.kind, e.name, e.aliases)) for e in entities),
        "relations": sorted(relations),
    }
