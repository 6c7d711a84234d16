"""forget: erases in every revision and every view, cascades, leaves a content-free tombstone."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.domain.actor import Actor
from graph.domain.errors import Forgotten, LegalHold, NotFound
from graph.domain.vocabulary import ClaimStatus, SelectorKind
from graph.memory import (
    ArtifactInput,
    EvidenceRef,
    ForgetInput,
    HoldInput,
    Memory,
    RememberInput,
    Selector,
)
from graph.runtime import Embedder, Graph
from tests.people_story import People, on, people_story
from tests.story import Story, day, new_story
from tests.text_search_everywhere import mentions_anywhere


async def forget_it(
    story: Story, kind: SelectorKind, blob_root: Path | None = None, **selector: object
) -> object:
    memory = story.memory if blob_root is None else with_blobs_in(story, blob_root)
    return await memory.forgetting.forget(
        Actor.operator("test"),
        story.space,
        ForgetInput(selector=Selector(kind=kind, **selector), reason="the user asked"),
    )


def with_blobs_in(story: Story, blob_root: Path) -> Memory:
    """The story's memory, keeping its blob files under `blob_root`."""
    return Memory(story.graph, story.memory.settings.model_copy(update={"blob_root": blob_root}))


@pytest.fixture
async def people(graph: Graph) -> People:
    return await people_story(graph)


async def test_forgetting_a_claim_erases_every_revision_from_every_view(people: People) -> None:
    story, key = people.story, "fact:person/alice:WORKS_AT:org/acme"
    early = await story.view(as_of=on(2021, 1))
    past = await story.view(as_of=on(2021, 1), known_at=people.before_correction)
    assert len(await story.memory.reads.claims_by_key(past, key)) == 1
    receipt = await forget_it(story, SelectorKind.CLAIM, id=people.claims["alice-acme"].id)
    assert receipt.erased["claims"] == 2  # type: ignore[attr-defined]
    for view in (await story.view(as_of=on(2021, 1)), early, past):
        refreshed = await story.view(as_of=view.as_of, known_at=view.known_at)
        assert await story.memory.reads.claims_by_key(refreshed, key) == []
    with pytest.raises(NotFound):
        await story.memory.reads.claim_history(await story.view(), key)
    view = await story.view(as_of=on(2021, 6))
    near = await story.memory.reads.related(view, people.ids["alice"], hops=1)
    assert people.ids["acme"] not in near.distances
    why = await story.memory.reads.explain_relation(view, people.ids["alice"], people.ids["acme"])
    assert why.paths == []
    assert await mentions_anywhere(story.graph, "WORKS_AT:org/acme\u0000") == []
    alice_relations = await story.graph.read(
        "MATCH (:Entity {id: $a})-[r:WORKS_AT]->(:Entity {id: $b}) RETURN r",
        a=people.ids["alice"],
        b=people.ids["acme"],
    )
    assert alice_relations == []


async def test_forgetting_an_observation_makes_claims_without_other_evidence_inactive(
    memory: Memory,
    graph: Graph,
) -> None:
    story = await new_story(graph)
    only = await story.say("my salary is 12345", at=day(0))
    shared = await story.say("I drink tea", at=day(0))
    again = await story.say("tea, always tea", at=day(1))
    salary = await story.remember(only, key="profile:user", value={"salary": 12345})
    tea = await story.remember([shared, again], key="pref:other:drink", value={"value": "tea"})
    receipt = await forget_it(story, SelectorKind.OBSERVATION, id=only)
    assert receipt.made_inactive == 1  # type: ignore[attr-defined]
    await forget_it(story, SelectorKind.OBSERVATION, id=shared)
    view = await story.view()
    [profile] = await memory.reads.claims_by_key(view, "profile:user")
    assert (profile.status, profile.reason, profile.evidence) == (
        ClaimStatus.RETRACTED,
        "its only evidence was forgotten",
        (),
    )
    assert profile.id != salary.id
    [drink] = await memory.reads.claims_by_key(view, "pref:other:drink")
    assert (drink.id, drink.status) == (tea.id, ClaimStatus.ACTIVE), "it keeps other evidence"
    assert [link.observation_id for link in drink.evidence] == [again]
    assert await mentions_anywhere(graph, "my salary is 12345") == []
    assert await mentions_anywhere(graph, "I drink tea") == []


