"""What a person sees in Neo4j Browser: names, kind labels, captions and current edges — kept
current by renames and corrections, and erased by forget."""

from __future__ import annotations

from typing import Any

import pytest

from graph.domain.actor import Actor
from graph.domain.vocabulary import SelectorKind
from graph.memory import ForgetInput, MergeInput, Selector
from graph.runtime import Graph, Settings
from tests.story import Story, day, new_story

ENTITY = """
MATCH (e:Entity {key: $key})
RETURN e.name AS name, [l IN labels(e) WHERE l <> 'Entity'] AS kinds
"""

EDGES = """
MATCH (:Entity)-[r:WORKS_AT]->(:Entity)
RETURN r.revision AS revision, r.current AS current
ORDER BY revision
"""


@pytest.fixture
async def story(graph: Graph) -> Story:
    story = await new_story(graph)
    await story.entity("entity:person:alice", "Alice Smith")
    await story.entity("entity:org:acme", "Acme Corp")
    return story


async def shown(graph: Graph, key: str) -> dict[str, Any]:
    [row] = await graph.read(ENTITY, key=key)
    return dict(row)


async def test_an_entity_shows_its_name_and_its_kind_as_a_label(story: Story) -> None:
    assert await shown(story.graph, "entity:person:alice") == {
        "name": "Alice Smith",
        "kinds": ["Person"],
    }
    assert await shown(story.graph, "entity:org:acme") == {"name": "Acme Corp", "kinds": ["Org"]}


async def test_a_rename_changes_the_name_shown_while_the_names_stay_bitemporal(
    story: Story,
) -> None:
    await story.entity("entity:person:alice", "Alice Jones", at=day(10))
    assert (await shown(story.graph, "entity:person:alice"))["name"] == "Alice Jones"
    before = await story.memory.reads.entity(
        await story.view(as_of=day(5)), key="entity:person:alice"
    )
    assert before.name == "Alice Smith"


async def test_a_fact_is_captioned_with_names_and_its_edge_says_whether_it_is_current(
    story: Story,
) -> None:
    said = await story.say("Alice works at Acme", at=day(1))
    fact = await story.remember(
        said,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="WORKS_AT",
        object={"key": "entity:org:acme"},
    )
    [row] = await story.graph.read("MATCH (c:Claim {id: $id}) RETURN c.caption AS c", id=fact.id)
    assert row["c"] == "Alice Smith works at Acme Corp", "its text: the words, never its key"
    await story.correct(
        claim_id=fact.id,
        kind="SUPERSEDE",
        valid_to=day(100),
        reason="she left",
        evidence=[{"observation_id": await story.say("I left Acme")}],
    )
    assert await story.graph.read(EDGES) == [
        {"revision": 1, "current": False},
        {"revision": 2, "current": True},
    ]


async def test_a_merge_leaves_each_entity_its_own_name(story: Story) -> None:
    await story.entity("entity:org:acme-inc", "ACME Inc.")
    await story.memory.writes.merge_entities(
        Actor.operator("test"),
        story.space,
        MergeInput(
            survivor={"key": "entity:org:acme"},
            duplicate={"key": "entity:org:acme-inc"},
            reason="same company",
        ),
    )
    assert (await shown(story.graph, "entity:org:acme-inc"))["name"] == "ACME Inc."
    assert (await shown(story.graph, "entity:org:acme"))["name"] == "Acme Corp"


async def test_forgetting_an_entity_erases_its_name_kind_label_and_captions(
    story: Story, test_settings: Settings
) -> None:
    [alice] = await story.graph.read(
        "MATCH (e:Entity {key: 'entity:person:alice'}) RETURN e.id AS id"
    )
    await story.memory.forgetting.forget(
        Actor.operator("test"),
        story.space,
        ForgetInput(selector=Selector(kind=SelectorKind.ENTITY, id=alice["id"]), reason="asked"),
    )
    [row] = await story.graph.read(
        "MATCH (e:Entity {id: $id}) RETURN e.name AS name, labels(e) AS labels", id=alice["id"]
    )
    assert row == {"name": None, "labels": ["Entity"]}
    captions = await story.graph.read(
        "MATCH (c:Claim) WHERE c.caption CONTAINS 'alice' RETURN c.caption AS caption"
    )
    assert captions == []
