"""Concurrent recall, correct and forget, 25 repetitions (200 in the deep profile:
`tests/support.RACE_REPETITIONS`): once forget has committed, no read returns the forgotten
content, whatever order the three were run in."""

from __future__ import annotations

import asyncio
import time

import pytest

from graph.domain.actor import Actor
from graph.domain.errors import EngramError
from graph.domain.vocabulary import SelectorKind
from graph.memory import ClaimFilter, ForgetInput, Memory, Selector
from graph.runtime import Embedder, Graph
from tests.story import new_story
from tests.support import RACE_REPETITIONS, until_async
from tests.text_search_everywhere import mentions_anywhere


@pytest.mark.parametrize("repetition", range(RACE_REPETITIONS))
async def test_after_forget_commits_current_reads_return_nothing(
    memory: Memory, graph: Graph, embedder: Embedder, repetition: int
) -> None:
    story = await new_story(graph)
    secret = f"race{repetition}secret"
    said = await story.say(f"the vault code is {secret}")
    claim = await story.remember(said, key="pref:other:vault", value={"value": secret})
    fix = await story.say("no, it is different now")
    forgotten_at: list[float] = []
    sightings: list[tuple[float, bool]] = []
    stop = asyncio.Event()

    async def recall() -> None:
        while not stop.is_set():
            started = time.monotonic()
            view = await story.view()
            texts = [c.text for c in await memory.reads.claims_by_key(view, "pref:other:vault")]
            texts += [h.claim.text for h in await memory.reads.search(view, secret)]
            page = await memory.reads.claims(view, ClaimFilter(), first=100)
            texts += [c.text for c in page.claims]
            sightings.append((started, any(secret in t for t in texts)))

    async def correct() -> None:
        await asyncio.sleep(0.001 * (repetition % 5))
        try:
            await story.correct(
                claim_id=claim.id,
                kind="SUPERSEDE",
                value={"value": f"{secret}v2"},
                reason="fixed",
                evidence=[{"observation_id": fix}],
            )
        except EngramError as failure:  # forget won the race: nothing left to correct
            assert failure.code in ("NOT_FOUND", "FORGOTTEN", "REVISION_CONFLICT")

    async def forget_it() -> None:
        await asyncio.sleep(0.001 * (repetition % 3))
        await memory.forgetting.forget(
            Actor.operator("t"),
            story.space,
            ForgetInput(selector=Selector(kind=SelectorKind.CLAIM, id=claim.id), reason="asked"),
        )
        forgotten_at.append(time.monotonic())

    reader = asyncio.create_task(recall())
    await asyncio.gather(correct(), forget_it())
    if await memory.reads.claims_by_key(await story.view(), "pref:other:vault"):
        # The correct landed after the forget on a fresh key? It cannot: it cites the claim.
        pytest.fail("a claim survived its forget")

    async def read_twice_since() -> bool:
        if reader.done():
            reader.result()  # surfaces the reader's failure
        return sum(started > forgotten_at[0] for started, _ in sightings) >= 2

    await until_async(read_twice_since, within=10, every=0.01, failing="the reader stalled")
    stop.set()
    await reader
    after = [seen for started, seen in sightings if started > forgotten_at[0]]
    assert after and not any(after), "a read started after forget committed saw the secret"
    assert await mentions_anywhere(graph, secret) == []


@pytest.mark.parametrize("repetition", range(RACE_REPETITIONS))
async def test_a_claim_racing_the_forget_of_its_only_evidence_is_never_active_without_it(
    memory: Memory, graph: Graph, repetition: int
) -> None:
    story = await new_story(graph)
    said = await story.say(f"I like opera {repetition}")

    async def claim_it() -> str:
        try:
            created = await story.remember(said, key="pref:other:music", value={"value": "opera"})
        except EngramError as failure:
            assert failure.code == "FORGOTTEN"
            return "refused"
        return created.id

    async def forget_evidence() -> None:
        await asyncio.sleep(0.0005 * (repetition % 4))
        await memory.forgetting.forget(
            Actor.operator("t"),
            story.space,
            ForgetInput(selector=Selector(kind=SelectorKind.OBSERVATION, id=said), reason="x"),
        )

    outcome, _ = await asyncio.gather(claim_it(), forget_evidence())
    current = await memory.reads.claims_by_key(await story.view(), "pref:other:music")
    if outcome == "refused":
        assert current == []
    else:
        [claim] = current
        assert (claim.status.value, claim.evidence) == ("retracted", ())
    assert await mentions_anywhere(graph, f"I like opera {repetition}") == []
