"""Episodes and their observations: append-only source material.

    episode = await open_episode(graph, "alice", OpenEpisodeInput(title="chat 42"), actor=agent)
    said = await record_observation(graph, "alice", ObservationInput(
        episode_id=episode.id, role=Role.USER, content="I prefer dark mode"), actor=agent)
    await seal_episode(graph, "alice", SealEpisodeInput(episode_id=episode.id), actor=agent)

An episode is `open` until sealed; a sealed episode takes no new observations. Opening an episode
that `supersedes` another marks the other `superseded` when the new one is sealed. Observations are
never edited (only erased by forget); each carries the SHA-256 of its content.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any, LiteralString

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from graph.commands.audit import (
    AuditLog,
    check_idempotency_key,
    find_replays,
    request_hash,
)
from graph.commands.references import MAX_OBSERVATION_CHARS
from graph.commands.write_batch import APPEND_OBSERVATIONS
from graph.commands.writing import WriteContext, new_id, run_command
from graph.domain.actor import Actor
from graph.domain.errors import Forbidden, Forgotten, NotFound, ValidationFailed
from graph.domain.model import Episode, Observation
from graph.domain.timeutil import instant_text
from graph.domain.vocabulary import EpisodeKind, EpisodeStatus, ObservationKind, Privacy, Role
from graph.store.db import Graph
from graph.store.rows import episode_record, observation_record

FIND_EPISODE: LiteralString = """
MATCH (e:Episode {id: $id})
WHERE e.spaceId = $spaceId
RETURN properties(e) AS episode
"""

CREATE_EPISODE: LiteralString = """
CREATE (e:Episode)
SET e = $props, e.recordedAt = $now
WITH e
OPTIONAL MATCH (old:Episode {id: $props.supersedesId})
FOREACH (_ IN CASE WHEN old IS NULL THEN [] ELSE [1] END |
  CREATE (e)-[:SUPERSEDES {recordedAt: $now}]->(old))
RETURN properties(e) AS episode
"""

SEAL_EPISODE: LiteralString = """
MATCH (e:Episode {id: $id})
SET e.status = 'sealed', e.endedAt = $endedAt, e.sealedAt = $now
WITH e
OPTIONAL MATCH (e)-[:SUPERSEDES]->(old:Episode)
WHERE old.status = 'sealed'
SET old.status = 'superseded', old.supersededByEpisodeId = e.id
RETURN properties(e) AS episode
"""

OBSERVATIONS_BY_ID: LiteralString = """
UNWIND $ids AS id
MATCH (o:Observation {id: id})
RETURN properties(o) AS observation
"""


class OpenEpisodeInput(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str = Field(default="", max_length=500)
    kind: EpisodeKind = EpisodeKind.CONVERSATION
    participants: list[str] = Field(default_factory=list, max_length=50)
    started_at: AwareDatetime | None = None
    extractor_version: str | None = Field(default=None, max_length=100)
    supersedes: str | None = None
    privacy: Privacy = Privacy.NORMAL
    idempotency_key: str | None = None


class ObservationInput(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    content: str = Field(min_length=1, max_length=MAX_OBSERVATION_CHARS)
    kind: ObservationKind = ObservationKind.MESSAGE
    role: Role = Role.USER
    observed_at: AwareDatetime | None = None
    privacy: Privacy | None = None
    idempotency_key: str | None = None


class SealEpisodeInput(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    episode_id: str
    ended_at: AwareDatetime | None = None
    idempotency_key: str | None = None


def _counts(episode: dict[str, Any]) -> list[int]:
    """The episode's observation counts per tier (an episode from before tiers counted all
    its observations in one number: every tier starts after them)."""
    counts = episode.get("observationCounts")
    if counts is not None:
        return [int(n) for n in counts]
    return [int(episode.get("observationCount") or 0)] * len(Privacy)


def _next_seq(counts: list[int], privacy: int) -> int:
    """An observation's place in its episode, counted per tier like claim revisions: after
    every observation at its tier or below, never after one above — so the numbers a reader
    sees have no gaps where observations above its tier are."""
    seq = 1 + max(counts[: privacy + 1])
    counts[privacy] = seq
    return seq


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


async def _replayed(
    ctx: WriteContext, action: str, key: str | None, payload: dict[str, Any]
) -> tuple[str, dict[str, Any] | None]:
    fingerprint = request_hash(action, payload)
    if key is None:
        return fingerprint, None
    replays = await find_replays(ctx, {key: (action, fingerprint)})
    return fingerprint, replays[key].result if key in replays else None


async def _episode(ctx: WriteContext, episode_id: str) -> dict[str, Any]:
    rows = await ctx.run(FIND_EPISODE, id=episode_id)
    return episode_found(ctx, episode_id, rows[0]["episode"] if rows else None)


def episode_found(
    ctx: WriteContext, episode_id: str, episode: dict[str, Any] | None
) -> dict[str, Any]:
    """The episode `episode_id` of the writer's space as stored (`None`: there is none):
    NOT_FOUND above the writer's tier, FORGOTTEN when erased."""
    if episode is None or int(episode["privacy"]) > ctx.max_privacy:
        raise NotFound(f"no episode {episode_id!r} in space {ctx.space!r}", field="episodeId")
    if episode.get("erasedAt") is not None:
        raise Forgotten(f"episode {episode_id!r} was forgotten", field="episodeId")
    return episode


