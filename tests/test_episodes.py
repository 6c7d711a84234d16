"""Episodes: open, record observations, seal; supersession, spaces, idempotency, visibility."""

from __future__ import annotations

import hashlib

import pytest

from graph.domain.actor import Actor
from graph.domain.errors import Conflict, NotFound, ValidationFailed
from graph.domain.inputs import parse
from graph.domain.vocabulary import EpisodeKind, EpisodeStatus, ObservationKind, Privacy, Role
from graph.memory import Memory, ObservationInput, OpenEpisodeInput, SealEpisodeInput, View
from graph.runtime import Graph
from tests.story import Story, count, day, new_story


@pytest.fixture
async def story(graph: Graph) -> Story:
    return await new_story(graph)


async def _observe(story: Story, content: str, **fields: object) -> str:
    observation = await story.memory.writes.record_observation(
        Actor.operator("test"),
        story.space,
        parse(ObservationInput, {"episode_id": story.episode_id, "content": content, **fields}),
    )
    return observation.id


async def _seal(story: Story, episode_id: str | None = None) -> None:
    sealing = SealEpisodeInput(episode_id=episode_id or story.episode_id)
    await story.memory.writes.seal_episode(Actor.operator("test"), story.space, sealing)


async def test_open_episode_keeps_what_it_was_given_and_writes_an_audit_event(
    story: Story,
) -> None:
    opening = OpenEpisodeInput(
        title="import of notes",
        kind=EpisodeKind.IMPORT,
        participants=["alice", "agent:7"],
        extractor_version="notes-2.1",
    )
    episode = await story.memory.writes.open_episode(
        Actor.operator("agent:7"), story.space, opening
    )
    assert (episode.status, episode.title, episode.kind) == (
        EpisodeStatus.OPEN,
        "import of notes",
        EpisodeKind.IMPORT,
    )
    assert episode.participants == ("alice", "agent:7")
    assert episode.extractor_version == "notes-2.1"
    assert episode.started_at == episode.recorded_at, "startedAt defaults to the recorded time"
    assert episode.ended_at is None and episode.supersedes_id is None
    audits = await story.graph.read(
        "MATCH (a:AuditEvent {action: 'openEpisode'}) WHERE $id IN a.targetIds "
        "RETURN a.actor AS actor, a.detail AS detail, a.at AS at",
        id=episode.id,
    )
    assert [(a["actor"], a["detail"], a["at"].to_native()) for a in audits] == [
        ("agent:7", None, episode.recorded_at)
    ], "audit events hold ids, never content such as the title"


async def test_an_explicit_start_time_is_kept(story: Story) -> None:
    opening = OpenEpisodeInput(title="old chat", started_at=day(3))
    episode = await story.memory.writes.open_episode(Actor.operator("test"), story.space, opening)
    assert episode.started_at == day(3)
    assert episode.recorded_at > day(3)


async def test_observations_are_numbered_in_order_and_hashed(story: Story) -> None:
    ids = [await story.say(text) for text in ("abc", "café ☕", "third")]
    episode = await story.memory.reads.episode(await story.view(), story.episode_id)
    assert [(o.id, o.seq, o.content) for o in episode.observations] == [
        (ids[0], 1, "abc"),
        (ids[1], 2, "café ☕"),
        (ids[2], 3, "third"),
    ]
    assert episode.observations[0].content_hash == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
    assert episode.observations[1].content_hash == hashlib.sha256("café ☕".encode()).hexdigest()


async def test_an_observation_keeps_role_kind_and_defaults_its_time_and_privacy(
    story: Story,
) -> None:
    observation = await story.memory.writes.record_observation(
        Actor.operator("test"),
        story.space,
        ObservationInput(
            episode_id=story.episode_id,
            content="exit code 0",
            role=Role.TOOL,
            kind=ObservationKind.TOOL_RESULT,
        ),
    )
    assert (observation.role, observation.kind) == (Role.TOOL, ObservationKind.TOOL_RESULT)
    assert observation.observed_at == observation.recorded_at
    assert observation.privacy is Privacy.NORMAL
    assert observation.episode_id == story.episode_id
    dated = await story.say("said last week", at=day(7))
    episode = await story.memory.reads.episode(await story.view(), story.episode_id)
    assert [o.observed_at for o in episode.observations if o.id == dated] == [day(7)]


