"""Exports a person takes away: JSONL that imports back into the same current view, and a
Markdown memory view — and neither shows what was forgotten or lies above the reader's tier."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from api.app import create_app
from graph.domain.actor import Actor, Grant
from graph.domain.vocabulary import Privacy, SelectorKind
from graph.domain.wording import when
from graph.memory import ExportFormat, ForgetInput, Memory, ObservationInput, Selector, View
from graph.runtime import Graph, Neo4jTarget, Settings
from tests.http import gql, running
from tests.people_story import on
from tests.seeded_histories import current_view, seed_histories
from tests.story import Story, new_story

FORGOTTEN = "my old phone number is 555-0199"
SECRET = "my bank PIN is 4321"


async def diary(graph: Graph, settings: Settings) -> Story:
    """Alice at Acme, a tone preference, a profile, an open and a done task; a secret PIN; a
    phone number that was forgotten."""
    story = await new_story(graph, "alice")
    await story.entity("entity:person:alice", "Alice", at=on(2019, 1))
    await story.entity("entity:org:acme", "Acme Corp", aliases=["ACME"], at=on(2019, 1))
    works = await story.say("I work at Acme since January 2020", at=on(2020, 1))
    await story.remember(
        works,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="WORKS_AT",
        object={"key": "entity:org:acme"},
        valid_from=on(2020, 1),
    )
    tone = await story.say("Please write tersely", at=on(2024, 2))
    await story.remember(tone, key="pref:writing:tone", value={"value": "terse"})
    role = await story.say("I am a data engineer", at=on(2024, 3))
    await story.remember(role, key="profile:alice", value={"role": "data engineer"})
    passport = await story.say("remind me to renew my passport", at=on(2024, 4))
    await story.remember(
        passport, key="task:personal:passport", value={"status": "todo", "title": "renew passport"}
    )
    taxes = await story.say("my taxes are filed", at=on(2024, 4, 2))
    await story.remember(taxes, key="task:personal:taxes", value={"status": "done"})
    pin = await story.memory.writes.record_observation(
        story.actor,
        "alice",
        ObservationInput(
            episode_id=story.episode_id, content=SECRET, observed_at=on(2024, 5), privacy=3
        ),
    )
    await story.remember(
        pin.id,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="HAS_PIN",
        value="pin 4321",
        privacy=3,
    )
    phone = await story.say(FORGOTTEN, at=on(2024, 6))
    number = await story.remember(
        phone,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="PHONE",
        value="555-0199",
    )
    await Memory(graph, settings).forgetting.forget(
        Actor.operator("test"),
        "alice",
        ForgetInput(selector=Selector(kind=SelectorKind.CLAIM, id=number.id), reason="asked"),
    )
    return story


async def test_the_markdown_view_reads_as_a_document_of_the_readers_current_memory(
    memory: Memory, graph: Graph, test_settings: Settings
) -> None:
    story = await diary(graph, test_settings)
    known_at = (await story.view()).known_at
    view = await View.open(graph, "alice", known_at=known_at, max_privacy=Privacy.NORMAL)
    text = await memory.reads.export(view, ExportFormat.MARKDOWN)
    started = when((await memory.reads.episode(view, story.episode_id)).started_at)
    assert text == "\n".join(
        [
            "# Memory of alice",
            "",
            f"As of {view.as_of.isoformat()}, as known at {known_at.isoformat()}; what a reader "
            "at tier normal sees.",
            "",
            "## Profile",
            "",
            "- `profile:alice`: role: data engineer — valid from 2024-03-01",
            "  > “I am a data engineer” — user_stated, 2024-03-01",
            "",
            "## Preferences",
            "",
            "- `pref:writing:tone`: terse — valid from 2024-02-01",
            "  > “Please write tersely” — user_stated, 2024-02-01",
            "",
            "## Facts",
            "",
            "- Alice works at Acme Corp — valid from 2020-01-01",
            "  > “I work at Acme since January 2020” — user_stated, 2020-01-01",
            "",
            "## Open tasks",
            "",
            "- `task:personal:passport`: status: todo; title: renew passport — valid from "
            "2024-04-01",
            "  > “remind me to renew my passport” — user_stated, 2024-04-01",
            "",
            "## People and things",
            "",
            "- Acme Corp (org, `entity:org:acme`); also known as ACME",
            "  > “Acme Corp exists” — user_stated, 2019-01-01",
            "- Alice (person, `entity:person:alice`)",
            "  > “Alice exists” — user_stated, 2019-01-01",
            "",
            "## Recent episodes",
            "",
            f"- {started} — a chat (conversation, 7 observations)",
            "  > “I am a data engineer” — user, 2024-03-01",
            "  > “remind me to renew my passport” — user, 2024-04-01",
            "  > “my taxes are filed” — user, 2024-04-02",
            "",
        ]
    )


async def test_jsonl_imported_into_a_new_space_gives_the_same_current_view(
    memory: Memory,
    graph: Graph,
) -> None:
    story = await new_story(graph, "alice")
    histories = await seed_histories(story)
    assert histories >= 200
    exported = await memory.reads.export(await story.view(), ExportFormat.JSONL)
    lines = exported.splitlines()
    await memory.writes.create_space(Actor.operator("test"), "copy", "")
    report = await memory.admin.import_items(
        Actor.operator("test"), "copy", lines, source="alice.jsonl"
    )
    assert (report.refused, report.skipped, report.remembered) == ([], [], len(lines))
    source, copy = await current_view(graph, "alice"), await current_view(graph, "copy")
    assert len(source["claims"]) == len(lines) == 222
    assert len(source["relations"]) == 24
    assert copy == source
    # As the world was in mid-2022: the jobs ended in 2024 still held, with their end dates.
    mid_2022 = on(2022, 6)
    then = await View.open(graph, "alice", as_of=mid_2022)
    past_lines = (await memory.reads.export(then, ExportFormat.JSONL)).splitlines()
    await memory.writes.create_space(Actor.operator("test"), "then", "")
    report = await memory.admin.import_items(
        Actor.operator("test"), "then", past_lines, source="then.jsonl"
    )
    assert (report.refused, report.remembered) == ([], len(past_lines))
    source = await current_view(graph, "alice", mid_2022)
    assert sum("valid_to" in line for line in past_lines) == 7  # p0, p5, …; p35 starts later
    assert await current_view(graph, "then", mid_2022) == source


EXPORT = 'query($format: ExportFormat!) { export(space: "alice", format: $format) }'


@pytest.fixture
async def production(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process Engram that wants an API key."""
    async with running(
        create_app(test_settings.model_copy(update={"dev": False}), neo4j_target)
    ) as http:
        yield http


