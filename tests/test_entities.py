"""Entities: bi-temporal names (renames keep the old name in the past) and undoable merges."""

from __future__ import annotations

import pytest

from graph.domain.actor import Actor
from graph.domain.errors import NotFound, ValidationFailed
from graph.memory import Memory, MergeInput
from graph.runtime import Embedder, Graph, Settings
from tests.story import Story, day, new_story


@pytest.fixture
async def story(graph: Graph) -> Story:
    return await new_story(graph)


async def test_a_rename_keeps_the_old_name_visible_as_of_earlier_times(story: Story) -> None:
    acme = await story.entity("entity:org:acme", "Acme Corp", at=day(0))
    renamed = await story.say("Acme is now called Acme Global", at=day(100))
    before_rename_was_recorded = (await story.view()).known_at
    await story.correct(
        claim_id=acme.id,
        kind="SUPERSEDE",
        value={"name": "Acme Global", "aliases": ["Acme Corp"]},
        valid_from=day(100),
        reason="renamed",
        evidence=[{"observation_id": renamed}],
    )
    names = {}
    for label, view in {
        "2024-02 now": await story.view(as_of=day(31)),
        "2024-06 now": await story.view(as_of=day(160)),
        "2024-06 before the rename was recorded": await story.view(
            as_of=day(160), known_at=before_rename_was_recorded
        ),
    }.items():
        entity = await story.memory.reads.entity(view, key="entity:org:acme")
        names[label] = (entity.name, entity.aliases)
    assert names == {
        "2024-02 now": ("Acme Corp", ()),
        "2024-06 now": ("Acme Global", ("Acme Corp",)),
        "2024-06 before the rename was recorded": ("Acme Corp", ()),
    }


async def test_an_entity_recorded_later_is_not_known_before(story: Story) -> None:
    before = (await story.view()).known_at
    await story.entity("entity:person:bob", "Bob")
    with pytest.raises(NotFound, match="no visible entity 'entity:person:bob'"):
        await story.memory.reads.entity(await story.view(known_at=before), key="entity:person:bob")


async def test_a_merge_shows_one_entity_after_it_and_two_before_and_can_be_undone(
    story: Story,
) -> None:
    await story.entity("entity:person:robert", "Robert", at=day(0))
    await story.entity("entity:person:bob", "Bob", at=day(0))
    merge_id = await story.memory.writes.merge_entities(
        Actor.operator("test"),
        story.space,
        MergeInput(
            survivor={"key": "entity:person:robert"},
            duplicate={"key": "entity:person:bob"},
            reason="Bob is Robert",
        ),
    )
    merged_view = await story.view()
    bob_now = await story.memory.reads.entity(merged_view, key="entity:person:bob")
    assert (bob_now.key, bob_now.name, bob_now.merged_from) == (
        "entity:person:robert",
        "Robert",
        ("entity:person:bob",),
    )
    before = await story.view(as_of=day(10))
    bob_then = await story.memory.reads.entity(before, key="entity:person:bob")
    assert (bob_then.key, bob_then.name) == ("entity:person:bob", "Bob")

    said = await story.say("Bob likes chess")
    fact = await story.remember(
        said, type="fact", subject={"name": "Bob"}, predicate="LIKES", value="chess"
    )
    assert fact.key == "fact:person/robert:LIKES", "writes about the duplicate go to the survivor"

    assert (
        await story.memory.writes.unmerge_entities(
            Actor.operator("t"), story.space, merge_id, "not the same"
        )
        is True
    )
    assert (
        await story.memory.writes.unmerge_entities(
            Actor.operator("t"), story.space, merge_id, "again"
        )
        is False
    )
    after_undo = await story.memory.reads.entity(await story.view(), key="entity:person:bob")
    assert after_undo.key == "entity:person:bob"
    still_merged = await story.memory.reads.entity(merged_view, key="entity:person:bob")
    assert still_merged.key == "entity:person:robert", "the past view keeps the merge"


async def test_an_entity_cannot_be_merged_into_itself_or_chained(story: Story) -> None:
    for name in ("a", "b", "c"):
        await story.entity(f"entity:person:{name}", name.upper())

    def merge(survivor: str, duplicate: str) -> MergeInput:
        return MergeInput(
            survivor={"key": f"entity:person:{survivor}"},
            duplicate={"key": f"entity:person:{duplicate}"},
            reason="same",
        )

    with pytest.raises(ValidationFailed, match="the same entity, or merged into it"):
        await story.memory.writes.merge_entities(
            Actor.operator("test"), story.space, merge("a", "a")
        )
    await story.memory.writes.merge_entities(Actor.operator("test"), story.space, merge("a", "b"))
    with pytest.raises(ValidationFailed, match="the same entity, or merged into it"):
        await story.memory.writes.merge_entities(
            Actor.operator("test"), story.space, merge("a", "b")
        )
    with pytest.raises(ValidationFailed, match="merge into the survivor instead"):
        await story.memory.writes.merge_entities(
            Actor.operator("test"), story.space, merge("c", "a")
        )


async def test_a_walk_from_a_duplicates_id_starts_at_its_survivor_and_an_unseen_id_is_not_found(
    story: Story, test_settings: Settings, embedder: Embedder
) -> None:
    robert_told = await story.entity("entity:person:robert", "Robert", at=day(0))
    await story.entity("entity:person:bob", "Bob", at=day(0))
    said = await story.say("Robert works at Acme")
    await story.remember(
        said,
        type="fact",
        subject={"name": "Robert"},
        predicate="WORKS_AT",
        object={"name": "Acme", "kind": "org"},
        valid_from=day(1),
    )
    unmerged = await story.view()
    robert = await story.memory.reads.entity(unmerged, key="entity:person:robert")
    bob = await story.memory.reads.entity(unmerged, key="entity:person:bob")
    await story.memory.writes.merge_entities(
        Actor.operator("test"),
        story.space,
        MergeInput(survivor={"id": robert.id}, duplicate={"id": bob.id}, reason="one man"),
    )
    memory = Memory(story.graph, test_settings, embedder)
    view = await story.view()
    from_bob = await memory.reads.related(view, {"id": bob.id})
    assert from_bob == await memory.reads.related(view, {"id": robert.id})
    assert (from_bob.start_id, [e.name for e in from_bob.entities]) == (
        robert.id,
        ["Robert", "Acme", "Bob"],
    )

    before_bob = await story.view(known_at=robert_told.recorded_at)
    with pytest.raises(NotFound, match=f"no visible entity '{bob.id}'") as refused:
        await memory.reads.related(before_bob, {"id": bob.id})
    assert refused.value.field == "id"
    assert (await memory.reads.related(before_bob, bob.id)).entities == ()

    acme = await story.memory.reads.entity(view, key="entity:org:acme")
    why = await memory.reads.explain_relation(view, {"id": bob.id}, {"id": acme.id})
    assert [[(s.from_id, s.to_id) for s in path] for path in why.paths] == [[(robert.id, acme.id)]]
    with pytest.raises(NotFound, match=f"no visible entity '{bob.id}'"):
        await memory.reads.explain_relation(before_bob, {"id": bob.id}, {"id": robert.id})
    unseen = await memory.reads.explain_relation(before_bob, bob.id, robert.id)
    assert (unseen.paths, unseen.reason) == ([], f"entity {bob.id} is not visible in this view")