async def test_an_observation_takes_its_episodes_privacy_unless_given(story: Story) -> None:
    opening = OpenEpisodeInput(title="therapy notes", privacy=Privacy.PRIVATE)
    episode = await story.memory.writes.open_episode(Actor.operator("test"), story.space, opening)
    inherited = await story.memory.writes.record_observation(
        Actor.operator("test"),
        story.space,
        ObservationInput(episode_id=episode.id, content="I feel tired"),
    )
    given = await story.memory.writes.record_observation(
        Actor.operator("test"),
        story.space,
        ObservationInput(episode_id=episode.id, content="my PIN", privacy=Privacy.SECRET),
    )
    assert (inherited.privacy, given.privacy) == (Privacy.PRIVATE, Privacy.SECRET)


async def test_a_sealed_episode_takes_no_observations_and_nothing_is_written(
    story: Story,
) -> None:
    await story.say("before the seal")
    await _seal(story)
    observations = await count(story.graph, "Observation")
    audits = await count(story.graph, "AuditEvent")
    with pytest.raises(ValidationFailed, match="only an open episode takes observations") as caught:
        await story.say("after the seal")
    assert caught.value.field == "episodeId"
    assert await count(story.graph, "Observation") == observations == 1
    assert await count(story.graph, "AuditEvent") == audits
    episode = await story.memory.reads.episode(await story.view(), story.episode_id)
    assert episode.status is EpisodeStatus.SEALED
    assert [o.content for o in episode.observations] == ["before the seal"]


async def test_sealing_twice_is_refused(story: Story) -> None:
    await _seal(story)
    with pytest.raises(ValidationFailed, match=f"episode '{story.episode_id}' is already sealed"):
        await _seal(story)


async def test_an_episode_cannot_end_before_it_starts(story: Story) -> None:
    opening = OpenEpisodeInput(title="old chat", started_at=day(5))
    episode = await story.memory.writes.open_episode(Actor.operator("test"), story.space, opening)
    early = SealEpisodeInput(episode_id=episode.id, ended_at=day(4))
    with pytest.raises(ValidationFailed, match="an episode ends after it starts"):
        await story.memory.writes.seal_episode(Actor.operator("test"), story.space, early)
    sealing = SealEpisodeInput(episode_id=episode.id, ended_at=day(6))
    sealed = await story.memory.writes.seal_episode(Actor.operator("test"), story.space, sealing)
    assert (sealed.status, sealed.ended_at) == (EpisodeStatus.SEALED, day(6))


async def test_sealing_an_episode_that_supersedes_another_marks_the_other_superseded(
    story: Story,
) -> None:
    await _seal(story)
    opening = OpenEpisodeInput(title="re-import", supersedes=story.episode_id)
    newer = await story.memory.writes.open_episode(Actor.operator("test"), story.space, opening)
    assert newer.supersedes_id == story.episode_id
    view = await story.view()
    older = await story.memory.reads.episode(view, story.episode_id)
    assert older.status is EpisodeStatus.SEALED, "superseded only once the new one is sealed"
    await _seal(story, newer.id)
    older = await story.memory.reads.episode(await story.view(), story.episode_id)
    assert older.status is EpisodeStatus.SUPERSEDED
    links = await story.graph.read(
        "MATCH (n:Episode)-[:SUPERSEDES]->(o:Episode) RETURN n.id AS newer, o.id AS older"
    )
    assert links == [{"newer": newer.id, "older": story.episode_id}]


async def test_only_a_sealed_episode_can_be_superseded(story: Story) -> None:
    opening = OpenEpisodeInput(title="re-import", supersedes=story.episode_id)
    with pytest.raises(ValidationFailed, match="is open; only a sealed episode can be superseded"):
        await story.memory.writes.open_episode(Actor.operator("test"), story.space, opening)
    assert await count(story.graph, "Episode") == 1


async def test_superseding_an_unknown_episode_is_refused(story: Story) -> None:
    opening = OpenEpisodeInput(title="re-import", supersedes="no-such-episode")
    with pytest.raises(NotFound, match="no episode 'no-such-episode' in space 'alice'"):
        await story.memory.writes.open_episode(Actor.operator("test"), story.space, opening)
    assert await count(story.graph, "Episode") == 1


async def test_an_unknown_episode_is_not_found(story: Story) -> None:
    with pytest.raises(NotFound, match="no episode 'nope' in space 'alice'"):
        await story.memory.writes.record_observation(
            Actor.operator("t"), story.space, ObservationInput(episode_id="nope", content="hi")
        )
    with pytest.raises(NotFound, match="no episode 'nope' in space 'alice'"):
        await _seal(story, "nope")
    with pytest.raises(NotFound, match="no visible episode 'nope'"):
        await story.memory.reads.episode(await story.view(), "nope")
    assert await count(story.graph, "Observation") == 0


