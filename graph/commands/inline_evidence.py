"""Evidence given as text: recorded as observations in the transaction of the write citing it.

    EvidenceRef(text="I moved to Acme last month", role=Role.USER)

A text is recorded once per tier it is cited at (evidence is at least as private as its claim),
in the open episode the reference names or else in the writer's session episode: one per actor,
space, tier and UTC day, opened on first use (`sessionKey`). A write that is refused records
nothing, because it is all one transaction.

`inline_texts` reads the episodes the texts go to and numbers their observations; `remember`
writes them with its claims, in one statement (`write_batch`); `record_inline` writes them at
once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, LiteralString

from graph.commands.audit import AuditLog
from graph.commands.episodes import (
    FIND_EPISODE,
    ObservationInput,
    OpenEpisodeInput,
    episode_found,
    observation_row,
    open_episode_in,
    taking_observations,
)
from graph.commands.evidence import ResolvedEvidence, authority_of
from graph.commands.references import EvidenceRef
from graph.commands.write_batch import Writes, write_all
from graph.commands.writing import WriteContext
from graph.domain.errors import EngramError
from graph.domain.timeutil import to_native
from graph.domain.vocabulary import Authority, EpisodeKind, Privacy, Role

# The open session episode of each `$sessionKeys`, newest first (one row per key that has one).
SESSION_EPISODES: LiteralString = """
UNWIND $sessionKeys AS sessionKey
CALL (sessionKey) {
  MATCH (e:Episode {spaceId: $spaceId, sessionKey: sessionKey})
  WHERE e.status = 'open' AND e.erasedAt IS NULL
  RETURN properties(e) AS episode
  ORDER BY e.recordedAt DESC
  LIMIT 1
}
RETURN sessionKey, episode
"""

InlineKey = tuple[EvidenceRef, int]
"""An evidence text as recorded: the reference and the tier it is kept at."""


def session_key(ctx: WriteContext, privacy: int) -> str:
    """The session episode's key of the writer at `privacy` today."""
    return f"{ctx.actor}:{ctx.now.date().isoformat()}:{privacy}"


def texts_cited(cited: list[tuple[EvidenceRef, int, str]]) -> dict[InlineKey, str]:
    """Each evidence text of `(ref, tier, field)` once per tier, in order, with the field of
    its first citation."""
    wanted: dict[InlineKey, str] = {}
    for ref, privacy, where in cited:
        if ref.text is not None:
            wanted.setdefault((ref, privacy), where)
    return wanted


def episodes_wanted(wanted: dict[InlineKey, str]) -> tuple[list[int], list[str]]:
    """The tiers whose session episodes the texts need, and the episodes they name."""
    tiers = sorted({privacy for ref, privacy in wanted if ref.episode_id is None})
    named = sorted({ref.episode_id for ref, _ in wanted if ref.episode_id is not None})
    return tiers, named


@dataclass
class InlinePlan:
    """The observations evidence texts become, planned but not yet written."""

    resolved: dict[InlineKey, ResolvedEvidence] = field(default_factory=dict)
    observations: list[dict[str, Any]] = field(default_factory=list)
    episodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The episodes taking them, by id, with their new observation counts."""
    audit: AuditLog = field(default_factory=AuditLog)

    def counts(self) -> list[dict[str, Any]]:
        """The `$counts` of APPEND_OBSERVATIONS: each episode's new counts per tier."""
        return [
            {"id": episode_id, "counts": episode["observationCounts"]}
            for episode_id, episode in self.episodes.items()
        ]

    def add_to(self, writes: Writes, ctx: WriteContext) -> None:
        if self.observations:
            writes.observations.extend(self.observations)
            writes.counts.extend(self.counts())
        self.audit.add_to(writes, ctx)


