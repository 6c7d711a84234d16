"""Retention: archive and purge per type, never what is pinned, open, committed or held."""

from __future__ import annotations

from datetime import timedelta

import pytest

from graph.domain.actor import Actor
from graph.domain.errors import NotFound
from graph.domain.timeutil import utc_now
from graph.domain.vocabulary import MemoryType, SelectorKind
from graph.jobs.retention import Policy, run_retention
from graph.memory import HoldInput, Selector
from graph.runtime import Embedder, Graph, Neo4jTarget, Settings
from tests.story import Story, new_story
from tests.support import engram_env, run_engram
from tests.text_search_everywhere import mentions_anywhere

RETENTION = Actor.operator("retention")
PURGE_EVENTS = {
    MemoryType.EVENT: Policy(archive_after_days=30, purge_after_days=365),
    MemoryType.TASK: Policy(archive_after_days=30, purge_after_days=365),
}


@pytest.fixture
async def story(graph: Graph) -> Story:
    story = await new_story(graph)
    said = await story.say("notes")
    await story.remember(said, key="event:ops:2024-01-01:outage", value={"title": "db outage"})
    await story.remember(
        said, key="event:ops:2024-02-01:launch", value={"title": "launch"}, pinned=True
    )
    await story.remember(said, key="task:ops:t1", value={"status": "doing", "title": "fix"})
    await story.remember(said, key="task:ops:t2", value={"status": "done", "title": "ship"})
    await story.remember(
        said,
        key="event:ops:2024-03-01:promise",
        value={"title": "promised a refund", "commitment": True},
    )
    return story


async def test_nothing_is_due_today(story: Story) -> None:
    report = await run_retention(story.graph, story.space, policies=PURGE_EVENTS, actor=RETENTION)
    assert (report.archived, report.purged, report.skipped) == ([], [], [])


async def test_archived_claims_stay_readable_but_leave_recall(
    story: Story, embedder: Embedder
) -> None:
    later = utc_now() + timedelta(days=40)
    report = await run_retention(
        story.graph, story.space, policies=PURGE_EVENTS, now=later, actor=RETENTION
    )
    assert report.archived == ["event:ops:2024-01-01:outage", "task:ops:t2"]
    assert report.skipped == [
        ("event:ops:2024-02-01:launch", "pinned"),
        ("event:ops:2024-03-01:promise", "unfulfilled commitment"),
        ("task:ops:t1", "open task"),
    ]
    view = await story.view()
    [outage] = await story.memory.reads.claims_by_key(view, "event:ops:2024-01-01:outage")
    assert outage.value == {"title": "db outage"}
    assert await story.memory.reads.search(view, "outage") == []


async def test_purge_erases_with_a_tombstone_and_spares_the_protected(story: Story) -> None:
    later = utc_now() + timedelta(days=400)
    plan = await run_retention(
        story.graph, story.space, policies=PURGE_EVENTS, now=later, dry_run=True, actor=RETENTION
    )
    assert plan.purged == ["event:ops:2024-01-01:outage", "task:ops:t2"]
    assert await mentions_anywhere(story.graph, "db outage") != [], "a dry run changes nothing"
    report = await run_retention(
        story.graph, story.space, policies=PURGE_EVENTS, now=later, actor=RETENTION
    )
    assert report.purged == plan.purged and report.tombstone_id is not None
    assert await mentions_anywhere(story.graph, "db outage") == []
    with pytest.raises(NotFound):
        await story.memory.reads.claim_history(await story.view(), "task:ops:t2")
    for kept in ("event:ops:2024-02-01:launch", "task:ops:t1", "event:ops:2024-03-01:promise"):
        assert await story.memory.reads.claims_by_key(await story.view(), kept) != []
    [tombstone] = await story.graph.read("MATCH (t:Tombstone) RETURN t.selectorKind AS kind")
    assert tombstone == {"kind": "RETENTION"}


async def test_purge_never_touches_data_under_legal_hold(story: Story) -> None:
    [outage] = await story.memory.reads.claims_by_key(
        await story.view(), "event:ops:2024-01-01:outage"
    )
    await story.memory.forgetting.set_legal_hold(
        Actor.operator("counsel"),
        story.space,
        HoldInput(selector=Selector(kind=SelectorKind.CLAIM, id=outage.id), reason="audit"),
    )
    later = utc_now() + timedelta(days=400)
    report = await run_retention(
        story.graph, story.space, policies=PURGE_EVENTS, now=later, actor=RETENTION
    )
    assert report.purged == ["task:ops:t2"]
    assert ("event:ops:2024-01-01:outage", "legal hold") in report.skipped


async def test_engram_retention_run_dry_run_lists_what_would_happen(
    story: Story, test_settings: Settings, neo4j_target: Neo4jTarget, tmp_path: object
) -> None:
    from pathlib import Path

    policy = Path(str(tmp_path)) / "policy.json"
    policy.write_text('{"event": {"archive_after_days": 0}}')
    done = run_engram(
        engram_env(test_settings, neo4j_target),
        "retention",
        "run",
        "--dry-run",
        "--policy",
        str(policy),
        "--space",
        "alice",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "alice: would archive 1, would purge 0, skip 2",
        "  archive event:ops:2024-01-01:outage",
        "  keep    event:ops:2024-02-01:launch (pinned)",
        "  keep    event:ops:2024-03-01:promise (unfulfilled commitment)",
    ]
