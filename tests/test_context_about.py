"""`context`: the snapshot an agent puts in its prompt carries the space's current facts in words,
named as of the view, right after the profile (an `about` entity's first) — and nothing that
ended or was superseded, and no key."""

from __future__ import annotations

from graph.domain.actor import Actor
from graph.memory import Memory
from graph.runtime import Embedder, Graph, Settings
from tests.story import day, new_story

OPERATOR = Actor.operator("test")


async def test_context_about_an_entity_carries_its_current_facts_by_name(
    graph: Graph, test_settings: Settings, embedder: Embedder
) -> None:
    story = await new_story(graph)
    await story.entity("entity:person:alice", "Alice")
    await story.entity("entity:org:acme", "Acme Global")
    await story.entity("entity:org:initech", "Initech")
    said = await story.say("I'm Alice, I used to be at Initech and now work at Acme", at=day(1))
    await story.remember(said, key="profile:user:name", value={"value": "Alice"})
    await story.remember(said, key="pref:ui:theme", value={"value": "dark"})
    for org, start, end in (("initech", day(-400), day(-30)), ("acme", day(-30), None)):
        await story.remember(
            said,
            type="fact",
            subject={"key": "entity:person:alice"},
            predicate="WORKS_AT",
            object={"key": f"entity:org:{org}"},
            valid_from=start,
            valid_to=end,
        )
    memory = Memory(graph, test_settings, embedder)
    view = await memory.reads.view(OPERATOR, "alice", as_of=day(2))

    plain = await memory.reads.context(view)
    about = await memory.reads.context(view, about={"name": "Alice"})

    assert plain.text.splitlines() == [
        "Profile: user name: Alice",
        "Alice works at Acme Global",
        "Preference: ui theme: dark",
    ], "the space's current facts, without any key"
    assert about.text.splitlines() == [
        "Profile: user name: Alice",
        "Alice works at Acme Global",
        "Preference: ui theme: dark",
    ]
    assert about.keys == [
        "profile:user:name",
        "fact:person/alice:WORKS_AT",
        "pref:ui:theme",
    ]
    tight = await memory.reads.context(view, about={"key": "entity:person:alice"}, budget_bytes=30)
    assert (tight.text, tight.omitted) == ("Profile: user name: Alice", 2)
