"""correct: SUPERSEDE, RETRACT and DISPUTE keep history; concurrent corrects race fairly."""

from __future__ import annotations

import asyncio
from datetime import UTC, timedelta

import pytest

from graph.domain.errors import RevisionConflict, ValidationFailed
from graph.domain.model import Claim
from graph.domain.vocabulary import Cardinality, ClaimStatus, EvidenceKind
from graph.memory import Memory
from graph.runtime import Graph
from tests.story import Story, day, new_story
from tests.support import RACE_REPETITIONS

WORKS_AT = "fact:person/alice:WORKS_AT:org/acme"


@pytest.fixture
async def story(memory: Memory, graph: Graph) -> Story:
    story = await new_story(graph)
    # Jobs as facts of their own (a ONE WORKS_AT is in tests/test_cardinality.py).
    await memory.writes.declare_predicates(
        story.actor, story.space, [("WORKS_AT", Cardinality.MANY)]
    )
    await story.entity("entity:person:alice", "Alice")
    await story.entity("entity:org:acme", "Acme Corp", aliases=["Acme"])
    return story


async def alice_works_at_acme(story: Story) -> Claim:
    said = await story.say("I work at Acme", at=day(0))
    return await story.remember(
        said,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="WORKS_AT",
        object={"name": "Acme"},
    )


async def she_left_at_the_end_of_june(story: Story, claim: Claim) -> Claim:
    """SUPERSEDE the claim to end on day 181, on what she said on day 200."""
    left = await story.say("I left Acme at the end of June", at=day(200))
    return await story.correct(
        claim_id=claim.id,
        kind="SUPERSEDE",
        valid_to=day(181),
        reason="she left",
        evidence=[{"observation_id": left}],
    )


async def relations(graph: Graph) -> list[dict[str, object]]:
    return await graph.read(
        "MATCH (:Entity)-[r:WORKS_AT]->(:Entity) "
        "RETURN r.revision AS revision, r.status AS status, r.validTo IS NOT NULL AS ends, "
        "r.supersededAt IS NOT NULL AS superseded ORDER BY revision"
    )


async def test_a_fact_with_an_entity_object_is_a_real_typed_relation(story: Story) -> None:
    claim = await alice_works_at_acme(story)
    assert claim.key == WORKS_AT
    rows = await story.graph.read(
        "MATCH (a:Entity)-[r:WORKS_AT]->(b:Entity) "
        "RETURN a.key AS a, b.key AS b, r.claimId AS claim, r.validFrom AS since"
    )
    assert [(r["a"], r["b"], r["claim"], r["since"].to_native()) for r in rows] == [
        ("entity:person:alice", "entity:org:acme", claim.id, day(0))
    ]


async def test_related_and_explain_return_a_relations_instants_to_the_microsecond(
    story: Story,
) -> None:
    said = await story.say("I have worked at Acme since a very precise moment", at=day(0))
    since = day(3) + timedelta(hours=4, minutes=5, seconds=6, microseconds=123457)
    claim = await story.remember(
        said,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="WORKS_AT",
        object={"name": "Acme"},
        valid_from=since,
    )
    alice, acme = claim.subject_id, claim.object_id
    assert alice is not None and acme is not None
    [relation] = (await story.memory.reads.related(await story.view(), alice, hops=1)).relations
    [[step]] = (await story.memory.reads.explain_relation(await story.view(), alice, acme)).paths
    for found in (relation, step.relation):
        assert (found.valid_from, found.valid_to, found.recorded_at) == (
            since,
            None,
            claim.recorded_at,
        )
        assert found.recorded_at.tzinfo == UTC


async def test_supersede_keeps_the_old_revision_and_links_what_corrected_it(story: Story) -> None:
    claim = await alice_works_at_acme(story)
    left = await story.say("I left Acme at the end of June", at=day(200))
    fixed = await story.correct(
        claim_id=claim.id,
        kind="SUPERSEDE",
        valid_to=day(181),
        reason="she left",
        evidence=[{"observation_id": left}],
        expected_revision=1,
    )
    assert (fixed.revision, fixed.valid_from, fixed.valid_to) == (2, day(0), day(181))
    assert fixed.reason == "she left"
    assert sorted((link.kind, link.observation_id) for link in fixed.evidence) == sorted(
        [
            (EvidenceKind.SUPPORTED_BY, claim.evidence[0].observation_id),
            (EvidenceKind.CORRECTED_BY, left),
        ]
    ), "a correction of validity alone keeps what showed the fact, and cites what corrected it"
    history = await story.memory.reads.claim_history(await story.view(), WORKS_AT)
    assert [(h.revision, h.status, h.valid_to) for h in history] == [
        (1, ClaimStatus.SUPERSEDED, None),
        (2, ClaimStatus.ACTIVE, day(181)),
    ]
    old = history[0]
    assert {(link.kind, link.observation_id) for link in old.evidence} >= {
        (EvidenceKind.CORRECTED_BY, left)
    }
    assert await relations(story.graph) == [
        {"revision": 1, "status": "active", "ends": False, "superseded": True},
        {"revision": 2, "status": "active", "ends": True, "superseded": False},
    ]


