"""search: visible claims by their text, their evidence and their entities, fused by rank."""

from __future__ import annotations

import pytest

from graph.runtime import Embedder, Graph
from tests.story import Story, new_story


@pytest.fixture
async def story(graph: Graph) -> Story:
    story = await new_story(graph)
    await story.entity("entity:person:zoe", "Zoe", aliases=["Zed"])
    said = await story.say("Zoe mentioned she plays the theremin on weekends")
    await story.remember(
        said,
        type="fact",
        subject={"key": "entity:person:zoe"},
        predicate="PLAYS",
        value="theremin",
    )
    tea = await story.say("remember: oolong, not green")
    await story.remember(tea, key="pref:other:drink", value={"value": "oolong tea"})
    return story


async def test_a_claim_is_found_by_its_text_its_evidence_and_its_entity(
    story: Story, embedder: Embedder
) -> None:
    view = await story.view()
    by_text = await story.memory.reads.search(view, "oolong")
    assert [(h.claim.key, "text" in h.sources) for h in by_text] == [("pref:other:drink", True)]
    by_evidence = await story.memory.reads.search(view, "weekends")
    assert [(h.claim.key, h.sources) for h in by_evidence] == [
        ("fact:person/zoe:PLAYS", ("evidence",))
    ]
    by_alias = await story.memory.reads.search(view, "Zed")
    assert "fact:person/zoe:PLAYS" in [h.claim.key for h in by_alias]


async def test_a_search_right_after_each_remember_finds_it_by_its_text_and_its_evidence(
    story: Story, embedder: Embedder
) -> None:
    """The full-text indexes are updated just after commit (V0013); a search waits for them."""
    for n in range(15):
        word = f"quokka{n}x"
        said = await story.say(f"the {word} sighting was logged")
        await story.remember(said, key=f"pref:other:sighting{n}", value={"value": f"{word} seen"})
        view = await story.view()
        found = await story.memory.reads.search(view, word)
        assert [(h.claim.key, h.sources) for h in found] == [
            (f"pref:other:sighting{n}", ("text", "evidence"))
        ], n


async def test_lucene_syntax_in_a_query_is_just_text(story: Story, embedder: Embedder) -> None:
    view = await story.view()
    for query in ("AND", "OR NOT", 'oolong" OR *', "(((", "theremin AND", "title:x~2^3"):
        hits = await story.memory.reads.search(view, query)
        assert all(h.claim.key for h in hits), query


async def test_another_space_never_crowds_out_a_small_spaces_candidates(
    story: Story, graph: Graph, embedder: Embedder
) -> None:
    crowd = await new_story(graph, "crowd")
    said = await crowd.say("oolong everywhere")
    for i in range(120):
        await crowd.remember(said, key=f"pref:other:oolong{i}", value={"value": "oolong"})
    hits = await story.memory.reads.search(await story.view(), "oolong", first=1)
    assert [h.claim.key for h in hits] == ["pref:other:drink"]