async def test_an_export_over_graphql_holds_nothing_forgotten_or_above_the_keys_tier(
    memory: Memory, graph: Graph, test_settings: Settings, production: httpx.AsyncClient
) -> None:
    await diary(graph, test_settings)
    normal = (await memory.admin.create_key("n", [Grant("alice", Privacy.NORMAL)])).secret
    secret = (await memory.admin.create_key("s", [Grant("alice", Privacy.SECRET)])).secret
    stranger = (await memory.admin.create_key("x", [Grant("bob", Privacy.SECRET)])).secret

    async def export(key: str, export_format: str) -> dict[str, Any]:
        headers = {"authorization": f"Bearer {key}"}
        return await gql(production, EXPORT, {"format": export_format}, headers=headers)

    for export_format in ("JSONL", "MARKDOWN"):
        text = (await export(normal, export_format))["data"]["export"]
        assert "Please write tersely" in text
        # Values no timestamp holds: "555" alone was found in an export's "18:05:59.855501".
        for hidden in (FORGOTTEN, "555-0199", SECRET, "pin 4321", "HAS_PIN", "PHONE"):
            assert hidden not in text, (export_format, hidden)
        shown = (await export(secret, export_format))["data"]["export"]
        assert ("HAS_PIN" if export_format == "JSONL" else "has pin") in shown
        refused = await export(stranger, export_format)
        assert refused["data"] == {"export": None}
        assert refused["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    lines = [
        json.loads(line) for line in (await export(normal, "JSONL"))["data"]["export"].splitlines()
    ]
    assert [line["key"] for line in lines] == [
        "entity:org:acme",
        "entity:person:alice",
        "fact:person/alice:WORKS_AT",
        "pref:writing:tone",
        "profile:alice",
        "task:personal:passport",
        "task:personal:taxes",
    ]
    assert lines[3] == {
        "type": "pref",
        "key": "pref:writing:tone",
        "value_json": '{"value":"terse"}',
        "status": "active",
        "confidence": 0.9,
        "importance": 0.5,
        "privacy": 1,
        "valid_from": "2024-02-01T00:00:00+00:00",
        "observed_at": "2024-02-01T00:00:00+00:00",
        "authority": "user_stated",
        "evidence": [{"quote": "Please write tersely", "observed_at": "2024-02-01T00:00:00+00:00"}],
    }
