"""Forgetting takes its by-products (ENGRAM.md §3): after a write by names with its message as
evidence text, forgetting the fact — by id, by key, by subject and predicate, by the entity it
names — also forgets the message it alone was drawn from and the entities nothing else names.
Nothing of that message is then reachable through any read, export or backup, and no node or
relationship still holds it; a message another surviving fact cites stays, and so do the
entities other facts name (their names too, even when the message that named them goes).
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from graph.domain.actor import Actor
from graph.domain.errors import NotFound
from graph.domain.read_records import ClaimFilter
from graph.memory import ExportFormat, Memory
from graph.runtime import Embedder, Graph, Settings
from tests.text_search_everywhere import mentions_anywhere

AGENT = Actor.operator("agent")
JOINED = "Odile: I joined Kestrel Works in 2024"
LIVES = "Odile: I live in Lyon"
BOTH = "Odile: Kestrel Works has its office in Lyon, where I live"


def fact(subject: str, kind: str, predicate: str, obj: str, said: str, **more: Any) -> dict:
    return {
        "type": "fact",
        "subject": {"name": subject, "kind": kind},
        "predicate": predicate,
        "object": {"name": obj, "kind": "org" if obj == "Kestrel Works" else "other"},
        "evidence": [{"text": said}],
        **more,
    }


@dataclass
class Written:
    memory: Memory
    job: str
    """The id of 'Odile Brandt works at Kestrel Works' (its message is JOINED alone)."""


@pytest.fixture
async def written(graph: Graph, test_settings: Settings, embedder: Embedder) -> Written:
    memory = Memory(graph, test_settings, embedder)
    await memory.writes.create_space(AGENT, "odile")
    [job] = await memory.writes.remember(
        AGENT,
        "odile",
        [
            fact(
                "Odile Brandt",
                "person",
                "WORKS_AT",
                "Kestrel Works",
                JOINED,
                valid_from="2024-01-01T00:00:00+00:00",
            )
        ],
    )
    await memory.writes.remember(
        AGENT, "odile", [fact("Odile Brandt", "person", "LIVES_IN", "Lyon", LIVES)]
    )
    return Written(memory, job.id)


async def readable(memory: Memory, text: str, tmp_path: Path) -> list[str]:
    """Where `text` (or any part of it) can still be read: each door that shows it."""
    view = await memory.reads.view(AGENT, "odile")
    found = []
    hits = await memory.reads.search(view, text, include_history=True)
    if any(text in link.text for h in hits for link in h.claim.evidence if link.text):
        found.append("search")
    page = await memory.reads.claims(view, ClaimFilter())
    evidence = await memory.reads.evidence(view, [c.id for c in page.claims])
    if any(link.text == text for links in evidence for link in links):
        found.append("claims")
    for export_format in ExportFormat:
        if text in await memory.reads.export(view, export_format):
            found.append(f"export {export_format}")
    await memory.admin.backup(tmp_path / "backup.zip")
    with zipfile.ZipFile(tmp_path / "backup.zip") as archive:
        if any(text.encode() in archive.read(name) for name in archive.namelist()):
            found.append("backup")
    if await mentions_anywhere(memory.graph, text):
        found.append("database")
    return found


async def names(memory: Memory) -> list[str]:
    view = await memory.reads.view(AGENT, "odile")
    page = await memory.reads.claims(view, ClaimFilter())
    named = {i for c in page.claims for i in (c.subject_id, c.object_id) if i}
    entities = await memory.reads.entities(view, sorted(named))
    return sorted(e.name for e in entities if e is not None)


SELECTORS = {
    "claim by id": lambda w: {"kind": "CLAIM", "id": w.job},
    "claim by key": lambda w: {"kind": "CLAIM", "key": "fact:person/odile-brandt:WORKS_AT"},
    "subject and predicate": lambda w: {
        "kind": "SUBJECT_PREDICATE",
        "subject": {"name": "Odile Brandt"},
        "predicate": "WORKS_AT",
    },
    "entity": lambda w: {"kind": "ENTITY", "name": "Kestrel Works"},
}


@pytest.mark.parametrize("selector", SELECTORS)
async def test_forgetting_a_fact_takes_the_message_it_alone_came_from_and_the_entity_it_alone_named(
    written: Written, selector: str, tmp_path: Path
) -> None:
    memory = written.memory
    assert await readable(memory, JOINED, tmp_path) != []
    receipt = await memory.forgetting.forget(
        AGENT, "odile", {"selector": SELECTORS[selector](written), "reason": "asked"}
    )
    assert (receipt.erased["observations"], receipt.erased["entities"]) == (1, 1)
    assert await readable(memory, JOINED, tmp_path) == []
    assert await readable(memory, "Kestrel", tmp_path) == []
    with pytest.raises(NotFound):
        await memory.reads.find_entity(
            await memory.reads.view(AGENT, "odile"), {"name": "Kestrel Works"}
        )
    # What another fact names and cites stays, Odile's name with it (named again on LIVES).
    assert await names(memory) == ["Lyon", "Odile Brandt"]
    assert "claims" in await readable(memory, LIVES, tmp_path)


async def test_a_message_another_surviving_fact_cites_stays_and_so_does_what_it_names(
    written: Written, tmp_path: Path
) -> None:
    memory = written.memory
    # One batch: both facts cite one observation of BOTH.
    office, again = await memory.writes.remember(
        AGENT,
        "odile",
        [
            fact("Kestrel Works", "org", "HQ_IN", "Lyon", BOTH),
            fact(
                "Odile Brandt",
                "person",
                "WORKS_AT",
                "Kestrel Works",
                BOTH,
                valid_from="2025-01-01T00:00:00+00:00",
            ),
        ],
    )
    receipt = await memory.forgetting.forget(
        AGENT, "odile", {"selector": {"kind": "CLAIM", "id": again.id}, "reason": "x"}
    )
    assert receipt.erased == {
        "claims": 1,
        "observations": 0,
        "episodes": 0,
        "artifacts": 0,
        "entities": 0,
    }, "BOTH is still cited by the office fact, which names Kestrel Works and Lyon"
    assert "claims" in await readable(memory, BOTH, tmp_path)
    assert await names(memory) == ["Kestrel Works", "Lyon", "Odile Brandt"]
    view = await memory.reads.view(AGENT, "odile", as_of=datetime(2024, 6, 1, tzinfo=UTC))
    [still] = (await memory.reads.claims(view, ClaimFilter(predicate="WORKS_AT"))).claims
    assert still.id == written.job, "forgetting one told fact of a ONE key leaves the others"
    assert office.id


async def test_forgetting_the_message_keeps_the_fact_drawn_from_it_as_retracted(
    written: Written, tmp_path: Path
) -> None:
    memory = written.memory
    view = await memory.reads.view(AGENT, "odile")
    [job] = (await memory.reads.claims(view, ClaimFilter(predicate="WORKS_AT"))).claims
    [link] = job.evidence or (await memory.reads.evidence(view, [job.id]))[0]
    assert link.observation_id is not None
    receipt = await memory.forgetting.forget(
        AGENT,
        "odile",
        {"selector": {"kind": "OBSERVATION", "id": link.observation_id}, "reason": "x"},
    )
    # The fact lost its only evidence, and so did Kestrel Works' name (Odile's is named again
    # on what supports LIVES_IN): both become retracted revisions, kept as history.
    assert (receipt.erased["observations"], receipt.made_inactive) == (1, 2)
    assert await readable(memory, JOINED, tmp_path) == []
    assert await names(memory) == ["Lyon", "Odile Brandt"]
    history = await memory.reads.claim_history(await memory.reads.view(AGENT, "odile"), job.key)
    assert [c.status.value for c in history] == ["superseded", "retracted"]
    assert json.dumps([c.text for c in history]).count("Kestrel Works") == 2