async def test_forgetting_an_entity_erases_its_names_and_every_claim_about_it(
    people: People,
) -> None:
    story = people.story
    receipt = await forget_it(story, SelectorKind.ENTITY, id=people.ids["acme"])
    assert receipt.erased["entities"] == 1  # type: ignore[attr-defined]
    with pytest.raises(NotFound):
        await story.memory.reads.entity(await story.view(), key="entity:org:acme")
    for text in ("Acme Global", "Acme Corp", "org/acme", "entity:org:acme"):
        assert await mentions_anywhere(story.graph, text) == [], text
    near = await story.memory.reads.related(await story.view(as_of=on(2022, 6)), people.ids["bob"])
    assert list(near.distances) == [people.ids["bob"]]


async def test_forgetting_a_subject_and_predicate_spares_other_predicates(people: People) -> None:
    story = people.story
    await forget_it(
        story,
        SelectorKind.SUBJECT_PREDICATE,
        subject={"key": "entity:person:alice"},
        predicate="WORKS_AT",
    )
    view = await story.view(as_of=on(2024, 6))
    near = await story.memory.reads.related(view, people.ids["alice"])
    assert sorted(near.distances) == sorted([people.ids["alice"], people.ids["engram"]])
    assert await mentions_anywhere(story.graph, "person/alice:WORKS_AT") == []


async def test_forgetting_an_episode_erases_all_it_observed(
    people: People, embedder: Embedder
) -> None:
    story = people.story
    receipt = await forget_it(story, SelectorKind.EPISODE, id=story.episode_id)
    assert receipt.erased["observations"] == 17  # type: ignore[attr-defined]
    assert await mentions_anywhere(story.graph, "alice left Acme") == []
    assert await mentions_anywhere(story.graph, "a chat") == []
    hits = await story.memory.reads.search(await story.view(), "acme")
    assert all(h.claim.status is not ClaimStatus.ACTIVE for h in hits) and hits == []


async def test_forgetting_a_blob_artifact_deletes_the_file(
    memory: Memory, graph: Graph, tmp_path: Path
) -> None:
    story = await new_story(graph)
    (tmp_path / "scan.txt").write_text("passport number X123")
    artifact = await with_blobs_in(story, tmp_path).writes.add_artifact(
        Actor.operator("t"), story.space, ArtifactInput(path="scan.txt")
    )
    await forget_it(story, SelectorKind.ARTIFACT, blob_root=tmp_path, id=artifact.id)
    assert not (tmp_path / "scan.txt").exists()
    assert await mentions_anywhere(graph, "scan.txt") == []
    with pytest.raises(Forgotten):
        await memory.writes.remember(
            Actor.operator("t"),
            story.space,
            [
                RememberInput(
                    key="pref:other:doc",
                    value={"value": 1},
                    evidence=[EvidenceRef(artifact_id=artifact.id)],
                )
            ],
        )


async def test_forgetting_a_space_touches_no_other_space(memory: Memory, graph: Graph) -> None:
    alice = await new_story(graph, "alice")
    bob = await new_story(graph, "bob")
    for story in (alice, bob):
        said = await story.say(f"{story.space} likes jazz")
        await story.remember(said, key="pref:other:music", value={"value": "jazz"})
    receipt = await forget_it(alice, SelectorKind.SPACE)
    assert receipt.whole_space is True  # type: ignore[attr-defined]
    with pytest.raises(NotFound):
        await alice.view()
    [bobs] = await memory.reads.claims_by_key(await bob.view(), "pref:other:music")
    assert bobs.value == {"value": "jazz"}
    assert await mentions_anywhere(graph, "alice likes jazz") == []
    assert [r for r in await mentions_anywhere(graph, "bob likes jazz")] != []