async def plan_inline(
    ctx: WriteContext,
    wanted: dict[InlineKey, str],
    sessions: dict[int, dict[str, Any] | None],
    named: dict[str, dict[str, Any] | None],
) -> InlinePlan:
    """Plan the observations of the texts `wanted` (`texts_cited`), given the stored session
    episode of each tier they need (`None`: none yet, opened now) and the stored episodes they
    name (`None`: not found). A failure names the first text citing what failed."""
    plan = InlinePlan()
    authorities: list[Authority] = []
    for (ref, _), where in wanted.items():
        authorities.append(authority_of(ref, ref.role or Role.USER, "observation", where))
    session_ids: dict[int, str] = {}
    for privacy, stored in sessions.items():
        if stored is None:
            stored = await _open_session(ctx, privacy)
        episode_id = session_ids[privacy] = str(stored["id"])
        plan.episodes[episode_id] = taking_observations(episode_id, dict(stored))
    for ((ref, privacy), where), authority in zip(wanted.items(), authorities, strict=True):
        episode_id = ref.episode_id or session_ids[privacy]
        role = ref.role or Role.USER
        try:
            episode = plan.episodes.get(episode_id)
            if episode is None:
                episode = dict(episode_found(ctx, episode_id, named.get(episode_id)))
                plan.episodes[episode_id] = taking_observations(episode_id, episode)
            props = observation_row(
                ctx,
                ObservationInput(
                    episode_id=episode_id,
                    content=ref.text or "",
                    role=role,
                    observed_at=ref.observed_at,
                    privacy=Privacy(privacy),
                ),
                episode,
            )
        except EngramError as failure:
            raise failure.at(where) from None
        plan.observations.append(props)
        plan.audit.add(
            "recordObservation",
            [props["id"]],
            result={"observationId": props["id"]},
            detail=episode_id,
        )
        recorded_ref = EvidenceRef(
            observation_id=props["id"], authority=ref.authority, note=ref.note
        )
        plan.resolved[(ref, privacy)] = ResolvedEvidence(
            recorded_ref,
            "Observation",
            authority,
            to_native(props["observedAt"]),
            Privacy(privacy),
            episode_id,
            props["content"],
            None,
        )
    return plan


async def _open_session(ctx: WriteContext, privacy: int) -> dict[str, Any]:
    day = ctx.now.date().isoformat()
    opening = OpenEpisodeInput(
        title=f"Evidence {ctx.actor} gave inline on {day}",
        kind=EpisodeKind.CONVERSATION,
        participants=[ctx.actor],
        privacy=Privacy(privacy),
    )
    opened = await open_episode_in(ctx, opening, session_key=session_key(ctx, privacy))
    return {"id": opened.id, "status": opened.status.value, "privacy": privacy}


def session_keys_of(ctx: WriteContext, cited: list[tuple[EvidenceRef, int, str]]) -> list[str]:
    """The session episodes' keys the evidence texts of `(ref, tier, field)` need, for a
    caller that looks them up with its own reads (`entity_refs.find_entities_and_sessions`)."""
    tiers, _ = episodes_wanted(texts_cited(cited))
    return [session_key(ctx, privacy) for privacy in tiers]


async def inline_texts(
    ctx: WriteContext,
    cited: list[tuple[EvidenceRef, int, str]],
    sessions_found: dict[str, dict[str, Any] | None] | None = None,
) -> InlinePlan:
    """Plan the observations of each evidence text of `(ref, tier, field)`, once per tier, in
    order (the field names the input in errors); the caller writes the plan with its own
    (`write_batch.write_all`). `sessions_found`: session episodes by key the caller has read in
    this transaction already (None: none open); others are read here."""
    wanted = texts_cited(cited)
    if not wanted:
        return InlinePlan()
    tiers, named_ids = episodes_wanted(wanted)
    found = dict(sessions_found or {})
    missing = [session_key(ctx, p) for p in tiers if session_key(ctx, p) not in found]
    if missing:
        found.update(dict.fromkeys(missing))
        rows = await ctx.run(SESSION_EPISODES, sessionKeys=missing)
        found.update({row["sessionKey"]: row["episode"] for row in rows})
    sessions = {privacy: found[session_key(ctx, privacy)] for privacy in tiers}
    named: dict[str, dict[str, Any] | None] = {}
    for episode_id in named_ids:
        rows = await ctx.run(FIND_EPISODE, id=episode_id)
        named[episode_id] = rows[0]["episode"] if rows else None
    return await plan_inline(ctx, wanted, sessions, named)


async def record_inline(
    ctx: WriteContext, cited: list[tuple[EvidenceRef, int, str]]
) -> dict[InlineKey, ResolvedEvidence]:
    """Record each evidence text of `(ref, tier, field)` once per tier, in order, now."""
    plan = await inline_texts(ctx, cited)
    await write_all(ctx, plan)
    return plan.resolved
