"""Predicate cardinality: a ONE predicate holds one current value per subject (a new value
supersedes the old from its validFrom, history kept), a MANY predicate's values coexist; a space
declares its rules, and a write may state the rule it expects."""

from __future__ import annotations

from datetime import datetime
from itertools import count
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph.domain.actor import Actor
from graph.domain.errors import ValidationFailed
from graph.domain.read_records import ClaimFilter
from graph.domain.vocabulary import Cardinality
from graph.memory import Memory
from graph.runtime import Embedder, Graph, Settings
from tests.story import day
from tests.support import NEO4J_EXAMPLES

AGENT = Actor.operator("agent")
SAID = [{"text": "heard it from Alice"}]
ALICE = {"name": "Alice", "kind": "person"}


@pytest.fixture
async def memory(graph: Graph, test_settings: Settings, embedder: Embedder) -> Memory:
    memory = Memory(graph, test_settings, embedder)
    await memory.writes.create_space(AGENT, "alice")
    return memory


def fact(predicate: str, org: str, at: datetime, **more: Any) -> dict[str, Any]:
    return {
        "type": "fact",
        "subject": ALICE,
        "predicate": predicate,
        "object": {"name": org, "kind": "org"},
        "valid_from": at,
        "evidence": SAID,
        **more,
    }


async def objects_named(
    memory: Memory, predicate: str, as_of: datetime | None = None, known_at: datetime | None = None
) -> list[str]:
    view = await memory.reads.view(AGENT, "alice", as_of, known_at)
    alice = await memory.reads.find_entity(view, {"key": "entity:person:alice"})
    page = await memory.reads.claims(view, ClaimFilter(subject_id=alice.id, predicate=predicate))
    objects = await memory.reads.entities(view, [c.object_id or "" for c in page.claims])
    return sorted(e.name for e in objects if e is not None)


async def test_a_one_predicates_new_value_is_shown_from_its_valid_from(
    memory: Memory,
) -> None:
    [first] = await memory.writes.remember(AGENT, "alice", [fact("WORKS_AT", "Acme", day(0))])
    [second] = await memory.writes.remember(AGENT, "alice", [fact("WORKS_AT", "Globex", day(30))])
    assert first.key == second.key == "fact:person/alice:WORKS_AT"
    assert await objects_named(memory, "WORKS_AT") == ["Globex"]
    assert await objects_named(memory, "WORKS_AT", as_of=day(10)) == ["Acme"]
    assert await objects_named(memory, "WORKS_AT", known_at=first.recorded_at) == ["Acme"]
    history = await memory.reads.claim_history(await memory.reads.view(AGENT, "alice"), first.key)
    kept = [(c.revision, c.valid_from, c.valid_to) for c in history if c.superseded_at is None]
    assert kept == [(1, day(0), None), (2, day(30), None)]


async def test_a_many_predicates_values_coexist_each_under_its_own_key(memory: Memory) -> None:
    done = await memory.writes.remember(
        AGENT, "alice", [fact("KNOWS", "Acme", day(0)), fact("KNOWS", "Globex", day(30))]
    )
    assert [c.key for c in done] == [
        "fact:person/alice:KNOWS:org/acme",
        "fact:person/alice:KNOWS:org/globex",
    ]
    assert await objects_named(memory, "KNOWS") == ["Acme", "Globex"]


async def test_a_declared_rule_changes_how_later_facts_are_keyed(memory: Memory) -> None:
    rule = await memory.writes.declare_predicate(AGENT, "alice", "WORKS_AT", Cardinality.MANY)
    assert (rule.predicate, rule.cardinality, rule.declared) == ("WORKS_AT", Cardinality.MANY, True)
    await memory.writes.remember(
        AGENT, "alice", [fact("WORKS_AT", "Acme", day(0)), fact("WORKS_AT", "Globex", day(30))]
    )
    assert await objects_named(memory, "WORKS_AT") == ["Acme", "Globex"]
    rules = await memory.reads.predicate_rules(await memory.reads.view(AGENT, "alice"))
    assert [(r.predicate, r.cardinality, r.declared) for r in rules if r.predicate[0] == "W"] == [
        ("WORKS_AT", Cardinality.MANY, True)
    ]
    assert ("AUTHOR", Cardinality.ONE, False) in [
        (r.predicate, r.cardinality, r.declared) for r in rules
    ]


async def test_a_write_stating_a_rule_the_space_declared_otherwise_is_refused(
    memory: Memory,
) -> None:
    await memory.writes.declare_predicate(AGENT, "alice", "KNOWS", Cardinality.MANY)
    with pytest.raises(ValidationFailed) as refused:
        await memory.writes.remember(
            AGENT, "alice", [fact("KNOWS", "Acme", day(0), cardinality="one")], field="inputs"
        )
    assert refused.value.field == "inputs[0].cardinality"
    assert refused.value.message.startswith("predicate KNOWS is declared MANY in this space")
    [claim] = await memory.writes.remember(
        AGENT, "alice", [fact("LIKES", "Acme", day(0), cardinality="one")]
    )
    assert claim.key == "fact:person/alice:LIKES"


