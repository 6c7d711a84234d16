"""Property tests of forgetting, 30 seeded examples each on Neo4j (`tests/support.NEO4J_EXAMPLES`;
HYPOTHESIS_PROFILE=deep for 2000):

* evidence cascade — a claim stays active exactly while some evidence of it is unforgotten;
* retention versus legal hold — purge takes exactly what is due, unprotected and unheld;
* selector scope — whatever is forgotten in one space, another space is left byte-identical.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Awaitable, Callable, Iterator
from datetime import timedelta
from typing import Any, LiteralString, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph.domain.actor import Actor
from graph.domain.timeutil import utc_now
from graph.domain.vocabulary import ClaimStatus, MemoryType, SelectorKind
from graph.jobs.retention import Policy, run_retention
from graph.memory import ForgetInput, HoldInput, Selector
from graph.runtime import Graph, Neo4jTarget, connect
from tests.story import Story, new_story
from tests.support import NEO4J_EXAMPLES, delete_all_data
from tests.text_search_everywhere import mentions_anywhere

T = TypeVar("T")
_spaces = itertools.count()


@pytest.fixture(scope="module")
def run_async(
    neo4j_target: Neo4jTarget,
) -> Iterator[Callable[[Callable[[Graph], Awaitable[T]]], T]]:
    """Hypothesis drives sync tests: each example runs on a private loop and connection."""
    loop = asyncio.new_event_loop()
    graph = loop.run_until_complete(connect(neo4j_target))

    def run(work: Callable[[Graph], Awaitable[T]]) -> T:
        return loop.run_until_complete(work(graph))

    yield run
    loop.run_until_complete(graph.close())
    loop.close()


def forget_request(kind: SelectorKind, **target: Any) -> ForgetInput:
    return ForgetInput(selector=Selector(kind=kind, **target), reason="property")


@settings(max_examples=NEO4J_EXAMPLES)
@given(
    citations=st.lists(
        st.sets(st.integers(min_value=0, max_value=4), min_size=1), min_size=1, max_size=4
    ),
    forgotten=st.sets(st.integers(min_value=0, max_value=4)),
)
def test_a_claim_stays_active_exactly_while_some_of_its_evidence_is_unforgotten(
    run_async: Callable[[Callable[[Graph], Awaitable[None]]], None],
    citations: list[set[int]],
    forgotten: set[int],
) -> None:
    async def example(graph: Graph) -> None:
        story = await new_story(graph, f"cascade{next(_spaces)}")
        said = [await story.say(f"observation {i}") for i in range(5)]
        for index, cited in enumerate(citations):
            await story.remember(
                [said[i] for i in sorted(cited)],
                key=f"pref:other:c{index}",
                value={"value": index},
            )
        for i in sorted(forgotten):
            # Forgetting an observation erases only it; its claims keep their other evidence.
            await story.memory.forgetting.forget(
                Actor.operator("t"),
                story.space,
                forget_request(SelectorKind.OBSERVATION, id=said[i]),
            )
        view = await story.view()
        for index, cited in enumerate(citations):
            [claim] = await story.memory.reads.claims_by_key(view, f"pref:other:c{index}")
            left = cited - forgotten
            expected = ClaimStatus.ACTIVE if left else ClaimStatus.RETRACTED
            assert claim.status is expected, (index, cited, forgotten)
            assert {link.observation_id for link in claim.evidence} == (
                {said[i] for i in left} if left else set()
            )

    run_async(example)


CLAIM = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["event", "task"]),
        "pinned": st.booleans(),
        "open": st.booleans(),
        "commitment": st.booleans(),
        "held": st.booleans(),
    }
)


@settings(max_examples=NEO4J_EXAMPLES)
@given(claims=st.lists(CLAIM, min_size=1, max_size=5), space_hold=st.booleans())
def test_retention_purges_exactly_what_is_due_unprotected_and_unheld(
    run_async: Callable[[Callable[[Graph], Awaitable[None]]], None],
    claims: list[dict[str, Any]],
    space_hold: bool,
) -> None:
    async def example(graph: Graph) -> None:
        # `mentions_anywhere` reads every node: an empty database keeps each example as cheap as
        # the first.
        await delete_all_data(graph)
        story = await new_story(graph, f"retain{next(_spaces)}")
        said = await story.say("records")
        expected_purge = []
        for index, spec in enumerate(claims):
            if spec["type"] == "event":
                key = f"event:ops:2024-01-01:e{index}"
                value: dict[str, Any] = {"title": f"retained-{story.space}-{index}"}
            else:
                key = f"task:ops:t{index}"
                value = {
                    "status": "doing" if spec["open"] else "done",
                    "title": f"retained-{story.space}-{index}",
                }
            if spec["commitment"]:
                value["commitment"] = True
            claim = await story.remember(said, key=key, value=value, pinned=spec["pinned"])
            if spec["held"]:
                await story.memory.forgetting.set_legal_hold(
                    Actor.operator("t"),
                    story.space,
                    HoldInput(
                        selector=Selector(kind=SelectorKind.CLAIM, id=claim.id), reason="hold"
                    ),
                )
            protected = (
                spec["pinned"]
                or (spec["type"] == "task" and spec["open"])
                or spec["commitment"]
                or spec["held"]
                or space_hold
            )
            if not protected:
                expected_purge.append(key)
        if space_hold:
            await story.memory.forgetting.set_legal_hold(
                Actor.operator("t"),
                story.space,
                HoldInput(selector=Selector(kind=SelectorKind.SPACE), reason="all"),
            )
        policies = {
            MemoryType.EVENT: Policy(purge_after_days=10),
            MemoryType.TASK: Policy(purge_after_days=10),
        }
        report = await run_retention(
            graph,
            story.space,
            policies=policies,
            now=utc_now() + timedelta(days=11),
            actor=Actor.operator("retention"),
        )
        assert sorted(report.purged) == sorted(expected_purge)
        for index, spec in enumerate(claims):
            key = (
                f"event:ops:2024-01-01:e{index}"
                if spec["type"] == "event"
                else f"task:ops:t{index}"
            )
            gone = await mentions_anywhere(graph, f"retained-{story.space}-{index}") == []
            assert gone == (key in expected_purge), key

    run_async(example)


SNAPSHOT: LiteralString = """
MATCH (n {spaceId: $spaceId})
OPTIONAL MATCH (n)-[r]->(m)
WITH n, collect([type(r), properties(r), m.id]) AS out
RETURN n.id AS id, labels(n) AS labels, properties(n) AS props, out
ORDER BY id
"""


async def snapshot(graph: Graph, story: Story) -> str:
    space_id = (await story.view()).space_id
    rows = await graph.read(SNAPSHOT, spaceId=space_id)
    return json.dumps(rows, default=str, sort_keys=True)


async def populate(story: Story) -> dict[str, str]:
    alice = await story.entity("entity:person:alice", "Alice")
    await story.entity("entity:org:acme", "Acme")
    said = await story.say("alice works at acme and likes tea")
    work = await story.remember(
        said,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="WORKS_AT",
        object={"key": "entity:org:acme"},
    )
    await story.remember(said, key="pref:other:drink", value={"value": "tea"})
    return {
        "claim": work.id,
        "observation": said,
        "episode": story.episode_id,
        "entity": alice.subject_id or "",
    }


@pytest.fixture
def other_space(
    clean_graph: None,
    run_async: Callable[[Callable[[Graph], Awaitable[tuple[Story, str, str]]]], Any],
) -> tuple[Story, str, str]:
    """One space holding the same story as every example's space, its snapshot and the id of
    one of its claims: built once for the property run, it must come through every example's
    forget byte-identical."""

    async def build(graph: Graph) -> tuple[Story, str, str]:
        other = await new_story(graph, "scope-other")
        await populate(other)
        [drink] = await other.memory.reads.claims_by_key(await other.view(), "pref:other:drink")
        return other, await snapshot(graph, other), drink.id

    built: tuple[Story, str, str] = run_async(build)
    return built


@settings(max_examples=NEO4J_EXAMPLES)
@given(kind=st.sampled_from(list(SelectorKind)), salt=st.integers(0, 10**6))
def test_a_forget_in_one_space_leaves_every_other_space_untouched(
    run_async: Callable[[Callable[[Graph], Awaitable[None]]], None],
    other_space: tuple[Story, str, str],
    kind: SelectorKind,
    salt: int,
) -> None:
    other, before, other_claim_id = other_space

    async def example(graph: Graph) -> None:
        one = await new_story(graph, f"scope{next(_spaces)}")
        ids = await populate(one)
        target: dict[str, Any] = {
            SelectorKind.CLAIM: {"id": ids["claim"]},
            SelectorKind.OBSERVATION: {"id": ids["observation"]},
            SelectorKind.EPISODE: {"id": ids["episode"]},
            SelectorKind.ENTITY: {"id": ids["entity"]},
            SelectorKind.ARTIFACT: None,
            SelectorKind.SUBJECT_PREDICATE: {
                "subject": {"key": "entity:person:alice"},
                "predicate": "WORKS_AT",
            },
            SelectorKind.SPACE: {},
        }[kind]
        if target is None:  # no artifact in this story: forget the claim instead
            kind_used, target = SelectorKind.CLAIM, {"id": ids["claim"]}
        else:
            kind_used = kind
        await one.memory.forgetting.forget(
            Actor.operator("t"), one.space, forget_request(kind_used, **target)
        )
        assert await snapshot(graph, other) == before
        # And an id from the other space cannot be selected from this one.
        if kind_used is not SelectorKind.SPACE:
            with pytest.raises(Exception) as refused:
                await one.memory.forgetting.forget(
                    Actor.operator("t"),
                    one.space,
                    forget_request(SelectorKind.CLAIM, id=other_claim_id),
                )
            assert getattr(refused.value, "code", None) == "NOT_FOUND"
        assert await snapshot(graph, other) == before

    run_async(example)
