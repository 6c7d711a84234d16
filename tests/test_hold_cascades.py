"""Legal holds cover cascades: no forget, by any selector, erases, retracts or strips evidence
from held data — and only a caller with the legal grant learns which hold and why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from graph.domain.actor import Actor, Grant
from graph.domain.errors import LegalHold
from graph.domain.inputs import parse
from graph.domain.vocabulary import Privacy, SelectorKind
from graph.memory import ArtifactInput, ForgetInput, HoldInput, Memory, RememberInput, Selector
from graph.runtime import Graph, Settings
from tests.story import new_story

OPERATOR = Actor.operator("counsel")
WRITER = Actor("writer", {"alice": Grant("alice", Privacy.SECRET, write=True)})
LEGAL_WRITER = Actor("lawyer", {"alice": Grant("alice", Privacy.SECRET, write=True, legal=True)})

HELD_STATE = """
MATCH (c:Claim)
WHERE c.key STARTS WITH 'fact:' AND c.predicate = 'WORKS_AT'
OPTIONAL MATCH (c)-[e]->(t)
WHERE type(e) IN ['SUPPORTED_BY', 'CONTRADICTED_BY', 'CORRECTED_BY']
WITH c, collect([type(e), t.id, t.erasedAt IS NULL]) AS evidence
RETURN properties(c) AS claim, evidence
ORDER BY claim.revision
"""


@dataclass
class Held:
    ids: dict[str, str]


async def _world(graph: Graph, settings: Settings) -> Held:
    memory = Memory(graph, settings)
    story = await new_story(graph)
    ids = {"chat": story.episode_id}
    ids["named"] = await story.say("Alice and Acme exist")
    for key, name in [("entity:person:alice", "Alice"), ("entity:org:acme", "Acme")]:
        ids[key] = (await story.remember(ids["named"], key=key, value={"name": name})).subject_id
    ids["said"] = await story.say("Alice works at Acme")
    doc = await memory.writes.add_artifact(
        OPERATOR, "alice", ArtifactInput(content="the employment contract")
    )
    ids["doc"] = doc.id
    item = parse(
        RememberInput,
        {
            "type": "fact",
            "subject": {"key": "entity:person:alice"},
            "predicate": "WORKS_AT",
            "object": {"key": "entity:org:acme"},
            "evidence": [{"observation_id": ids["said"]}, {"artifact_id": doc.id}],
        },
    )
    [works] = await memory.writes.remember(OPERATOR, "alice", [item])
    ids["works"] = works.id
    await memory.forgetting.set_legal_hold(
        OPERATOR,
        "alice",
        HoldInput(selector=Selector(kind=SelectorKind.CLAIM, id=works.id), reason="case 7"),
    )
    return Held(ids)


SELECTORS: dict[str, Any] = {
    "its evidence message": lambda ids: {"kind": "OBSERVATION", "id": ids["said"]},
    "its evidence file": lambda ids: {"kind": "ARTIFACT", "id": ids["doc"]},
    "the episode of its evidence": lambda ids: {"kind": "EPISODE", "id": ids["chat"]},
    "its subject": lambda ids: {"kind": "ENTITY", "id": ids["entity:person:alice"]},
    "its object": lambda ids: {"kind": "ENTITY", "id": ids["entity:org:acme"]},
    "its subject and predicate": lambda ids: {
        "kind": "SUBJECT_PREDICATE",
        "subject": {"key": "entity:person:alice"},
        "predicate": "WORKS_AT",
    },
    "the claim itself": lambda ids: {"kind": "CLAIM", "id": ids["works"]},
}


@pytest.mark.parametrize("name", list(SELECTORS))
async def test_a_forget_reaching_held_data_is_refused_and_changes_nothing(
    memory: Memory, graph: Graph, test_settings: Settings, name: str
) -> None:
    held = await _world(graph, test_settings)
    before = await graph.read(HELD_STATE)
    request = ForgetInput(
        selector=Selector.model_validate(SELECTORS[name](held.ids)), reason="please"
    )
    with pytest.raises(LegalHold) as refused:
        await memory.forgetting.forget(WRITER, "alice", request)
    assert refused.value.message == "a legal hold covers this data"
    assert await graph.read(HELD_STATE) == before

    with pytest.raises(LegalHold, match=r"legal hold .* \(case 7\) covers this data"):
        await memory.forgetting.forget(LEGAL_WRITER, "alice", request)
    assert await graph.read(HELD_STATE) == before


async def test_a_forget_beside_held_data_goes_ahead(
    memory: Memory, graph: Graph, test_settings: Settings
) -> None:
    held = await _world(graph, test_settings)
    before = await graph.read(HELD_STATE)
    receipt = await memory.forgetting.forget(
        WRITER,
        "alice",
        ForgetInput(
            selector=Selector(kind=SelectorKind.OBSERVATION, id=held.ids["named"]), reason="x"
        ),
    )
    assert (receipt.erased["observations"], receipt.made_inactive) == (1, 2)
    assert await graph.read(HELD_STATE) == before
