"""Writes that speak names: entities found or created by name and kind, evidence given as text
in the same transaction, claims corrected and forgotten by key, errors that name their item."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from graph.domain.actor import Actor
from graph.domain.errors import AmbiguousSubject, NotFound, ValidationFailed
from graph.domain.timeutil import to_native
from graph.memory import Memory
from graph.runtime import Embedder, Graph, Settings
from tests.story import day

AGENT = Actor.operator("agent-7")
SAID = [{"text": "Alice: I joined Acme Corp last week", "observed_at": day(10)}]


@pytest.fixture
async def memory(graph: Graph, test_settings: Settings, embedder: Embedder) -> Memory:
    memory = Memory(graph, test_settings, embedder)
    await memory.writes.create_space(AGENT, "alice")
    return memory


def fact(
    subject: dict[str, str], predicate: str, obj: dict[str, str], **more: Any
) -> dict[str, Any]:
    return {
        "type": "fact",
        "subject": subject,
        "predicate": predicate,
        "object": obj,
        "evidence": SAID,
        **more,
    }


ALICE = {"name": "Alice", "kind": "person"}
ACME = {"name": "Acme Corp", "kind": "org"}


async def entity_keys(memory: Memory) -> list[str]:
    rows = await memory.graph.read(
        "MATCH (e:Entity) WHERE e.erasedAt IS NULL RETURN e.key AS key ORDER BY key"
    )
    return [row["key"] for row in rows]


async def observation_texts(memory: Memory) -> list[str]:
    rows = await memory.graph.read(
        "MATCH (o:Observation) WHERE o.erasedAt IS NULL RETURN o.content AS text ORDER BY text"
    )
    return [row["text"] for row in rows]


async def test_a_fact_by_names_creates_both_entities_with_keys_derived_from_kind_and_name(
    memory: Memory,
) -> None:
    [claim] = await memory.writes.remember(AGENT, "alice", [fact(ALICE, "WORKS_AT", ACME)])
    assert claim.key == "fact:person/alice:WORKS_AT"
    assert await entity_keys(memory) == ["entity:org:acme-corp", "entity:person:alice"]
    view = await memory.reads.view(AGENT, "alice")
    acme = await memory.reads.find_entity(view, {"key": "entity:org:acme-corp"})
    assert (acme.name, claim.object_id) == ("Acme Corp", acme.id)


async def test_a_name_is_matched_ignoring_case_and_spacing_so_the_entity_is_reused(
    memory: Memory,
) -> None:
    await memory.writes.remember(AGENT, "alice", [fact(ALICE, "WORKS_AT", ACME)])
    [again] = await memory.writes.remember(
        AGENT,
        "alice",
        [
            fact(
                {"name": "  alice ", "kind": "person"},
                "KNOWS",
                {"name": "ACME   corp", "kind": "org"},
            )
        ],
    )
    assert again.key == "fact:person/alice:KNOWS:org/acme-corp"
    assert await entity_keys(memory) == ["entity:org:acme-corp", "entity:person:alice"]


async def test_a_name_that_fits_two_entities_is_ambiguous_names_their_keys_and_writes_nothing(
    memory: Memory,
) -> None:
    await memory.writes.remember(
        AGENT,
        "alice",
        [
            {
                "key": "entity:person:alice-smith",
                "value": {"name": "Alice", "aliases": ["Al"]},
                "evidence": SAID,
            },
            {"key": "entity:person:alice-jones", "value": {"name": "Alice"}, "evidence": SAID},
        ],
    )
    claims_before = await memory.graph.read("MATCH (c:Claim) RETURN count(c) AS n")
    with pytest.raises(AmbiguousSubject) as refused:
        await memory.writes.remember(
            AGENT,
            "alice",
            [
                fact({"name": "Al", "kind": "person"}, "KNOWS", ACME),
                fact({"name": "alice"}, "WORKS_AT", ACME),
            ],
            field="inputs",
        )
    assert refused.value.field == "inputs[1].subject"
    assert refused.value.message == (
        "name 'alice' names 2 entities (entity:person:alice-jones, entity:person:alice-smith); "
        "refer to one by key or id"
    )
    assert await memory.graph.read("MATCH (c:Claim) RETURN count(c) AS n") == claims_before


async def test_a_name_without_a_kind_that_fits_nothing_is_not_found_and_says_how_to_create_it(
    memory: Memory,
) -> None:
    with pytest.raises(NotFound) as refused:
        await memory.writes.remember(AGENT, "alice", [fact({"name": "Bob"}, "WORKS_AT", ACME)])
    assert (refused.value.field, refused.value.message) == (
        "subject",
        "no entity with name 'Bob' in space 'alice' (give its kind to create it)",
    )
    assert await entity_keys(memory) == []
    assert await observation_texts(memory) == []


async def test_a_batch_may_create_an_entity_and_state_facts_about_it_by_key_and_by_name(
    memory: Memory,
) -> None:
    done = await memory.writes.remember(
        AGENT,
        "alice",
        [
            {"key": "entity:person:q42", "value": {"name": "Douglas Adams"}, "evidence": SAID},
            fact({"key": "entity:person:q42"}, "AUTHOR_OF", {"name": "Dune", "kind": "other"}),
            fact({"name": "douglas adams"}, "BORN_IN", {"name": "Cambridge", "kind": "other"}),
        ],
    )
    assert [c.key for c in done] == [
        "entity:person:q42",
        "fact:person/q42:AUTHOR_OF:other/dune",
        "fact:person/q42:BORN_IN",
    ]
    assert done[1].subject_id == done[2].subject_id == done[0].subject_id
    assert await entity_keys(memory) == [
        "entity:other:cambridge",
        "entity:other:dune",
        "entity:person:q42",
    ]


async def test_a_name_with_a_kind_finds_the_entity_its_key_names_after_it_was_renamed(
    memory: Memory,
) -> None:
    [first] = await memory.writes.remember(AGENT, "alice", [fact(ALICE, "WORKS_AT", ACME)])
    await memory.writes.remember(
        AGENT,
        "alice",
        [{"key": "entity:org:acme-corp", "value": {"name": "Acme Global"}, "evidence": SAID}],
    )
    [later] = await memory.writes.remember(AGENT, "alice", [fact(ALICE, "KNOWS", ACME)])
    assert later.object_id == first.object_id
    assert await entity_keys(memory) == ["entity:org:acme-corp", "entity:person:alice"]


async def test_evidence_text_is_recorded_once_in_the_writers_session_episode_of_the_day(
    memory: Memory,
) -> None:
    done = await memory.writes.remember(
        AGENT,
        "alice",
        [
            fact(ALICE, "WORKS_AT", ACME),
            {"type": "fact", "subject": ALICE, "predicate": "AGE", "value": 34, "evidence": SAID},
        ],
    )
    assert await observation_texts(memory) == ["Alice: I joined Acme Corp last week"]
    [cited] = {e.observation_id for c in done for e in c.evidence}
    assert {e.authority.value for c in done for e in c.evidence} == {"user_stated"}
    [episode] = await memory.graph.read(
        "MATCH (e:Episode)-[:HAS_OBSERVATION]->(o:Observation {id: $id}) "
        "RETURN e.title AS title, e.sessionKey AS session, o.observedAt AS at",
        id=cited,
    )
    assert episode["title"].startswith("Evidence agent-7 gave inline on ")
    assert episode["at"].to_native() == day(10)
    await memory.writes.remember(
        AGENT,
        "alice",
        [
            {
                "type": "fact",
                "subject": ALICE,
                "predicate": "AGE",
                "value": 35,
                "evidence": [{"text": "Alice: I turned 35"}],
            }
        ],
    )
    sessions = await memory.graph.read("MATCH (e:Episode) RETURN count(e) AS n")
    assert sessions == [{"n": 1}]


async def test_a_refused_write_records_none_of_its_evidence_text(memory: Memory) -> None:
    with pytest.raises(ValidationFailed) as refused:
        await memory.writes.remember(
            AGENT,
            "alice",
            [
                fact(ALICE, "WORKS_AT", ACME),
                {
                    "key": "pref:ui:theme",
                    "value": {"value": "dark"},
                    "evidence": [
                        {
                            "text": "I like dark mode",
                            "role": "assistant",
                            "authority": "user_stated",
                        }
                    ],
                },
            ],
            field="inputs",
        )
    assert refused.value.field == "inputs[1].evidence[0].authority"
    assert await observation_texts(memory) == []
    assert await entity_keys(memory) == []


async def test_evidence_text_goes_in_the_open_episode_the_caller_names(memory: Memory) -> None:
    episode = await memory.writes.open_episode(AGENT, "alice", {"title": "chat 9"})
    [claim] = await memory.writes.remember(
        AGENT,
        "alice",
        [
            fact(
                ALICE,
                "WORKS_AT",
                ACME,
                evidence=[{"text": "I work at Acme", "episode_id": episode.id}],
            )
        ],
    )
    assert [e.episode_id for e in claim.evidence] == [episode.id]
    await memory.writes.seal_episode(AGENT, "alice", {"episode_id": episode.id})
    with pytest.raises(ValidationFailed) as refused:
        await memory.writes.remember(
            AGENT,
            "alice",
            [fact(ALICE, "KNOWS", ACME, evidence=[{"text": "hi", "episode_id": episode.id}])],
            field="inputs",
        )
    assert refused.value.field == "inputs[0].evidence[0].episodeId"


async def test_correct_takes_a_claim_key_meaning_its_current_revision(memory: Memory) -> None:
    [first] = await memory.writes.remember(AGENT, "alice", [fact(ALICE, "WORKS_AT", ACME)])
    retracted = await memory.writes.correct(
        AGENT,
        "alice",
        {
            "claim_key": "fact:person/alice:WORKS_AT",
            "kind": "RETRACT",
            "reason": "she left",
            "evidence": [{"text": "Alice: I left Acme"}],
        },
    )
    assert (retracted.key, retracted.revision, retracted.status.value) == (
        first.key,
        2,
        "retracted",
    )
    with pytest.raises(NotFound) as refused:
        await memory.writes.correct(
            AGENT,
            "alice",
            {
                "claim_key": "fact:person/alice:LIVES_IN",
                "kind": "RETRACT",
                "reason": "x",
                "evidence": SAID,
            },
        )
    assert refused.value.field == "claimKey"


async def test_correct_by_a_key_with_several_current_revisions_asks_for_the_id(
    memory: Memory,
) -> None:
    decision = {"key": "decision:engram:db", "value": {"decision": "Neo4j"}, "evidence": SAID}
    await memory.writes.remember(AGENT, "alice", [decision])
    await memory.writes.remember(AGENT, "alice", [{**decision, "value": {"decision": "Neo4j 5"}}])
    with pytest.raises(ValidationFailed) as refused:
        await memory.writes.correct(
            AGENT,
            "alice",
            {
                "claim_key": "decision:engram:db",
                "kind": "RETRACT",
                "reason": "x",
                "evidence": SAID,
            },
        )
    assert refused.value.field == "claimKey"
    assert refused.value.message.startswith("key 'decision:engram:db' has 2 current revisions (")


async def test_forget_takes_a_claim_key_or_an_entity_name(memory: Memory) -> None:
    bob = {"name": "Bob", "kind": "person"}
    bobs = [{"text": "Bob: I work at Acme Corp too", "observed_at": day(11)}]
    await memory.writes.remember(
        AGENT, "alice", [fact(ALICE, "WORKS_AT", ACME), fact(bob, "WORKS_AT", ACME, evidence=bobs)]
    )
    receipt = await memory.forgetting.forget(
        AGENT,
        "alice",
        {
            "selector": {"kind": "CLAIM", "key": "fact:person/alice:WORKS_AT"},
            "reason": "asked",
        },
    )
    # Alice and her message existed only because of the fact; Acme Corp is still named by Bob's.
    assert receipt.erased == {
        "claims": 1,
        "observations": 1,
        "episodes": 0,
        "artifacts": 0,
        "entities": 1,
    }
    assert await entity_keys(memory) == ["entity:org:acme-corp", "entity:person:bob"]
    receipt = await memory.forgetting.forget(
        AGENT,
        "alice",
        {
            "selector": {"kind": "ENTITY", "name": "acme corp"},
            "reason": "asked",
        },
    )
    # Acme Corp with its name and Bob's fact; Bob, named by nothing else now, goes too.
    assert (receipt.erased["entities"], receipt.erased["claims"]) == (2, 2)
    assert await observation_texts(memory) == []
    with pytest.raises(NotFound):
        await memory.forgetting.forget(
            AGENT,
            "alice",
            {
                "selector": {"kind": "CLAIM", "key": "fact:person/alice:WORKS_AT"},
                "reason": "x",
            },
        )


async def test_a_name_too_long_for_a_key_cannot_create_an_entity(memory: Memory) -> None:
    long_name = {"name": "A" * 500, "kind": "person"}
    with pytest.raises(ValidationFailed) as refused:
        await memory.writes.remember(AGENT, "alice", [fact(long_name, "WORKS_AT", ACME)])
    assert refused.value.field == "subject.name"
    assert refused.value.message.endswith("cannot name a new entity: a key is 1–512 characters")
    assert await entity_keys(memory) == []


async def test_a_name_in_a_read_is_the_one_borne_in_the_view_else_one_ever_borne(
    memory: Memory,
) -> None:
    await memory.writes.remember(AGENT, "alice", [fact(ALICE, "WORKS_AT", ACME)])
    renamed = [{"text": "Acme Corp is now Acme Global", "observed_at": day(40)}]
    await memory.writes.remember(
        AGENT,
        "alice",
        [{"key": "entity:org:acme-corp", "value": {"name": "Acme Global"}, "evidence": renamed}],
    )
    before = await memory.reads.view(AGENT, "alice", as_of=day(20))
    now = await memory.reads.view(AGENT, "alice")
    assert (
        await memory.reads.find_entity(before, {"name": "acme  CORP"})
    ).key == "entity:org:acme-corp"
    assert (
        await memory.reads.find_entity(now, {"name": "Acme Global"})
    ).key == "entity:org:acme-corp"
    # A name borne at another time still finds the entity when nothing bears it in the view.
    assert (await memory.reads.find_entity(now, {"name": "Acme Corp"})).name == "Acme Global"
    assert (await memory.reads.find_entity(before, {"name": "Acme Global"})).name == "Acme Corp"
    with pytest.raises(NotFound):
        await memory.reads.find_entity(before, {"name": "Acme Corp", "kind": "person"})


async def test_names_fold_case_spaces_hyphens_and_underscores_and_a_folded_spelling_is_an_alias(
    memory: Memory,
) -> None:
    pooh = {"name": "Winnie-the-Pooh", "kind": "other"}
    [likes] = await memory.writes.remember(AGENT, "alice", [fact(ALICE, "LIKES", pooh)])
    spelled = {"name": "winnie  the_pooh", "kind": "other"}
    [honey] = await memory.writes.remember(
        AGENT, "alice", [fact(spelled, "LIKES", {"name": "Honey", "kind": "other"})]
    )
    assert honey.key == "fact:other/winnie-the-pooh:LIKES:other/honey"
    view = await memory.reads.view(AGENT, "alice")
    found = await memory.reads.find_entity(view, {"name": "Winnie the Pooh"})
    assert (found.key, found.name, found.aliases) == (
        "entity:other:winnie-the-pooh",
        "Winnie-the-Pooh",
        ("winnie the_pooh",),
    ), "one entity; the spelling the write used is its alias"
    assert likes.object_id == found.id == honey.subject_id
    for other in ("C", "C#", "C++"):
        await memory.writes.remember(
            AGENT, "alice", [fact(ALICE, "KNOWS", {"name": other, "kind": "topic"})]
        )
    assert [k for k in await entity_keys(memory) if ":topic:" in k] == [
        "entity:topic:c",
        "entity:topic:c#",
        "entity:topic:c++",
    ], "other punctuation tells names apart"


async def test_a_name_written_just_after_a_merge_means_the_survivor_even_when_this_clock_lags(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write guesses its lookup from the space's last tick, on this process's clock; a merge
    recorded after that clock's `now` (a writer that came first, a database clock ahead) proves
    the guess wrong, however close the clocks, and the name is looked up again at the write's
    own time."""
    acme_inc = {"name": "Acme Inc", "kind": "org"}
    await memory.writes.remember(AGENT, "alice", [fact(ALICE, "WORKS_AT", ACME)])
    await memory.writes.remember(AGENT, "alice", [fact(ALICE, "KNOWS", acme_inc)])
    await memory.writes.merge_entities(
        AGENT,
        "alice",
        {
            "survivor": {"key": "entity:org:acme-corp"},
            "duplicate": {"key": "entity:org:acme-inc"},
            "reason": "one company",
        },
    )
    [merged] = await memory.graph.read(
        "MATCH (:Entity)-[m:MERGED_INTO]->(:Entity) RETURN m.recordedAt AS at"
    )
    lagging = to_native(merged["at"]) - timedelta(milliseconds=1)
    monkeypatch.setattr("graph.commands.writing.utc_now", lambda: lagging)
    monkeypatch.setattr("graph.commands.writing.SKEW", timedelta(hours=1))
    [claim] = await memory.writes.remember(AGENT, "alice", [fact(ALICE, "LIKES", acme_inc)])
    [row] = await memory.graph.read(
        "MATCH (e:Entity {id: $id}) RETURN e.key AS key", id=claim.object_id
    )
    assert row["key"] == "entity:org:acme-corp"
