"""search with history: ended and superseded revisions rank too, each marked; forgotten rows,
rows above the reader's tier and rows recorded after knownAt never do."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import httpx
import pytest

from graph.domain.model import Claim
from graph.domain.vocabulary import Cardinality, MemoryType, Privacy, RevisionState, SelectorKind
from graph.memory import ForgetInput, Memory, ObservationInput, Selector, View
from graph.runtime import Embedder, Graph
from tests.http import gql
from tests.people_story import on
from tests.story import Story, new_story

CURRENT, ENDED, SUPERSEDED = RevisionState.CURRENT, RevisionState.ENDED, RevisionState.SUPERSEDED
FACTS = [MemoryType.FACT]


@dataclass
class Jobs:
    """alice at Acme from 2020 (recorded open-ended, then corrected to end 2023-06-30) and at
    Globex from 2023-07; `before_correction` is a recorded-time instant before the correction."""

    story: Story
    recorded_open_ended: str
    ended_in_june: str
    at_globex: str
    before_correction: datetime


async def works_at(story: Story, org: str, start: datetime) -> Claim:
    said = await story.say(f"alice works at {org}", at=start)
    return await story.remember(
        said,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="WORKS_AT",
        object={"key": f"entity:org:{org}"},
    )


@pytest.fixture
async def jobs(memory: Memory, graph: Graph) -> Jobs:
    story = await new_story(graph)
    # Jobs as facts of their own, each ended by a correction.
    await memory.writes.declare_predicates(
        story.actor, story.space, [("WORKS_AT", Cardinality.MANY)]
    )
    for key, name in [
        ("entity:person:alice", "Alice"),
        ("entity:org:acme", "Acme Corp"),
        ("entity:org:globex", "Globex"),
    ]:
        await story.entity(key, name, at=on(2018, 1))
    at_acme = await works_at(story, "acme", on(2020, 1))
    before_correction = (await story.view()).known_at
    left = await story.say("she left in June 2023", at=on(2023, 7))
    ended = await story.correct(
        claim_id=at_acme.id,
        kind="SUPERSEDE",
        valid_to=on(2023, 6, 30),
        reason="she left",
        evidence=[{"observation_id": left}],
    )
    at_globex = await works_at(story, "globex", on(2023, 7))
    return Jobs(story, at_acme.id, ended.id, at_globex.id, before_correction)


async def states(
    story: Story, embedder: Embedder, query: str, view: View | None = None
) -> dict[str, RevisionState]:
    """Each fact hit's claim id and state, searched with history."""
    view = view or await story.view()
    hits = await story.memory.reads.search(view, query, types=FACTS, include_history=True)
    return {hit.claim.id: hit.state for hit in hits}


async def test_search_without_history_ranks_only_current_revisions(
    jobs: Jobs, embedder: Embedder
) -> None:
    hits = await jobs.story.memory.reads.search(await jobs.story.view(), "alice works at")
    assert [(hit.claim.id, hit.state) for hit in hits if hit.claim.type is MemoryType.FACT] == [
        (jobs.at_globex, CURRENT)
    ]


async def test_search_with_history_also_ranks_ended_and_superseded_revisions_marked_as_such(
    jobs: Jobs, embedder: Embedder
) -> None:
    assert await states(jobs.story, embedder, "alice works at") == {
        jobs.at_globex: CURRENT,
        jobs.ended_in_june: ENDED,
        jobs.recorded_open_ended: SUPERSEDED,
    }


async def test_a_revision_not_yet_valid_at_asOf_is_no_history_and_an_ended_one_was_current(
    jobs: Jobs, embedder: Embedder
) -> None:
    view = await jobs.story.view(as_of=on(2021, 6))
    assert await states(jobs.story, embedder, "alice works at", view) == {
        jobs.ended_in_june: CURRENT,
        jobs.recorded_open_ended: SUPERSEDED,
    }


async def test_search_with_history_at_a_past_knownAt_sees_only_what_was_recorded_by_then(
    jobs: Jobs, embedder: Embedder
) -> None:
    view = await jobs.story.view(known_at=jobs.before_correction)
    assert await states(jobs.story, embedder, "alice works at", view) == {
        jobs.recorded_open_ended: CURRENT
    }


async def test_a_forgotten_claim_never_comes_back_even_with_history(
    jobs: Jobs, embedder: Embedder
) -> None:
    story = jobs.story
    await story.memory.forgetting.forget(
        story.actor,
        story.space,
        ForgetInput(
            selector=Selector(kind=SelectorKind.CLAIM, id=jobs.ended_in_june),
            reason="the user asked",
        ),
    )
    # Forgetting a revision erases every revision of its claim, in every view.
    views = [await story.view(as_of=on(2021, 6)), await story.view(known_at=jobs.before_correction)]
    found = [
        await states(story, embedder, query, view)
        for query in ("alice works at Acme Corp", "she left in June")
        for view in views
    ]
    assert found == [{}, {}, {}, {}]
    assert await states(story, embedder, "alice works at") == {jobs.at_globex: CURRENT}


async def test_search_with_history_never_shows_a_revision_above_the_readers_tier(
    jobs: Jobs, embedder: Embedder
) -> None:
    story = jobs.story
    salaries: list[Claim] = []
    for amount in ("90k", "120k"):
        said = await story.memory.writes.record_observation(
            story.actor,
            story.space,
            ObservationInput(
                episode_id=story.episode_id, content=f"I earn {amount}", privacy=Privacy.SECRET
            ),
        )
        evidence = [{"observation_id": said.id}]
        salaries.append(
            await story.correct(
                claim_id=salaries[0].id,
                kind="SUPERSEDE",
                value=amount,
                reason="a raise",
                evidence=evidence,
            )
            if salaries
            else await story.remember(
                said.id,
                type="fact",
                subject={"key": "entity:person:alice"},
                predicate="EARNS_YEARLY",
                value=amount,
                privacy=Privacy.SECRET,
            )
        )
    secret = await states(story, embedder, "alice earns yearly")
    assert {salaries[0].id: SUPERSEDED, salaries[1].id: CURRENT}.items() <= secret.items()
    normal = await View.open(story.graph, story.space, max_privacy=Privacy.NORMAL)
    assert not {s.id for s in salaries} & set(
        await states(story, embedder, "alice earns yearly", normal)
    )


async def test_graphql_search_takes_includeHistory_and_marks_each_hit(
    jobs: Jobs, client: httpx.AsyncClient
) -> None:
    query = """query($history: Boolean!) {
      search(space: "alice", query: "alice works at", types: [FACT],
             includeHistory: $history) { claim { id } state }
    }"""
    current = await gql(client, query, {"history": False})
    history = await gql(client, query, {"history": True})
    assert current["data"]["search"] == [{"claim": {"id": jobs.at_globex}, "state": "CURRENT"}]
    assert {hit["claim"]["id"]: hit["state"] for hit in history["data"]["search"]} == {
        jobs.at_globex: "CURRENT",
        jobs.ended_in_june: "ENDED",
        jobs.recorded_open_ended: "SUPERSEDED",
    }
