"""Everything a `remember` batch refers to, read in one query after the space's tick: its
entities (by id, key or name), its cited observations and artifacts, the space's predicate
rules, the episodes its evidence texts go to (the writer's session episodes, and those the
texts name), and the states of the keys it most likely writes (`remember_refs.likely_keys`).
One round trip instead of one per kind of reference; what each part reads and how a reference
is then resolved is what `entity_refs`, `evidence`, `predicate_rules`, `inline_evidence` and
`revisions` say.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, LiteralString

from graph.commands.entity_refs import (
    ENTITIES_BY_ID,
    ENTITIES_BY_KEY,
    ENTITIES_BY_NAME,
    EntityLookup,
    EntityRef,
)
from graph.commands.evidence import FIND_ARTIFACTS, FIND_OBSERVATIONS, EvidenceRef, cited_ids
from graph.commands.predicate_rules import PredicateRules, rules_of
from graph.commands.revisions import LOAD_KEY_STATES, KeyState, key_state
from graph.commands.writing import WriteContext
from graph.store.db import run

_ENTITY: LiteralString = "{ref: ref, id: id, key: key, canonical: canonical}"
_OBSERVATION: LiteralString = """{id: id, role: role, observedAt: observedAt, erasedAt: erasedAt,
  episodeId: episodeId, text: text, locator: locator, privacy: privacy}"""
_ARTIFACT: LiteralString = """{id: id, observedAt: observedAt, erasedAt: erasedAt,
  episodeId: episodeId, text: text, locator: locator, privacy: privacy}"""

REMEMBER_LOOKUPS: LiteralString = (
    "CALL () {\n CALL () {"
    + ENTITIES_BY_ID
    + "}\n RETURN collect("
    + _ENTITY
    + ") AS byId\n}\nCALL () {\n CALL () {"
    + ENTITIES_BY_KEY
    + "}\n RETURN collect("
    + _ENTITY
    + ") AS byKey\n}\nCALL () {\n CALL () {"
    + ENTITIES_BY_NAME
    + "}\n RETURN collect("
    + _ENTITY
    + ") AS byName\n}\nCALL () {\n CALL () {"
    + FIND_OBSERVATIONS
    + "}\n RETURN collect("
    + _OBSERVATION
    + ") AS observations\n}\nCALL () {\n CALL () {"
    + FIND_ARTIFACTS
    + "}\n RETURN collect("
    + _ARTIFACT
    + """) AS artifacts
}
CALL () {
  OPTIONAL MATCH (s:Space {id: $spaceId})
  RETURN coalesce(s.onePredicates, []) AS one, coalesce(s.manyPredicates, []) AS many
}
CALL () {
  UNWIND $sessionKeys AS sessionKey
  CALL (sessionKey) {
    MATCH (e:Episode {spaceId: $spaceId, sessionKey: sessionKey})
    WHERE e.status = 'open' AND e.erasedAt IS NULL
    RETURN e ORDER BY e.recordedAt DESC LIMIT 1
  }
  RETURN collect({sessionKey: sessionKey, episode: properties(e)}) AS sessions
}
CALL () {
  UNWIND $episodeIds AS episodeId
  MATCH (e:Episode {id: episodeId})
  WHERE e.spaceId = $spaceId
  RETURN collect(properties(e)) AS episodes
}
CALL () {
  CALL () {"""
    + LOAD_KEY_STATES
    + """}
  RETURN collect({key: key, heads: heads, current: current, entityId: entityId,
                  entityPrivacy: entityPrivacy}) AS states
}
RETURN byId, byKey, byName, observations, artifacts, one, many, sessions, episodes, states
"""
)


@dataclass(frozen=True)
class Lookups:
    """What one read found for a batch, raw; resolved by the modules that own each part."""

    candidates: dict[EntityRef, dict[str, dict[str, Any]]]
    observations: list[dict[str, Any]]
    artifacts: list[dict[str, Any]]
    rules: PredicateRules
    sessions: dict[str, dict[str, Any]]
    """Open session episodes by session key."""
    episodes: dict[str, dict[str, Any]]
    """Episodes the evidence texts name, by id (in this space, any tier, erased or not)."""
    states: dict[str, KeyState]
    """The states of the keys guessed, as `revisions.load_key_states` reads them."""


async def look_up(
    ctx: WriteContext,
    refs: list[EntityRef],
    evidence: list[tuple[EvidenceRef, str]],
    session_keys: list[str],
    episode_ids: list[str],
    keys: list[str],
) -> Lookups:
    """Read what `refs`, the cited `evidence` and the evidence texts' episodes
    (`session_keys`, `episode_ids`) are, the space's rules and the states of `keys`, in one
    query."""
    entities = EntityLookup.of(refs)
    observation_ids, artifact_ids = cited_ids(evidence)
    [row] = await run(
        ctx.tx,
        REMEMBER_LOOKUPS,
        spaceId=ctx.space_id,
        now=ctx.now,
        maxPrivacy=int(ctx.max_privacy),
        ids=entities.ids,
        entityKeys=entities.keys,
        keys=keys,
        names=entities.names,
        observationIds=observation_ids,
        artifactIds=artifact_ids,
        sessionKeys=session_keys,
        episodeIds=episode_ids,
    )
    found: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for kind, column in (("id", "byId"), ("key", "byKey"), ("name", "byName")):
        for entity in row[column]:
            found.setdefault((kind, entity["ref"]), []).append(entity)
    return Lookups(
        candidates=entities.candidates(found),
        observations=row["observations"],
        artifacts=row["artifacts"],
        rules=rules_of(row),
        sessions={s["sessionKey"]: s["episode"] for s in row["sessions"]},
        episodes={e["id"]: e for e in row["episodes"]},
        states={state["key"]: key_state(state) for state in row["states"]},
    )