def taking_observations(episode_id: str, episode: dict[str, Any]) -> dict[str, Any]:
    """The episode, checked open and ready to number observations (`observation_row`)."""
    if episode["status"] != EpisodeStatus.OPEN.value:
        raise ValidationFailed(
            f"episode {episode_id!r} is {episode['status']}; "
            "only an open episode takes observations",
            field="episodeId",
        )
    episode["observationCounts"] = _counts(episode)
    return episode


def observation_row(
    ctx: WriteContext, observation: ObservationInput, episode: dict[str, Any]
) -> dict[str, Any]:
    """The properties of a new observation of `episode` (taking observations), numbered in it."""
    observed_at: datetime = observation.observed_at or ctx.now
    privacy = observation.privacy if observation.privacy is not None else episode["privacy"]
    if int(privacy) > ctx.max_privacy:
        raise Forbidden("this key may not write above its privacy tier", field="privacy")
    seq = _next_seq(episode["observationCounts"], int(privacy))
    return {
        "id": new_id(),
        "spaceId": ctx.space_id,
        "episodeId": observation.episode_id,
        "seq": seq,
        "kind": observation.kind.value,
        "role": observation.role.value,
        "content": observation.content,
        "contentHash": content_hash(observation.content),
        "observedAt": instant_text(observed_at),
        "privacy": int(privacy),
    }


async def open_episode(
    graph: Graph, space: str, opening: OpenEpisodeInput, *, actor: Actor
) -> Episode:
    check_idempotency_key(opening.idempotency_key)

    async def work(ctx: WriteContext) -> Episode:
        return await open_episode_in(ctx, opening)

    return await run_command(graph, space, actor, work)


async def record_observation(
    graph: Graph, space: str, observation: ObservationInput, *, actor: Actor
) -> Observation:
    """Append an observation to an open episode."""
    [recorded] = await record_observations(graph, space, [observation], actor=actor)
    return recorded


async def record_observations(
    graph: Graph, space: str, observations: list[ObservationInput], *, actor: Actor
) -> list[Observation]:
    """Append observations to open episodes in one transaction (all or nothing), in order."""
    for observation in observations:
        check_idempotency_key(observation.idempotency_key)

    async def work(ctx: WriteContext) -> list[Observation]:
        return await record_observations_in(ctx, observations)

    return await run_command(graph, space, actor, work)


async def seal_episode(
    graph: Graph, space: str, sealing: SealEpisodeInput, *, actor: Actor
) -> Episode:
    """Seal an open episode: it takes no more observations."""
    check_idempotency_key(sealing.idempotency_key)

    async def work(ctx: WriteContext) -> Episode:
        payload = sealing.model_dump(mode="json")
        fingerprint, replay = await _replayed(ctx, "sealEpisode", sealing.idempotency_key, payload)
        if replay is not None:
            return episode_record(await _episode(ctx, replay["episodeId"]))
        episode = await _episode(ctx, sealing.episode_id)
        if episode["status"] != EpisodeStatus.OPEN.value:
            raise ValidationFailed(
                f"episode {sealing.episode_id!r} is already {episode['status']}", field="episodeId"
            )
        ended_at = sealing.ended_at or ctx.now
        if ended_at < episode["startedAt"].to_native():
            raise ValidationFailed("an episode ends after it starts", field="endedAt")
        rows = await ctx.run(SEAL_EPISODE, id=sealing.episode_id, endedAt=ended_at)
        await (
            AuditLog()
            .add(
                "sealEpisode",
                [sealing.episode_id],
                idempotency_key=sealing.idempotency_key,
                request_hash=fingerprint,
                result={"episodeId": sealing.episode_id},
            )
            .write(ctx)
        )
        return episode_record(rows[0]["episode"])

    return await run_command(graph, space, actor, work)


