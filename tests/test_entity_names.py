"""Entities named in writes are found by an index seek on their claims' spoken names."""

from __future__ import annotations

from typing import Any

import pytest

from graph.commands.entity_names import REFOLD_SPOKEN_NAMES
from graph.commands.entity_refs import (
    ENTITIES_AND_SESSIONS_FOUND,
    ENTITIES_BY_NAME,
    ENTITIES_FOUND,
)
from graph.commands.told_facts_upgrade import (
    FILL_RELATION_RANKS,
    FILL_TOLD_RANKS,
    READABLE_TEXTS,
)
from graph.domain.actor import Actor
from graph.domain.errors import EngramError
from graph.domain.vocabulary import SelectorKind
from graph.memory import ForgetInput, Memory, Selector
from graph.reads.resources import ENTITY_IDS_BY_NAME
from graph.runtime import Graph, query_count
from graph.store.migrate import load
from tests.story import TEST_ACTOR, Story, new_story

ENTITY_NAME_LOOKUP = next(m for m in load() if m.name == "V0011__entity_name_lookup")
TOLD_FACTS = next(m for m in load() if m.name == "V0015__told_facts")
SCANS = {"AllNodesScan", "NodeByLabelScan"}


async def plan_operators(graph: Graph, query: str) -> list[tuple[str, str]]:
    """The operators (and their details) of `query`'s plan; EXPLAIN runs nothing."""
    async with graph.driver.session(database=graph.database) as session:
        summary = await (await session.run("EXPLAIN " + query)).consume()
    found: list[tuple[str, str]] = []

    def walk(node: dict[str, Any]) -> None:
        found.append(
            (str(node["operatorType"]).split("@")[0], str(node["args"].get("Details", "")))
        )
        for child in node.get("children", []):
            walk(child)

    assert summary.plan is not None
    walk(summary.plan)
    return found


def fact(n: int, who: str, predicate: str, target: str, kind: str) -> dict[str, Any]:
    return {
        "type": "fact",
        "subject": {"name": who, "kind": "person"},
        "predicate": predicate,
        "object": {"name": target, "kind": kind},
        "evidence": [{"text": f"#{n} {who}: {predicate} {target}"}],
    }


async def counted_remember(story: Story, items: list[dict[str, Any]]) -> int:
    counter = [0]
    token = query_count.set(counter)
    try:
        await story.memory.writes.remember(TEST_ACTOR, story.space, items)
    finally:
        query_count.reset(token)
    return counter[0]


async def test_a_name_is_looked_up_by_an_index_seek_not_a_scan_of_entity_claims(
    graph: Graph,
) -> None:
    for query in (
        ENTITIES_BY_NAME,
        ENTITIES_FOUND,
        ENTITIES_AND_SESSIONS_FOUND,
        ENTITY_IDS_BY_NAME,
    ):
        operators = await plan_operators(graph, query)
        assert not SCANS & {operator for operator, _ in operators}, operators
        assert any(
            operator == "NodeIndexContainsScan" and "spokenNames" in details
            for operator, details in operators
        ), operators


async def test_an_entity_claim_carries_its_names_as_compared(graph: Graph) -> None:
    story = await new_story(graph)
    claim = await story.entity(
        "entity:person:ada", "Ada  LOVELACE", aliases=["Countess of\tLovelace", "Ada"]
    )
    [row] = await graph.read(
        "MATCH (c:Claim {id: $id}) RETURN c.spokenNames AS spoken", id=claim.id
    )
    assert row["spoken"] == "\nada lovelace\ncountess of lovelace\nada\n"


async def test_a_name_finds_its_entity_by_any_of_its_names_and_only_whole_names(
    graph: Graph,
) -> None:
    story = await new_story(graph)
    await story.entity("entity:person:ada", "Ada Lovelace", aliases=["Countess"])
    said = await story.say("ada knows the countess")
    for name in ("ada  lovelace", "COUNTESS"):
        claim = await story.remember(
            said, type="fact", subject={"name": name}, predicate="LIKES", value="tea"
        )
        assert claim.key.startswith("fact:person/ada:LIKES")
    for part in ("ada", "lovelace", "countess of"):
        failed = await _refusal(story, said, part)
        assert failed == "NOT_FOUND"


async def _refusal(story: Story, said: str, name: str) -> str:
    try:
        await story.remember(
            said, type="fact", subject={"name": name}, predicate="LIKES", value="tea"
        )
    except EngramError as failure:
        return failure.code.value
    return "written"


async def test_the_migration_gives_entity_claims_written_before_their_spoken_names(
    graph: Graph,
) -> None:
    story = await new_story(graph)
    ada = await story.entity("entity:person:ada", "Ada  Lovelace", aliases=["Countess\tof X"])
    bob = await story.entity("entity:person:bob", "Bob")
    await graph.write("MATCH (c:Claim) REMOVE c.spokenNames")
    for _ in range(2):  # applied again after a stop midway, it changes nothing more
        for statement in ENTITY_NAME_LOOKUP.statements:
            async with graph.driver.session(database=graph.database) as session:
                await (await session.run(statement)).consume()
    rows = await graph.read(
        "MATCH (c:Claim {type: 'entity'}) RETURN c.id AS id, c.spokenNames AS spoken"
    )
    assert {row["id"]: row["spoken"] for row in rows} == {
        ada.id: "\nada lovelace\ncountess of x\n",
        bob.id: "\nbob\n",
    }


@pytest.mark.fast
def test_a_restore_brings_old_archives_up_to_told_facts_as_the_migration_does() -> None:
    upgrades = (REFOLD_SPOKEN_NAMES, FILL_TOLD_RANKS, FILL_RELATION_RANKS, READABLE_TEXTS)
    assert [" ".join(s.split()) for s in TOLD_FACTS.statements] == [
        " ".join(s.split()) for s in upgrades
    ]


async def test_forgetting_an_entity_claim_erases_its_spoken_names(
    memory: Memory, graph: Graph
) -> None:
    story = await new_story(graph)
    ada = await story.entity("entity:person:ada", "Ada Lovelace")
    await memory.forgetting.forget(
        Actor.operator("test"),
        story.space,
        ForgetInput(selector=Selector(kind=SelectorKind.CLAIM, id=ada.id), reason="asked"),
    )
    [row] = await graph.read("MATCH (c:Claim {id: $id}) RETURN c.spokenNames AS spoken", id=ada.id)
    assert row["spoken"] is None
