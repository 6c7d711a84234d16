"""remember: claims with evidence, keys and policies, the gate, idempotency, all-or-nothing."""

from __future__ import annotations

import asyncio

import pytest

from graph.domain.actor import Actor
from graph.domain.errors import (
    AmbiguousSubject,
    Conflict,
    Forgotten,
    GateRefused,
    NotFound,
    RevisionConflict,
    ValidationFailed,
)
from graph.domain.inputs import parse
from graph.domain.vocabulary import Authority, ClaimStatus, EvidenceKind, Role
from graph.memory import EvidenceRef, RememberInput
from graph.runtime import Graph
from tests.story import Story, count, day, new_story


@pytest.fixture
async def story(graph: Graph) -> Story:
    return await new_story(graph)


async def test_remember_writes_a_claim_its_evidence_and_an_audit_event(story: Story) -> None:
    said = await story.say("I prefer dark mode", at=day(0))
    claim = await story.remember(said, key="pref:ui:theme", value={"value": "dark"})
    assert (claim.key, claim.revision, claim.status) == ("pref:ui:theme", 1, ClaimStatus.ACTIVE)
    assert claim.value == {"value": "dark"}
    assert claim.valid_from == day(0), "valid time defaults to the evidence's observation time"
    assert claim.valid_to is None and claim.superseded_at is None
    assert claim.text == "ui theme: dark"
    [link] = claim.evidence
    assert (link.kind, link.authority, link.observation_id, link.text) == (
        EvidenceKind.SUPPORTED_BY,
        Authority.USER_STATED,
        said,
        "I prefer dark mode",
    )
    audits = await story.graph.read(
        "MATCH (a:AuditEvent {action: 'remember'}) RETURN a.targetIds AS t, a.actor AS actor"
    )
    assert audits == [{"t": [claim.id], "actor": "test"}]


@pytest.mark.fast
def test_a_claim_without_evidence_is_refused_before_anything_is_written() -> None:
    with pytest.raises(ValidationFailed, match="evidence: give at least 1 item"):
        parse(RememberInput, {"key": "pref:ui:theme", "value": {"value": "x"}, "evidence": []})


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("pref:food:tea", "a preference scope is one of writing, coding, tools, ui, other"),
        ("preference:ui:theme", "must start with a memory type"),
        ("pref:ui", "must look like pref:<scope>:<name>"),
        ("pref:ui:dark mode", "whitespace"),
        ("event:launch:2024-01-01", "must look like event:<scope>:<date>:<slug>"),
        ("event:launch:24-01-01:x", "an event key's date is YYYY-MM-DD"),
        ("event:launch:2024-13-01:x", "an event key's date is YYYY-MM-DD"),
        ("entity:planet:mars", "an entity kind is one of"),
    ],
)
async def test_an_invalid_key_is_refused_and_nothing_is_written(
    story: Story, key: str, message: str
) -> None:
    said = await story.say("something")
    with pytest.raises(ValidationFailed, match=message):
        await story.remember(said, key=key, value={"value": 1, "title": "t"})
    assert await count(story.graph, "Claim") == 0


async def test_a_fact_cannot_pose_as_one_of_engrams_own_relationships(story: Story) -> None:
    await story.entity("entity:person:a", "A")
    await story.entity("entity:person:b", "B")
    said = await story.say("a is b")
    with pytest.raises(ValidationFailed, match="not one of Engram's own relationship types"):
        await story.remember(
            said,
            type="fact",
            subject={"key": "entity:person:a"},
            predicate="MERGED_INTO",
            object={"key": "entity:person:b"},
        )


async def test_a_value_must_have_its_types_shape(story: Story) -> None:
    said = await story.say("the task is half done")
    with pytest.raises(ValidationFailed, match="value.status must be one of todo, doing, done"):
        await story.remember(said, key="task:engram:t1", value={"status": "half"})
    with pytest.raises(ValidationFailed, match="value.scope is 'coding' but the key says 'ui'"):
        await story.remember(said, key="pref:ui:theme", value={"scope": "coding", "value": 1})


async def test_evidence_from_another_space_is_refused(graph: Graph, story: Story) -> None:
    other = await new_story(graph, "bob")
    bobs = await other.say("Bob likes tea")
    with pytest.raises(NotFound, match=f"no observation '{bobs}' in space 'alice'"):
        await story.remember(bobs, key="pref:other:drink", value={"value": "tea"})
    assert await count(graph, "Claim") == 0