async def test_the_view_before_a_correction_was_recorded_shows_the_old_revision(
    story: Story,
) -> None:
    claim = await alice_works_at_acme(story)
    before_correction = (await story.view()).known_at
    await she_left_at_the_end_of_june(story, claim)
    in_2025 = day(400)
    then = await story.view(as_of=in_2025, known_at=before_correction)
    assert [c.revision for c in await story.memory.reads.claims_by_key(then, WORKS_AT)] == [1]
    now = await story.view(as_of=in_2025)
    assert await story.memory.reads.claims_by_key(now, WORKS_AT) == []


async def test_supersede_from_a_later_valid_time_keeps_the_value_before_it(story: Story) -> None:
    said = await story.say("I like tea", at=day(0))
    claim = await story.remember(said, key="pref:other:drink", value={"value": "tea"})
    changed = await story.say("coffee now", at=day(50))
    await story.correct(
        claim_id=claim.id,
        kind="SUPERSEDE",
        value={"value": "coffee"},
        valid_from=day(50),
        reason="taste changed",
        evidence=[{"observation_id": changed}],
    )
    early = await story.memory.reads.claims_by_key(
        await story.view(as_of=day(10)), "pref:other:drink"
    )
    late = await story.memory.reads.claims_by_key(
        await story.view(as_of=day(60)), "pref:other:drink"
    )
    assert [c.value["value"] for c in early] == ["tea"]
    assert [c.value["value"] for c in late] == ["coffee"]


async def test_retract_keeps_history_and_the_relation_stops_being_asserted(story: Story) -> None:
    claim = await alice_works_at_acme(story)
    denial = await story.say("I never worked at Acme")
    retracted = await story.correct(
        claim_id=claim.id, kind="RETRACT", reason="denied", evidence=[{"observation_id": denial}]
    )
    assert (retracted.status, retracted.revision, retracted.value) == (
        ClaimStatus.RETRACTED,
        2,
        claim.value,
    )
    assert [(link.kind, link.observation_id) for link in retracted.evidence] == [
        (EvidenceKind.CONTRADICTED_BY, denial)
    ]
    assert await relations(story.graph) == [
        {"revision": 1, "status": "active", "ends": False, "superseded": True}
    ]
    with pytest.raises(ValidationFailed, match="already retracted"):
        await story.correct(
            claim_id=retracted.id,
            kind="RETRACT",
            reason="again",
            evidence=[{"observation_id": denial}],
        )


async def test_dispute_keeps_both_claims_and_links_each_to_the_others_evidence(
    story: Story,
) -> None:
    claim = await alice_works_at_acme(story)
    await story.entity("entity:org:globex", "Globex")
    other_said = await story.say("Alice works at Globex", at=day(1))
    other = await story.remember(
        other_said,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="WORKS_AT",
        object={"key": "entity:org:globex"},
    )
    disputed = await story.correct(
        claim_id=claim.id, kind="DISPUTE", reason="two employers?", against_claim_id=other.id
    )
    assert disputed.status is ClaimStatus.DISPUTED
    contradicted_by = {
        link.observation_id
        for link in disputed.evidence
        if link.kind is EvidenceKind.CONTRADICTED_BY
    }
    assert contradicted_by == {other_said}
    view = await story.view()
    [other_now] = await story.memory.reads.claims_by_key(
        view, "fact:person/alice:WORKS_AT:org/globex"
    )
    assert other_now.status is ClaimStatus.DISPUTED
    statuses = await story.graph.read(
        "MATCH (:Entity)-[r:WORKS_AT]->(o:Entity) WHERE r.supersededAt IS NULL "
        "RETURN o.key AS employer, r.status AS status ORDER BY employer"
    )
    assert statuses == [
        {"employer": "entity:org:acme", "status": "disputed"},
        {"employer": "entity:org:globex", "status": "disputed"},
    ]


