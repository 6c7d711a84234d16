"""Meaning vectors per space: a small space is searched exactly, a big one in its own vector
index, so no space's vectors crowd out another's meaning list."""

from __future__ import annotations

import pytest

from graph.domain.actor import Actor
from graph.domain.inputs import parse
from graph.domain.vocabulary import MemoryType, SelectorKind
from graph.erasure.purge_outbox import purge_spaces
from graph.meaning.embeddings import Embedder, embed_pending
from graph.meaning.space_indexes import names_for
from graph.memory import ForgetInput, Memory, RememberInput, Selector, View
from graph.reads.search import BY_MEANING, MIN_SIMILARITY
from graph.runtime import Graph
from tests.story import Story, new_story, story_settings

INDEX_FROM = 40
"""The tests' promotion threshold (Engram's own is 1000), so a big space stays quick to write."""
BIG = 110

MARKERS = """
MATCH (ix:MeaningIndex)
MATCH (s:Space {id: ix.spaceId})
RETURN s.name AS space, ix.state AS state, ix.name AS name, ix.label AS label
ORDER BY space
"""

VECTOR_INDEXES = """
SHOW VECTOR INDEXES YIELD name, state, labelsOrTypes
RETURN name, state, labelsOrTypes
"""

UNLABELLED = """
MATCH (s:Space {name: $space})
MATCH (m:Meaning {spaceId: s.id})
RETURN count(m) AS all, count(CASE WHEN $label IN labels(m) THEN 1 END) AS labelled
"""

SPACE_ID = "MATCH (s:Space {name: $space}) RETURN s.id AS id"

EXACT_TOP = """
MATCH (s:Space {name: $space})
MATCH (c:Claim)-[:MEANS]->(m:Meaning {spaceId: s.id})
WITH c, vector.similarity.cosine(m.embedding, $v) AS score
RETURN c.id AS id, score
ORDER BY score DESC, id
LIMIT $first
"""


async def remember_many(story: Story, texts: list[str], prefix: str) -> None:
    said = await story.say("; ".join(texts[:3]))
    items = [
        parse(
            RememberInput,
            {
                "key": f"pref:other:{prefix}-{i}",
                "value": {"value": text},
                "evidence": [{"observation_id": said}],
            },
        )
        for i, text in enumerate(texts)
    ]
    await story.memory.writes.remember(story.actor, story.space, items)


async def big_and_small(graph: Graph) -> tuple[Story, Story]:
    """`big` holds `BIG` claims near "dark mode" (more than a shared index's over-fetch of 100
    would reach past), `small` three near it and one too far from it."""
    big = await new_story(graph, "big")
    await remember_many(big, [f"dark mode in editor number {i}" for i in range(BIG)], "dark")
    small = await new_story(graph, "small")
    await remember_many(
        small,
        ["a dark colour scheme at night", "dark mode everywhere", "dim screens", "oolong tea"],
        "taste",
    )
    return big, small


async def meaning_hits(graph: Graph, space: str, query: str, embedder: Embedder) -> list[str]:
    memory = Memory(graph, story_settings(), embedder)
    hits = await memory.reads.search(await View.open(graph, space), query, first=3)
    return sorted(str(h.claim.key) for h in hits if "meaning" in h.sources)


@pytest.fixture
async def spaces(graph: Graph, embedder: Embedder) -> tuple[Story, Story]:
    big, small = await big_and_small(graph)
    await embed_pending(graph, embedder, index_from=INDEX_FROM)
    return big, small


async def test_a_space_that_reaches_the_threshold_gets_its_own_vector_index_over_all_its_vectors(
    memory: Memory, graph: Graph, embedder: Embedder, spaces: tuple[Story, Story]
) -> None:
    [big_id] = [row["id"] for row in await graph.read(SPACE_ID, space="big")]
    name, label = names_for(big_id)
    assert await graph.read(MARKERS) == [
        {"space": "big", "state": "ready", "name": name, "label": label}
    ]
    [index] = [row for row in await graph.read(VECTOR_INDEXES) if row["name"] == name]
    assert index == {"name": name, "state": "ONLINE", "labelsOrTypes": [label]}
    assert await graph.read(UNLABELLED, space="big", label=label) == [{"all": BIG, "labelled": BIG}]
    assert "claim_meaning" not in [row["name"] for row in await graph.read(VECTOR_INDEXES)]

    # A vector stored later carries the label, and the space's own index finds it.
    big, _ = spaces
    said = await big.say("I also like mountaineering")
    await big.remember(said, key="pref:other:hobby", value={"value": "mountaineering"})
    assert await embed_pending(graph, embedder, index_from=INDEX_FROM) == 1
    assert await graph.read(UNLABELLED, space="big", label=label) == [
        {"all": BIG + 1, "labelled": BIG + 1}
    ]
    assert await meaning_hits(graph, "big", "climbing peaks", embedder) == ["pref:other:hobby"]

    # Forgetting the space drops its index with its vectors.
    await memory.forgetting.forget(
        Actor.operator("test"),
        "big",
        ForgetInput(selector=Selector(kind=SelectorKind.SPACE), reason="closed"),
    )
    await purge_spaces(graph)
    assert await graph.read(MARKERS) == []
    assert name not in [row["name"] for row in await graph.read(VECTOR_INDEXES)]