async def test_a_key_with_an_object_part_is_refused_for_a_declared_one_predicate(
    memory: Memory,
) -> None:
    await memory.writes.declare_predicate(AGENT, "alice", "WORKS_AT", Cardinality.ONE)
    with pytest.raises(ValidationFailed) as refused:
        await memory.writes.remember(
            AGENT,
            "alice",
            [fact("WORKS_AT", "Acme", day(0), key="fact:person/alice:WORKS_AT:org/acme")],
        )
    assert refused.value.field == "key"
    assert refused.value.message == (
        "WORKS_AT holds one value per subject here, so its key is 'fact:person/alice:WORKS_AT' "
        "(no object part)"
    )


async def test_a_key_given_under_a_default_rule_is_taken_as_it_is(memory: Memory) -> None:
    key = "fact:person/alice:WORKS_AT:org/acme"
    [claim] = await memory.writes.remember(
        AGENT, "alice", [fact("WORKS_AT", "Acme", day(0), key=key)]
    )
    assert claim.key == key


async def test_a_many_literal_fact_gets_a_key_per_value(memory: Memory) -> None:
    await memory.writes.declare_predicate(AGENT, "alice", "NICKNAME", Cardinality.MANY)
    done = await memory.writes.remember(
        AGENT,
        "alice",
        [
            {
                "type": "fact",
                "subject": ALICE,
                "predicate": "NICKNAME",
                "value": v,
                "evidence": SAID,
            }
            for v in ("Al", "Ally Cat")
        ],
    )
    assert [c.key for c in done] == [
        "fact:person/alice:NICKNAME:value/al",
        "fact:person/alice:NICKNAME:value/ally-cat",
    ]


WRITES = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 20)), min_size=1, max_size=5)
PROBES = st.lists(st.tuples(st.integers(-1, 22), st.integers(0, 5)), min_size=3, max_size=3)
SUBJECTS = count()


@settings(max_examples=NEO4J_EXAMPLES)
@given(writes=WRITES, probes=PROBES)
async def test_a_one_predicate_has_exactly_the_models_one_value_at_every_as_of_and_known_at(
    memory_for_properties: Memory, writes: list[tuple[int, int]], probes: list[tuple[int, int]]
) -> None:
    """Independent model (ENGRAM.md §2): at (asOf, knownAt) the value is that of the write
    recorded by knownAt with the latest validFrom at or before asOf (the later write on a tie),
    whatever order they were written in; none if there is none."""
    memory = memory_for_properties
    subject = {"name": f"Subject {next(SUBJECTS)}", "kind": "person"}
    recorded: list[tuple[datetime, int, int]] = []
    for org, start in writes:
        item = {
            "type": "fact",
            "subject": subject,
            "predicate": "EMPLOYER",
            "object": {"name": f"Org {org}", "kind": "org"},
            "valid_from": day(start),
            "evidence": SAID,
        }
        [claim] = await memory.writes.remember(AGENT, "props", [item])
        recorded.append((claim.recorded_at, org, start))
    view = await memory.reads.view(AGENT, "props")
    entity = await memory.reads.find_entity(view, {"name": subject["name"]})
    for as_of_day, known in probes:
        known_at = recorded[min(known, len(recorded) - 1)][0]
        told = [(start, at, org) for at, org, start in recorded]
        expected = [
            f"entity:org:org-{org}"
            for _, _, org in sorted(t for t in told if t[1] <= known_at and t[0] <= as_of_day)
        ][-1:]
        view = await memory.reads.view(AGENT, "props", day(as_of_day), known_at)
        page = await memory.reads.claims(
            view, ClaimFilter(subject_id=entity.id, predicate="EMPLOYER")
        )
        named = await memory.reads.entities(view, [c.object_id or "" for c in page.claims])
        assert [e.key for e in named if e is not None] == expected


@pytest.fixture
async def memory_for_properties(
    graph: Graph, test_settings: Settings, embedder: Embedder
) -> Memory:
    """One space for every generated history (each about a subject of its own)."""
    memory = Memory(graph, test_settings, embedder)
    await memory.writes.create_space(AGENT, "props")
    return memory


async def test_one_batch_may_tell_a_one_value_several_times_and_each_holds_until_the_next(
    memory: Memory,
) -> None:
    done = await memory.writes.remember(
        AGENT,
        "alice",
        [fact("WORKS_AT", org, day(n * 30)) for n, org in enumerate(["Acme", "Globex", "Initech"])],
    )
    assert {c.key for c in done} == {"fact:person/alice:WORKS_AT"}
    history = await memory.reads.claim_history(await memory.reads.view(AGENT, "alice"), done[0].key)
    assert [(c.valid_from, c.valid_to, len(c.evidence)) for c in history] == [
        (day(0), None, 1),
        (day(30), None, 1),
        (day(60), None, 1),
    ], "told facts, as told"
    shown = []
    for as_of in (day(10), day(40), day(70)):
        view = await memory.reads.view(AGENT, "alice", as_of)
        [claim] = (await memory.reads.claims(view, ClaimFilter(predicate="WORKS_AT"))).claims
        shown.append((claim.valid_from, claim.valid_to))
    assert shown == [(day(0), day(30)), (day(30), day(60)), (day(60), None)]
