"""Evidence given as text: recorded as observations in the transaction of the write citing it.

    >>> EvidenceRef(text="I moved to Acme last month", role=Role.USER)

A text is recorded once per tier it is cited at (evidence is at least as private as its claim),
in the open episode the reference names or else in the writer's session episode: one per actor,
space, tier and UTC day, opened on first use (`sessionKey`). A write that is refused records
nothing, because it is all one transaction.
"""

from __future__ import annotations

from typing import LiteralString

from graph.commands.episodes import ObservationInput, OpenEpisodeInput, open_episode_in
from graph.commands.episodes import record_observations_in as record_in
from graph.commands.evidence import EvidenceRef, ResolvedEvidence, authority_of
from graph.commands.writing import WriteContext
from graph.domain.errors import EngramError
from graph.domain.model import EpisodeKind, Privacy, Role
from graph.store.db import run

SESSION_EPISODE: LiteralString = """
MATCH (e:Episode {spaceId: $spaceId, sessionKey: $sessionKey})
WHERE e.status = 'open' AND e.erasedAt IS NULL
RETURN e.id AS id
ORDER BY e.recordedAt DESC
LIMIT 1
"""

InlineKey = tuple[EvidenceRef, int]
"""An evidence text as recorded: the reference and the tier it is kept at."""


async def _session_episode(ctx: WriteContext, privacy: int) -> str:
    day = ctx.now.date().isoformat()
    session_key = f"{ctx.actor}:{day}:{privacy}"
    rows = await run(ctx.tx, SESSION_EPISODE, spaceId=ctx.space_id, sessionKey=session_key)
    if rows:
        return str(rows[0]["id"])
    opening = OpenEpisodeInput(
        title=f"Evidence {ctx.actor} gave inline on {day}",
        kind=EpisodeKind.CONVERSATION,
        participants=[ctx.actor],
        privacy=Privacy(privacy),
    )
    return (await open_episode_in(ctx, opening, session_key=session_key)).id


async def record_inline(
    ctx: WriteContext, cited: list[tuple[EvidenceRef, int, str]]
) -> dict[InlineKey, ResolvedEvidence]:
    """Record each evidence text of `(ref, tier, field)` once per tier, in order; the field
    names the input in errors."""
    wanted: dict[InlineKey, str] = {}
    for ref, privacy, field in cited:
        if ref.text is not None:
            wanted.setdefault((ref, privacy), field)
    if not wanted:
        return {}
    sessions: dict[int, str] = {}
    observations = []
    authorities = []
    for (ref, privacy), field in wanted.items():
        role = ref.role or Role.USER
        authorities.append(authority_of(ref, role, "observation", field))
        if ref.episode_id is None and privacy not in sessions:
            sessions[privacy] = await _session_episode(ctx, privacy)
        observations.append(
            ObservationInput(
                episode_id=ref.episode_id or sessions[privacy],
                content=ref.text or "",
                role=role,
                observed_at=ref.observed_at,
                privacy=Privacy(privacy),
            )
        )
    try:
        recorded = await record_in(ctx, observations)
    except EngramError as failure:
        # An episode that takes no observation: named at the first text citing it.
        culprit = next(
            (f for (r, _), f in wanted.items() if r.episode_id and r.episode_id in failure.message),
            next(iter(wanted.values())),
        )
        raise failure.at(culprit) from None
    resolved: dict[InlineKey, ResolvedEvidence] = {}
    for (ref, privacy), observation, authority in zip(wanted, recorded, authorities, strict=True):
        recorded_ref = EvidenceRef(
            observation_id=observation.id, authority=ref.authority, note=ref.note
        )
        resolved[(ref, privacy)] = ResolvedEvidence(
            recorded_ref,
            "Observation",
            authority,
            observation.observed_at,
            Privacy(privacy),
            observation.episode_id,
            observation.content,
            None,
        )
    return resolved
