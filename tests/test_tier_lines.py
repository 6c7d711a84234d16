"""What tiers mean for the shape of memory: lines per tier, lifted entities, evidence at least as
private as its claim, and numbers (revisions, observation seq) without gaps a reader could read."""

from __future__ import annotations

from typing import Any

import pytest

from graph.domain.actor import Actor, Grant
from graph.domain.errors import NotFound, ValidationFailed
from graph.domain.inputs import parse
from graph.domain.vocabulary import Privacy, SelectorKind
from graph.memory import ForgetInput, Memory, ObservationInput, RememberInput, Selector, View
from graph.runtime import Graph, Settings
from tests.story import Story, new_story

NORMAL = Actor("normal", {"alice": Grant("alice", Privacy.NORMAL, write=True)})
SECRET = Actor("secret", {"alice": Grant("alice", Privacy.SECRET, write=True)})


async def _say(story: Story, actor: Actor, text: str) -> str:
    tier = actor.tier_in("alice")
    observation = await story.memory.writes.record_observation(
        actor, "alice", ObservationInput(episode_id=story.episode_id, content=text, privacy=tier)
    )
    return observation.id


async def _remember(story: Story, actor: Actor, **fields: Any) -> Any:
    said = await _say(story, actor, repr(fields))
    data = {"privacy": actor.tier_in("alice"), **fields, "evidence": [{"observation_id": said}]}
    [claim] = await story.memory.writes.remember(actor, "alice", [parse(RememberInput, data)])
    return claim


async def _view(story: Story, tier: Privacy, **at: Any) -> View:
    return await View.open(story.graph, "alice", max_privacy=tier, **at)


async def test_a_lower_tier_starts_its_own_line_of_a_key_held_above_it(
    memory: Memory, graph: Graph
) -> None:
    story = await new_story(graph)
    await _remember(story, SECRET, key="pref:ui:font", value={"value": "mono"})
    await _remember(story, SECRET, key="pref:ui:font", value={"value": "courier"})
    mine = await _remember(story, NORMAL, key="pref:ui:font", value={"value": "serif"})
    assert (mine.revision, mine.privacy) == (1, Privacy.NORMAL)

    normal = await memory.reads.claim_history(await _view(story, Privacy.NORMAL), "pref:ui:font")
    assert [(c.revision, c.value) for c in normal] == [(1, {"value": "serif"})]
    secret = await memory.reads.claims_by_key(await _view(story, Privacy.SECRET), "pref:ui:font")
    assert [(c.privacy, c.value["value"]) for c in secret] == [(Privacy.NORMAL, "serif")], (
        "one value per view: the latest-starting told fact the reader may read"
    )
    history = await memory.reads.claim_history(await _view(story, Privacy.SECRET), "pref:ui:font")
    assert [(c.privacy, c.revision, c.value["value"], c.status.value) for c in history] == [
        (Privacy.SECRET, 1, "mono", "active"),
        (Privacy.SECRET, 2, "courier", "active"),
        (Privacy.NORMAL, 1, "serif", "active"),
    ], "each tier's line keeps its told facts; none ended another"


async def test_forgetting_an_entity_that_a_higher_tier_names_lifts_it_out_of_every_lower_view(
    memory: Memory, graph: Graph, test_settings: Settings
) -> None:
    story = await new_story(graph)
    alice = await _remember(story, NORMAL, key="entity:person:alice", value={"name": "Alice"})
    await _remember(
        story,
        SECRET,
        type="fact",
        subject={"key": "entity:person:alice"},
        predicate="EARNS",
        value=100,
    )
    before = (await _view(story, Privacy.NORMAL)).known_at
    receipt = await memory.forgetting.forget(
        NORMAL,
        "alice",
        ForgetInput(selector=Selector(kind=SelectorKind.ENTITY, id=alice.subject_id), reason="x"),
    )
    assert receipt.erased["entities"] == 1
    for known_at in (None, before):
        view = await _view(story, Privacy.NORMAL, known_at=known_at)
        with pytest.raises(NotFound):
            await memory.reads.entity(view, key="entity:person:alice")
    kept = await memory.reads.entity(await _view(story, Privacy.SECRET), key="entity:person:alice")
    assert (kept.id, kept.key) == (alice.subject_id, "entity:person:alice")
    [tombstone] = await graph.read(
        "MATCH (t:Tombstone) RETURN t.erasedIds AS erased, t.liftedJson AS lifted"
    )
    assert alice.subject_id not in tombstone["erased"]
    assert tombstone["lifted"] == f'{{"{alice.subject_id}": 3}}'


async def test_evidence_less_private_than_its_claim_is_refused(
    memory: Memory, graph: Graph
) -> None:
    story = await new_story(graph)
    said = await _say(story, NORMAL, "Alice earns 100")
    item = parse(
        RememberInput,
        {
            "key": "pref:other:salary",
            "value": {"value": "100"},
            "privacy": Privacy.SECRET,
            "evidence": [{"observation_id": said}],
        },
    )
    with pytest.raises(ValidationFailed, match="less private than the claim") as refused:
        await memory.writes.remember(SECRET, "alice", [item])
    assert refused.value.field == "evidence"


async def test_a_reader_sees_observation_numbers_without_gaps_for_hidden_ones(
    memory: Memory,
    graph: Graph,
) -> None:
    story = await new_story(graph)
    for actor in (NORMAL, SECRET, SECRET, NORMAL, SECRET, NORMAL):
        await _say(story, actor, f"said by {actor.name}")
    seen = {}
    for tier in (Privacy.NORMAL, Privacy.SECRET):
        episode = await memory.reads.episode(await _view(story, tier), story.episode_id)
        seen[tier] = [(o.seq, o.content) for o in episode.observations]
    assert seen[Privacy.NORMAL] == [
        (1, "said by normal"),
        (2, "said by normal"),
        (3, "said by normal"),
    ]
    assert [text for _, text in seen[Privacy.SECRET]] == [
        "said by normal",
        "said by secret",
        "said by secret",
        "said by normal",
        "said by secret",
        "said by normal",
    ], "in the order they were recorded"


async def test_idempotency_keys_belong_to_one_tier(memory: Memory, graph: Graph) -> None:
    story = await new_story(graph)
    said = await _say(story, NORMAL, "my font")
    fields = {"key": "pref:ui:font", "idempotency_key": "k", "evidence": [{"observation_id": said}]}

    async def write(actor: Actor, value: str) -> Any:
        item = parse(RememberInput, {**fields, "value": {"value": value}})
        [claim] = await memory.writes.remember(actor, "alice", [item])
        return claim

    first = await write(SECRET, "mono")
    mine = await write(NORMAL, "serif")
    again = await write(NORMAL, "serif")
    assert first.id != mine.id, "the secret writer's key is not the normal writer's"
    assert again.id == mine.id, "a replay at the same tier returns the first result"