async def record_observations_in(
    ctx: WriteContext, observations: list[ObservationInput]
) -> list[Observation]:
    """`record_observations` inside a writing transaction that has begun (`begin_write`)."""
    for observation in observations:
        check_idempotency_key(observation.idempotency_key)
    fingerprints = {
        o.idempotency_key: (
            "recordObservation",
            request_hash("recordObservation", o.model_dump(mode="json")),
        )
        for o in observations
        if o.idempotency_key is not None
    }
    replays = await find_replays(ctx, fingerprints)
    episodes: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any] | str] = []
    new: list[dict[str, Any]] = []
    batch_keys: set[str] = set()
    audit = AuditLog()
    for observation in observations:
        key = observation.idempotency_key
        if key is not None and key in replays:
            results.append(str(replays[key].result["observationId"]))
            continue
        if key is not None and key in batch_keys:
            raise ValidationFailed(
                f"idempotency key {key!r} appears twice in one batch", field="idempotencyKey"
            )
        if key is not None:
            batch_keys.add(key)
        episode = episodes.get(observation.episode_id)
        if episode is None:
            episode = await _episode(ctx, observation.episode_id)
            episodes[observation.episode_id] = taking_observations(observation.episode_id, episode)
        props = observation_row(ctx, observation, episode)
        new.append(props)
        results.append(props)
        audit.add(
            "recordObservation",
            [props["id"]],
            idempotency_key=key,
            request_hash=fingerprints[key][1] if key is not None else None,
            result={"observationId": props["id"]},
            detail=observation.episode_id,
        )
    if new:
        counts = [
            {"id": episode_id, "counts": episode["observationCounts"]}
            for episode_id, episode in episodes.items()
        ]
        await ctx.run(APPEND_OBSERVATIONS, observations=new, counts=counts)
    await audit.write(ctx)
    replayed_ids = [r for r in results if isinstance(r, str)]
    earlier: dict[str, dict[str, Any]] = {}
    if replayed_ids:
        for row in await ctx.run(OBSERVATIONS_BY_ID, ids=replayed_ids):
            props = row["observation"]
            if props.get("erasedAt") is not None:
                raise Forgotten(f"observation {props['id']!r} was forgotten")
            earlier[props["id"]] = props
    return [
        observation_record(earlier[r] if isinstance(r, str) else {**r, "recordedAt": ctx.now})
        for r in results
    ]


async def open_episode_in(
    ctx: WriteContext, opening: OpenEpisodeInput, *, session_key: str | None = None
) -> Episode:
    """`open_episode` inside a writing transaction that has begun (`begin_write`); a
    `session_key` marks the session episode evidence text is recorded in."""
    check_idempotency_key(opening.idempotency_key)
    payload = opening.model_dump(mode="json")
    fingerprint, replay = await _replayed(ctx, "openEpisode", opening.idempotency_key, payload)
    if replay is not None:
        return episode_record(await _episode(ctx, replay["episodeId"]))
    if opening.privacy > ctx.max_privacy:
        raise Forbidden("this key may not write above its privacy tier", field="privacy")
    if opening.supersedes is not None:
        old = await _episode(ctx, opening.supersedes)
        if old["status"] != EpisodeStatus.SEALED.value:
            raise ValidationFailed(
                f"episode {opening.supersedes!r} is {old['status']}; only a sealed episode "
                "can be superseded",
                field="supersedes",
            )
    props: dict[str, Any] = {
        "id": new_id(),
        "spaceId": ctx.space_id,
        "title": opening.title,
        "kind": opening.kind.value,
        "status": EpisodeStatus.OPEN.value,
        "participants": opening.participants,
        "startedAt": opening.started_at or ctx.now,
        "extractorVersion": opening.extractor_version,
        "supersedesId": opening.supersedes,
        "privacy": int(opening.privacy),
        "sessionKey": session_key,
    }
    rows = await ctx.run(CREATE_EPISODE, props=props)
    await (
        AuditLog()
        .add(
            "openEpisode",
            [props["id"]],
            idempotency_key=opening.idempotency_key,
            request_hash=fingerprint,
            result={"episodeId": props["id"]},
        )
        .write(ctx)
    )
    return episode_record(rows[0]["episode"])