async def test_an_episode_of_another_space_is_not_found(
    memory: Memory, graph: Graph, story: Story
) -> None:
    bob = await new_story(graph, "bob")
    await bob.say("Bob's secret")
    into_bobs = ObservationInput(episode_id=bob.episode_id, content="Alice was here")
    with pytest.raises(NotFound, match=f"no episode '{bob.episode_id}' in space 'alice'"):
        await memory.writes.record_observation(Actor.operator("test"), "alice", into_bobs)
    with pytest.raises(NotFound, match=f"no episode '{bob.episode_id}' in space 'alice'"):
        await _seal(story, bob.episode_id)
    with pytest.raises(NotFound, match=f"no visible episode '{bob.episode_id}'"):
        await memory.reads.episode(await story.view(), bob.episode_id)
    with pytest.raises(NotFound, match=f"no episode '{bob.episode_id}' in space 'alice'"):
        await memory.writes.open_episode(
            Actor.operator("test"), "alice", OpenEpisodeInput(supersedes=bob.episode_id)
        )
    bobs = await memory.reads.episode(await bob.view(), bob.episode_id)
    assert (bobs.status, [o.content for o in bobs.observations]) == (
        EpisodeStatus.OPEN,
        ["Bob's secret"],
    )


async def test_a_replayed_observation_returns_the_first_and_writes_once(story: Story) -> None:
    said = ObservationInput(episode_id=story.episode_id, content="hello", idempotency_key="obs-1")
    first = await story.memory.writes.record_observation(Actor.operator("test"), story.space, said)
    replay = await story.memory.writes.record_observation(Actor.operator("test"), story.space, said)
    assert replay == first
    assert await count(story.graph, "Observation") == 1
    episode = await story.memory.reads.episode(await story.view(), story.episode_id)
    assert [o.seq for o in episode.observations] == [1]
    changed = ObservationInput(
        episode_id=story.episode_id, content="goodbye", idempotency_key="obs-1"
    )
    with pytest.raises(Conflict, match="idempotency key 'obs-1' was already used"):
        await story.memory.writes.record_observation(Actor.operator("test"), story.space, changed)
    assert await count(story.graph, "Observation") == 1


async def test_an_episode_read_as_known_earlier_hides_later_observations(story: Story) -> None:
    first = await story.memory.writes.record_observation(
        Actor.operator("test"),
        story.space,
        ObservationInput(episode_id=story.episode_id, content="first"),
    )
    await story.say("second")
    then = await story.memory.reads.episode(
        await story.view(known_at=first.recorded_at), story.episode_id
    )
    assert [o.content for o in then.observations] == ["first"]
    now = await story.memory.reads.episode(await story.view(), story.episode_id)
    assert [o.content for o in now.observations] == ["first", "second"]


async def test_an_episode_hides_observations_above_the_readers_privacy(story: Story) -> None:
    await _observe(story, "the weather is nice")
    await _observe(story, "my diagnosis", privacy=Privacy.PRIVATE)
    normal = await View.open(story.graph, story.space, max_privacy=Privacy.NORMAL)
    cleared = await View.open(story.graph, story.space, max_privacy=Privacy.PRIVATE)
    shown = await story.memory.reads.episode(normal, story.episode_id)
    assert [o.content for o in shown.observations] == ["the weather is nice"]
    shown = await story.memory.reads.episode(cleared, story.episode_id)
    assert [o.content for o in shown.observations] == ["the weather is nice", "my diagnosis"]


async def test_a_timeline_shows_each_episodes_visible_observations(story: Story) -> None:
    await _observe(story, "the weather is nice", observed_at=day(1))
    await _observe(story, "my diagnosis", privacy=Privacy.PRIVATE, observed_at=day(2))
    await _observe(story, "see you", observed_at=day(3))
    normal = await View.open(story.graph, story.space, max_privacy=Privacy.NORMAL)
    shown = await story.memory.reads.timeline(normal, day(-1000), day(10_000))
    assert [[o.content for o in e.observations] for e in shown.episodes] == [
        ["the weather is nice", "see you"]
    ]


@pytest.mark.fast
def test_an_observation_over_the_size_limit_is_refused() -> None:
    at_limit = "x" * 100_000
    assert parse(ObservationInput, {"episode_id": "e", "content": at_limit}).content == at_limit
    with pytest.raises(ValidationFailed, match="content: give at most 100000 characters"):
        parse(ObservationInput, {"episode_id": "e", "content": at_limit + "x"})
    with pytest.raises(ValidationFailed, match="content: give at least 1 character"):
        parse(ObservationInput, {"episode_id": "e", "content": ""})