async def test_erased_evidence_is_refused(story: Story) -> None:
    said = await story.say("forget me")
    await story.graph.write("MATCH (o:Observation {id: $id}) SET o.erasedAt = datetime()", id=said)
    with pytest.raises(Forgotten, match=f"observation '{said}' was forgotten"):
        await story.remember(said, key="pref:ui:theme", value={"value": "x"})
    assert await count(story.graph, "Claim") == 0


async def test_unknown_and_ambiguous_subjects_are_refused(story: Story) -> None:
    await story.entity("entity:person:alex-smith", "Alex")
    await story.entity("entity:person:alex-jones", "Alex")
    said = await story.say("Alex is 34")
    with pytest.raises(AmbiguousSubject, match="names 2 entities"):
        await story.remember(said, type="fact", subject={"name": "alex"}, predicate="AGE", value=34)
    with pytest.raises(NotFound, match="no entity with name 'Zed'"):
        await story.remember(said, type="fact", subject={"name": "Zed"}, predicate="AGE", value=3)
    claim = await story.remember(
        said, type="fact", subject={"key": "entity:person:alex-smith"}, predicate="AGE", value=34
    )
    assert claim.key == "fact:person/alex-smith:AGE"
    assert claim.text == "Alex age 34", "the entity by its name now, never its key"


async def test_the_gate_refuses_an_unstated_profile_and_explains_why(story: Story) -> None:
    inferred = await story.say("the user seems to be a doctor", role=Role.ASSISTANT)
    with pytest.raises(GateRefused, match="profile claims need at least one evidence of authority"):
        await story.remember(inferred, key="profile:user", value={"role": "doctor"})
    stated = await story.say("I am a doctor")
    with pytest.raises(GateRefused, match=r"confidence ≥ 0.8 \(got 0.5\); uncertain content"):
        await story.remember(stated, key="profile:user", value={"role": "doctor"}, confidence=0.5)
    assert await count(story.graph, "Claim") == 0
    event = await story.remember(
        inferred,
        key="event:user:2024-01-01:maybe-doctor",
        value={"title": "may be a doctor"},
        confidence=0.3,
    )
    assert event.status is ClaimStatus.ACTIVE


async def test_an_assistant_message_cannot_be_cited_as_user_stated(story: Story) -> None:
    inferred = await story.say("I think they like tea", role=Role.ASSISTANT)
    item = RememberInput(
        key="pref:other:drink",
        value={"value": "tea"},
        evidence=[EvidenceRef(observation_id=inferred, authority=Authority.USER_STATED)],
    )
    with pytest.raises(ValidationFailed, match="cannot have authority user_stated"):
        await story.memory.writes.remember(Actor.operator("test"), story.space, [item])


async def test_an_idempotent_replay_returns_the_first_result_and_writes_nothing(
    story: Story,
) -> None:
    said = await story.say("dark mode please")
    fields = {"key": "pref:ui:theme", "value": {"value": "dark"}, "idempotency_key": "req-1"}
    first = await story.remember(said, **fields)
    nodes = await story.graph.read("MATCH (n) RETURN count(n) AS n")
    replay = await story.remember(said, **fields)
    assert replay == first
    assert await story.graph.read("MATCH (n) RETURN count(n) AS n") == nodes
    with pytest.raises(Conflict, match="idempotency key 'req-1' was already used"):
        await story.remember(said, **{**fields, "value": {"value": "light"}})


async def test_concurrent_replays_of_one_idempotency_key_write_once(story: Story) -> None:
    said = await story.say("dark mode please")
    fields = {"key": "pref:ui:theme", "value": {"value": "dark"}, "idempotency_key": "req-2"}
    results = await asyncio.gather(*(story.remember(said, **fields) for _ in range(8)))
    assert {claim.id for claim in results} == {results[0].id}
    assert await count(story.graph, "Claim") == 1


async def test_expected_revision_must_match_the_keys_head(story: Story) -> None:
    said = await story.say("dark", at=day(0))
    await story.remember(said, key="pref:ui:theme", value={"value": "dark"}, expected_revision=0)
    with pytest.raises(RevisionConflict, match="pref:ui:theme is at revision 1, not 0"):
        await story.remember(said, key="pref:ui:theme", value={"value": "x"}, expected_revision=0)
    later = await story.say("light", at=day(5))
    claim = await story.remember(
        later, key="pref:ui:theme", value={"value": "light"}, expected_revision=1
    )
    assert claim.revision == 2, "a new told fact; 'dark' stands beside it for the time before"