async def test_correcting_a_superseded_revision_is_a_revision_conflict(story: Story) -> None:
    claim = await alice_works_at_acme(story)
    said = await story.say("correction")
    await story.correct(
        claim_id=claim.id,
        kind="SUPERSEDE",
        valid_to=day(9),
        reason="r",
        evidence=[{"observation_id": said}],
    )
    with pytest.raises(RevisionConflict, match="was already superseded"):
        await story.correct(
            claim_id=claim.id, kind="RETRACT", reason="r", evidence=[{"observation_id": said}]
        )


async def test_the_object_of_a_fact_keyed_by_it_cannot_be_swapped(story: Story) -> None:
    claim = await alice_works_at_acme(story)
    said = await story.say("actually Globex")
    with pytest.raises(ValidationFailed, match="the object is part of key"):
        await story.correct(
            claim_id=claim.id,
            kind="SUPERSEDE",
            object={"key": "entity:org:acme"},
            reason="r",
            evidence=[{"observation_id": said}],
        )


@pytest.mark.parametrize("round_", range(RACE_REPETITIONS))
async def test_two_concurrent_corrects_one_wins_the_other_gets_revision_conflict(
    story: Story, round_: int
) -> None:
    said = await story.say("dark", at=day(0))
    claim = await story.remember(said, key="pref:ui:theme", value={"value": "dark"})
    first = await story.say("light")
    second = await story.say("blue")

    async def change_to(colour: str, evidence: str) -> Claim | RevisionConflict:
        try:
            return await story.correct(
                claim_id=claim.id,
                kind="SUPERSEDE",
                value={"value": colour},
                reason=colour,
                evidence=[{"observation_id": evidence}],
                expected_revision=1,
            )
        except RevisionConflict as conflict:
            return conflict

    outcomes = await asyncio.gather(change_to("light", first), change_to("blue", second))
    winners = [o for o in outcomes if isinstance(o, Claim)]
    losers = [o for o in outcomes if isinstance(o, RevisionConflict)]
    assert (len(winners), len(losers)) == (1, 1)
    assert winners[0].revision == 2
    assert "pref:ui:theme is at revision 2, not 1" in losers[0].message
    [current] = await story.memory.reads.claims_by_key(await story.view(), "pref:ui:theme")
    assert current.id == winners[0].id
    assert (await story.memory.reads.claim(await story.view(), current.id)).value == winners[
        0
    ].value


async def test_retracting_a_later_value_lets_the_earlier_one_hold_again(story: Story) -> None:
    dark = await story.say("dark", at=day(0))
    first = await story.remember(dark, key="pref:ui:theme", value={"value": "dark"})
    light = await story.say("light", at=day(10))
    second = await story.remember(light, key="pref:ui:theme", value={"value": "light"})
    [earlier] = await story.memory.reads.claims_by_key(
        await story.view(as_of=day(5)), "pref:ui:theme"
    )
    assert earlier.id == first.id and earlier.valid_to == day(10), "shown until light began"
    fix = await story.say("it was dark all along")
    await story.correct(
        claim_id=second.id,
        kind="RETRACT",
        reason="never changed",
        evidence=[{"observation_id": fix}],
    )
    later = await story.memory.reads.claims_by_key(await story.view(as_of=day(20)), "pref:ui:theme")
    assert [(c.value["value"], c.valid_from, c.valid_to) for c in later] == [
        ("dark", day(0), None)
    ], "one value per time slice, and a retracted fact ends nothing"


async def test_an_explanation_cites_what_supported_the_relation_then_around_a_correction(
    story: Story,
) -> None:
    claim = await alice_works_at_acme(story)
    before = (await story.view()).known_at
    await she_left_at_the_end_of_june(story, claim)
    alice, acme = claim.subject_id, claim.object_id
    assert alice is not None and acme is not None

    async def cited(**at: object) -> list[tuple[int, list[tuple[str, str | None]]]]:
        found = await story.memory.reads.explain_relation(await story.view(**at), alice, acme)
        return [
            (
                step.claim.revision if step.claim else 0,
                sorted((str(e.kind), e.text) for e in step.evidence),
            )
            for path in found.paths
            for step in path
        ]

    said = ("SUPPORTED_BY", "I work at Acme")
    assert await cited(as_of=day(100)) == [
        (2, sorted([said, ("CORRECTED_BY", "I left Acme at the end of June")]))
    ]
    assert await cited(as_of=day(100), known_at=before) == [(1, [said])]
    assert await cited(as_of=day(300)) == []