async def test_a_legal_hold_blocks_forget_until_released(people: People) -> None:
    story = people.story
    selector = Selector(
        kind=SelectorKind.SUBJECT_PREDICATE,
        subject={"key": "entity:person:alice"},
        predicate="WORKS_AT",
    )
    hold = await story.memory.forgetting.set_legal_hold(
        Actor.operator("counsel"), story.space, HoldInput(selector=selector, reason="case 7")
    )
    with pytest.raises(LegalHold, match="case 7"):
        await forget_it(story, SelectorKind.CLAIM, id=people.claims["alice-globex"].id)
    with pytest.raises(LegalHold):
        await forget_it(story, SelectorKind.SPACE)
    await forget_it(story, SelectorKind.CLAIM, id=people.claims["bob-acme"].id)
    assert await story.memory.forgetting.release_legal_hold(
        Actor.operator("counsel"), story.space, hold, "closed"
    )
    await forget_it(story, SelectorKind.CLAIM, id=people.claims["alice-globex"].id)


async def test_the_tombstone_records_what_was_erased_but_no_content(people: People) -> None:
    story = people.story
    receipt = await forget_it(story, SelectorKind.CLAIM, id=people.claims["alice-engram"].id)
    [tombstone] = await story.graph.read("MATCH (t:Tombstone) RETURN properties(t) AS t")
    props = tombstone["t"]
    assert props["id"] == receipt.tombstone_id  # type: ignore[attr-defined]
    assert props["selectorKind"] == "CLAIM"
    said = await story.graph.read(
        "MATCH (o:Observation) WHERE o.erasedAt IS NOT NULL RETURN o.id AS id"
    )
    assert sorted(props["erasedIds"]) == sorted(
        [people.claims["alice-engram"].id, said[0]["id"]]
    ), "the claim and the message that was its only evidence"
    assert len(props["contentFingerprints"]) == 1
    assert len(props["fingerprint"]) == 64
    assert "engram" not in str(props).lower().replace(props["reason"], "")


async def test_forgetting_twice_says_forgotten_and_a_replay_returns_the_receipt(
    people: People,
) -> None:
    story = people.story
    request = ForgetInput(
        selector=Selector(kind=SelectorKind.CLAIM, id=people.claims["bob-acme"].id),
        reason="asked",
        idempotency_key="forget-1",
    )
    first = await story.memory.forgetting.forget(Actor.operator("t"), story.space, request)
    replay = await story.memory.forgetting.forget(Actor.operator("t"), story.space, request)
    assert (replay.tombstone_id, replay.replayed) == (first.tombstone_id, True)
    with pytest.raises(Forgotten, match="already forgotten"):
        await forget_it(story, SelectorKind.CLAIM, id=people.claims["bob-acme"].id)


async def test_a_legal_hold_keeps_evidence_of_a_forgotten_claim(
    memory: Memory, graph: Graph
) -> None:
    story = await new_story(graph)
    said = await story.say("exhibit A: the signed contract")
    claim = await story.remember(said, key="case:legal:contract", value={"signed": True})
    await memory.forgetting.set_legal_hold(
        Actor.operator("counsel"),
        story.space,
        HoldInput(selector=Selector(kind=SelectorKind.OBSERVATION, id=said), reason="case 9"),
    )
    await forget_it(story, SelectorKind.CLAIM, id=claim.id)
    assert await mentions_anywhere(graph, "case:legal:contract") == []
    assert await mentions_anywhere(graph, "exhibit A: the signed contract") != [], (
        "the hold keeps it"
    )
    with pytest.raises(LegalHold):
        await forget_it(story, SelectorKind.OBSERVATION, id=said)


async def test_forgetting_a_space_deletes_its_blob_files(graph: Graph, tmp_path: Path) -> None:
    story = await new_story(graph)
    (tmp_path / "id.png").write_bytes(b"\x89PNG passport")
    await with_blobs_in(story, tmp_path).writes.add_artifact(
        Actor.operator("t"), story.space, ArtifactInput(path="id.png")
    )
    await forget_it(story, SelectorKind.SPACE, blob_root=tmp_path)
    assert not (tmp_path / "id.png").exists()