async def test_a_small_space_keeps_its_meaning_list_beside_a_big_one_that_ranks_as_exact_does(
    graph: Graph, embedder: Embedder, spaces: tuple[Story, Story]
) -> None:
    assert await meaning_hits(graph, "small", "dark mode", embedder) == [
        "pref:other:taste-0",
        "pref:other:taste-1",
        "pref:other:taste-2",
    ], "dark schemes and dim screens, not oolong tea"
    [vector] = embedder.embed(["dark mode in editor number 7"])
    exact = await graph.read(EXACT_TOP, space="big", v=vector, first=12)
    view = await View.open(graph, "big")
    ranked = await graph.read(
        BY_MEANING,
        **view.params(),
        vector=vector,
        types=None,
        first=9,
        nearest=60,
        minScore=(1 + MIN_SIMILARITY) / 2,
    )
    # The index is approximate and keeps its own float copies: near ties may swap, nothing else.
    assert ranked[0]["id"] == exact[0]["id"]
    assert len(ranked) == 9
    assert {row["id"] for row in ranked} <= {row["id"] for row in exact}
    assert [row["score"] for row in ranked] == pytest.approx(
        [row["score"] for row in exact[:9]], abs=1e-3
    )


async def test_a_process_on_an_older_database_promotes_spaces_that_grew_without_new_vectors(
    graph: Graph, embedder: Embedder
) -> None:
    await big_and_small(graph)
    await embed_pending(graph, embedder)  # below Engram's own threshold: nothing promoted
    assert await graph.read(MARKERS) == []
    assert await embed_pending(graph, embedder, index_from=INDEX_FROM) == 0
    assert await graph.read(MARKERS) == []  # nothing was embedded, so nothing was looked at
    await embed_pending(graph, embedder, index_from=INDEX_FROM, every_space=True)
    assert [(row["space"], row["state"]) for row in await graph.read(MARKERS)] == [("big", "ready")]


async def test_a_space_whose_index_is_not_ready_is_searched_exactly_and_finds_the_same(
    graph: Graph, embedder: Embedder, spaces: tuple[Story, Story]
) -> None:
    ready = await meaning_hits(graph, "big", "dark mode in editor number 7", embedder)
    await graph.write("MATCH (ix:MeaningIndex) SET ix.state = 'filling'")
    assert await meaning_hits(graph, "big", "dark mode in editor number 7", embedder) == ready
    await embed_pending(graph, embedder, index_from=INDEX_FROM)  # the next pass finishes it
    assert [row["state"] for row in await graph.read(MARKERS)] == ["ready"]


async def test_a_filtered_meaning_list_reaches_further_into_the_index_until_it_is_full(
    memory: Memory, graph: Graph, embedder: Embedder, spaces: tuple[Story, Story]
) -> None:
    big, _ = spaces
    said = await big.say("we settled it")
    await big.remember(
        said, key="decision:editor:theme", value={"decision": "a dark theme for the code editor"}
    )
    await embed_pending(graph, embedder, index_from=INDEX_FROM)
    [vector] = embedder.embed(["dark mode in editor number 7"])
    view = await View.open(graph, "big")
    params = {
        **view.params(),
        "vector": vector,
        "types": ["decision"],
        "first": 3,
        "minScore": (1 + MIN_SIMILARITY) / 2,
    }
    # The decision is not among the 60 vectors nearest the query: the first reach misses it.
    assert await graph.read(BY_MEANING, **params, nearest=60) == [
        {"id": None, "score": None, "cut": True}
    ]
    hits = await memory.reads.search(
        view, "dark mode in editor number 7", types=[MemoryType.DECISION], first=1
    )
    assert [(h.claim.key, "meaning" in h.sources) for h in hits] == [
        ("decision:editor:theme", True)
    ]
