"""search by words as people say them: multi-word predicates, stop words, possessives, and the
names of the entities a fact is about (as subject or object)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from graph.domain.model import Claim
from graph.domain.vocabulary import MemoryType
from graph.reads.search import search
from graph.reads.search_words import lucene_query, query_words
from graph.runtime import Embedder, Graph
from graph.store.migrate import load
from tests.story import Story, new_story

FACT_PREDICATE_WORDS = next(m for m in load() if m.name == "V0010__fact_predicate_words")


@dataclass
class World:
    story: Story
    head_of_state: Claim
    capital: Claim
    employer: Claim


@pytest.fixture
async def world(graph: Graph) -> World:
    story = await new_story(graph)
    for key, name, aliases in [
        ("entity:person:alice", "Alice", []),
        ("entity:org:acme", "Acme Corp", ["ACME Holdings"]),
        ("entity:topic:france", "France", []),
        ("entity:topic:paris", "Paris", []),
        ("entity:person:macron", "Emmanuel Macron", []),
    ]:
        await story.entity(key, name, aliases=aliases)

    async def fact(subject: str, predicate: str, target: str) -> Claim:
        said = await story.say(f"noted: {subject} {predicate.lower()} {target}")
        return await story.remember(
            said,
            type="fact",
            subject={"key": subject},
            predicate=predicate,
            object={"key": target},
        )

    return World(
        story,
        await fact("entity:topic:france", "HEAD_OF_STATE", "entity:person:macron"),
        await fact("entity:topic:france", "CAPITAL", "entity:topic:paris"),
        await fact("entity:person:alice", "EMPLOYER", "entity:org:acme"),
    )


async def fact_ids(world: World, embedder: Embedder, query: str) -> list[str]:
    hits = await search(
        world.story.graph, await world.story.view(), query, embedder, types=[MemoryType.FACT]
    )
    return [hit.claim.id for hit in hits]


async def text_hits(world: World, embedder: Embedder, query: str) -> list[str]:
    """The claims the full-text list over claim texts found, best first."""
    hits = await search(world.story.graph, await world.story.view(), query, embedder)
    return [hit.claim.id for hit in hits if "text" in hit.sources]


async def test_query_words_drop_stop_words_and_add_the_bare_form_of_a_possessive(
    graph: Graph,
) -> None:
    assert query_words("Alice's employer") == ["alice", "alice's", "employer"]
    assert query_words("the capital of France?") == ["capital", "france?"]
    assert query_words("Alice\u2019s boss") == ["alice", "alice\u2019s", "boss"]
    assert query_words("The Who") == ["who"]
    assert query_words("the of AND") == ["the", "of", "and"]
    space = "00000000-0000-0000-0000-000000000000"
    assert lucene_query(space, "it's title:x~2") == f'spaceId:"{space}" AND (it\'s title\\:x\\~2)'


async def test_a_multi_word_predicate_is_found_by_its_words(
    world: World, embedder: Embedder
) -> None:
    assert world.head_of_state.text == "France head of state Emmanuel Macron"
    assert await fact_ids(world, embedder, "head of state") == [world.head_of_state.id]
    assert await fact_ids(world, embedder, "HEAD_OF_STATE") == [world.head_of_state.id]


async def test_stop_words_and_possessives_rank_a_fact_as_the_bare_words_do(
    world: World, embedder: Embedder
) -> None:
    for said, bare, fact in [
        ("the capital of France", "capital France", world.capital),
        ("Alice's employer", "Alice employer", world.employer),
    ]:
        assert (await fact_ids(world, embedder, said))[0] == fact.id, said
        assert (await fact_ids(world, embedder, bare))[0] == fact.id, bare


async def test_a_query_of_only_stop_words_searches_them_as_they_are(
    world: World, embedder: Embedder
) -> None:
    # Only the fact whose text says "head of state" holds one of those words.
    assert await text_hits(world, embedder, "of the") == [world.head_of_state.id]
    assert await text_hits(world, embedder, "To be, or not to be") == []


async def test_a_fact_is_found_by_its_object_entitys_name_and_alias(
    world: World, embedder: Embedder
) -> None:
    for name in ("Emmanuel Macron", "ACME Holdings"):
        hits = await search(world.story.graph, await world.story.view(), name, embedder)
        by_entity = {h.claim.id for h in hits if "entity" in h.sources}
        expected = world.head_of_state if name.startswith("Emmanuel") else world.employer
        assert expected.id in by_entity, name


async def test_the_migration_names_multi_word_predicates_of_facts_written_before_once(
    world: World, embedder: Embedder
) -> None:
    graph = world.story.graph
    written_before = "[fact:old]\nfrance HEAD_OF_STATE macron"
    await graph.write(
        "MATCH (c:Claim {id: $id}) SET c.text = $text",
        id=world.head_of_state.id,
        text=written_before,
    )
    assert world.head_of_state.id not in await text_hits(world, embedder, "head of state")
    for _ in range(2):  # applied again after a stop midway, it changes nothing more
        for statement in FACT_PREDICATE_WORDS.statements:
            async with graph.driver.session(database=graph.database) as session:
                await (await session.run(statement)).consume()
    rows = await graph.read(
        "MATCH (c:Claim {type: 'fact'}) RETURN c.id AS id, c.text AS text ORDER BY id"
    )
    texts = {row["id"]: row["text"] for row in rows}
    assert texts == {
        world.head_of_state.id: written_before + "\nhead of state",
        world.capital.id: world.capital.text,
        world.employer.id: world.employer.text,
    }
    assert (await fact_ids(world, embedder, "head of state"))[0] == world.head_of_state.id