async def test_a_new_value_is_shown_from_its_start_and_the_old_one_before_it(
    story: Story,
) -> None:
    dark = await story.say("I like dark mode", at=day(0))
    await story.remember(dark, key="pref:ui:theme", value={"value": "dark"})
    light = await story.say("now I like light mode", at=day(30))
    await story.remember(light, key="pref:ui:theme", value={"value": "light"})

    then = await story.view(as_of=day(10))
    assert [c.value for c in await story.memory.reads.claims_by_key(then, "pref:ui:theme")] == [
        {"value": "dark"}
    ]
    now = await story.view()
    assert [c.value for c in await story.memory.reads.claims_by_key(now, "pref:ui:theme")] == [
        {"value": "light"}
    ]
    [shown_then] = await story.memory.reads.claims_by_key(then, "pref:ui:theme")
    assert (shown_then.valid_from, shown_then.valid_to) == (day(0), day(30)), "held until light"
    # Both told facts stand in history as told; neither ended the other.
    history = await story.memory.reads.claim_history(now, "pref:ui:theme")
    assert [(h.revision, h.value["value"], h.status) for h in history] == [
        (1, "dark", ClaimStatus.ACTIVE),
        (2, "light", ClaimStatus.ACTIVE),
    ]
    assert [(h.valid_from, h.valid_to) for h in history] == [(day(0), None), (day(30), None)]


async def test_versioned_decisions_coexist(story: Story) -> None:
    first = await story.say("we use Neo4j")
    second = await story.say("we also use GraphQL")
    key = "decision:engram:storage"
    await story.remember(first, key=key, value={"decision": "Neo4j"})
    await story.remember(second, key=key, value={"decision": "Neo4j and GraphQL"})
    visible = await story.memory.reads.claims_by_key(await story.view(), key)
    assert [(c.revision, c.value["decision"]) for c in visible] == [
        (2, "Neo4j and GraphQL"),
        (1, "Neo4j"),
    ]


async def test_restating_a_value_from_the_same_start_adds_evidence_not_a_revision(
    story: Story,
) -> None:
    once = await story.say("dark mode", at=day(0))
    again = await story.say("really, dark mode since then", at=day(3))
    first = await story.remember(once, key="pref:ui:theme", value={"value": "dark"})
    second = await story.remember(
        again, key="pref:ui:theme", value={"value": "dark"}, valid_from=day(0).isoformat()
    )
    assert (second.id, second.revision) == (first.id, 1)
    assert [link.observation_id for link in second.evidence] == [once, again]


async def test_another_end_from_the_same_start_replaces_the_told_fact(story: Story) -> None:
    joined = await story.say("I joined Acme in 2020", at=day(0))
    left = await story.say("I left Acme after a month", at=day(40))
    first = await story.remember(joined, key="goal:engram:ship", value={"title": "ship"})
    ended = await story.remember(
        left,
        key="goal:engram:ship",
        value={"title": "ship"},
        valid_from=day(0).isoformat(),
        valid_to=day(30).isoformat(),
    )
    assert ended.revision == 2 and ended.valid_to == day(30)
    history = await story.memory.reads.claim_history(await story.view(), "goal:engram:ship")
    assert [(h.id, h.status) for h in history] == [
        (first.id, ClaimStatus.SUPERSEDED),
        (ended.id, ClaimStatus.ACTIVE),
    ]
    assert (
        await story.memory.reads.claims_by_key(await story.view(as_of=day(35)), "goal:engram:ship")
        == []
    )


async def test_a_batch_is_all_or_nothing(story: Story) -> None:
    said = await story.say("two things")
    good = RememberInput(
        key="pref:ui:theme", value={"value": "dark"}, evidence=[EvidenceRef(observation_id=said)]
    )
    bad = RememberInput(
        key="profile:user",
        value={"role": "x"},
        confidence=0.1,
        evidence=[EvidenceRef(observation_id=said)],
    )
    with pytest.raises(GateRefused):
        await story.memory.writes.remember(Actor.operator("test"), story.space, [good, bad])
    assert await count(story.graph, "Claim") == 0
    done = await story.memory.writes.remember(Actor.operator("test"), story.space, [good, good])
    assert [c.revision for c in done] == [1, 1], "the second corroborates the first"


async def test_recorded_times_are_unique_and_increasing_under_concurrency(story: Story) -> None:
    said = await story.say("many things")
    claims = await asyncio.gather(
        *(story.remember(said, key=f"pref:other:n{i}", value={"value": i}) for i in range(40))
    )
    stamps = sorted(c.recorded_at for c in claims)
    assert len(set(stamps)) == 40
    clock = await story.graph.read("MATCH (s:Space) RETURN s.clockNow AS now")
    assert clock[0]["now"].to_native() == stamps[-1]
