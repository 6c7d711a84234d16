"""Invariants checked in the database itself (by the tests after every test, and by restore).

Each query returns the ids that break its rule; an empty answer means the rule holds.
"""

from __future__ import annotations

import asyncio
from typing import LiteralString

from graph.store.db import Graph

ACTIVE_CLAIMS_WITHOUT_EVIDENCE: LiteralString = """
MATCH (c:Claim)
WHERE c.supersededAt IS NULL AND c.erasedAt IS NULL AND c.status IN ['active', 'disputed']
  AND NOT EXISTS {
    MATCH (c)-[e:SUPPORTED_BY]->(t)
    WHERE e.erasedAt IS NULL AND t.erasedAt IS NULL AND t.spaceId = c.spaceId
  }
RETURN c.id AS id
"""

CROSS_SPACE_LINKS: LiteralString = """
MATCH (a)-[r]->(b)
WHERE a.spaceId IS NOT NULL AND b.spaceId IS NOT NULL AND a.spaceId <> b.spaceId
RETURN elementId(r) AS id
"""

RELATIONS_WITHOUT_ASSERTING_CLAIM: LiteralString = """
MATCH (:Entity)-[r]->(:Entity)
WHERE r.claimId IS NOT NULL AND r.supersededAt IS NULL AND r.erasedAt IS NULL
  AND NOT EXISTS {
    MATCH (c:Claim {id: r.claimId})
    WHERE c.supersededAt IS NULL AND c.erasedAt IS NULL AND c.status IN ['active', 'disputed']
  }
RETURN elementId(r) AS id
"""

TWO_TOLD_FACTS_AT_ONE_START: LiteralString = """
MATCH (c:Claim)
WHERE c.type IN ['pref', 'goal', 'task', 'entity', 'case', 'pattern', 'fact']
  AND c.supersededAt IS NULL AND c.erasedAt IS NULL
WITH c.spaceId AS space, c.key AS key, c.privacy AS privacy,
     coalesce(toString(c.validFrom), 'open') AS start, collect(c.id) AS ids
WHERE size(ids) > 1
RETURN key + ' has ' + toString(size(ids)) + ' current told facts from ' + start AS id
"""

EVIDENCE_LESS_PRIVATE_THAN_ITS_CLAIM: LiteralString = """
MATCH (c:Claim)-[e:SUPPORTED_BY|CONTRADICTED_BY|CORRECTED_BY]->(t)
WHERE t.privacy < c.privacy
RETURN elementId(e) AS id
"""

ERASED_WITH_DISPLAY_COPIES: LiteralString = """
MATCH (e:Entity)
WHERE e.erasedAt IS NOT NULL AND (e.name IS NOT NULL OR size(labels(e)) > 1)
RETURN e.id AS id
UNION
MATCH (c:Claim)
WHERE c.erasedAt IS NOT NULL AND (c.caption IS NOT NULL OR c.spokenNames IS NOT NULL)
RETURN c.id AS id
"""

MEANINGS_WITHOUT_THEIR_CLAIM: LiteralString = """
MATCH (m:Meaning)
WHERE NOT EXISTS {
  MATCH (c:Claim {id: m.claimId})-[:MEANS]->(m)
  WHERE c.erasedAt IS NULL AND c.text IS NOT NULL AND c.spaceId = m.spaceId
}
OR COUNT { (m)<-[:MEANS]-() } <> 1
RETURN elementId(m) AS id
"""

ERASED_CLAIMS_WITH_MEANING: LiteralString = """
MATCH (c:Claim)
WHERE c.erasedAt IS NOT NULL AND (c:Unembedded OR EXISTS { (c)-[:MEANS]->() })
RETURN c.id AS id
"""

MEANINGS_OUTSIDE_THEIR_SPACE_INDEX: LiteralString = """
MATCH (ix:MeaningIndex {state: 'ready'})
MATCH (m:Meaning {spaceId: ix.spaceId})
WHERE NOT ix.label IN labels(m)
RETURN m.claimId AS id
"""

_INSTANTS: LiteralString = (
    "['validFrom', 'validTo', 'recordedAt', 'supersededAt', 'archivedAt', 'erasedAt', "
    "'observedAt', 'startedAt', 'endedAt', 'sealedAt']"
)

INSTANTS_NOT_STORED_AS_DATETIMES: LiteralString = (
    """
MATCH (n)
WHERE n:Claim OR n:Observation OR n:Episode OR n:Entity OR n:Artifact
UNWIND [k IN """
    + _INSTANTS
    + """ WHERE n[k] IS NOT NULL AND NOT valueType(n[k]) STARTS WITH 'ZONED DATETIME'] AS k
RETURN elementId(n) + '.' + k AS id
UNION ALL
MATCH ()-[r]->()
WHERE r.claimId IS NOT NULL OR r.authority IS NOT NULL
UNWIND [k IN """
    + _INSTANTS
    + """ WHERE r[k] IS NOT NULL AND NOT valueType(r[k]) STARTS WITH 'ZONED DATETIME'] AS k
RETURN elementId(r) + '.' + k AS id
"""
)
"""Writes send instants as text (`timeutil.instant_text`) for the statement to make datetimes
of; one left as text would compare with no datetime."""

RULES: dict[str, LiteralString] = {
    "an active claim has unerased evidence in its own space": ACTIVE_CLAIMS_WITHOUT_EVIDENCE,
    "no relationship crosses spaces": CROSS_SPACE_LINKS,
    "a current relation has a current asserting claim": RELATIONS_WITHOUT_ASSERTING_CLAIM,
    "a one-value key's tier line holds one current told fact per validFrom": (
        TWO_TOLD_FACTS_AT_ONE_START
    ),
    "an erased entity or claim keeps no name, kind label or caption": (ERASED_WITH_DISPLAY_COPIES),
    "a meaning vector belongs to one unerased claim with text": MEANINGS_WITHOUT_THEIR_CLAIM,
    "an erased claim has no meaning vector and waits for none": ERASED_CLAIMS_WITH_MEANING,
    "a space with its own vector index has every vector of it in that index": (
        MEANINGS_OUTSIDE_THEIR_SPACE_INDEX
    ),
    "every instant is stored as a datetime": INSTANTS_NOT_STORED_AS_DATETIMES,
}


WRITE_RULES: dict[str, LiteralString] = {
    "evidence is at least as private as the claims it is linked to": (
        EVIDENCE_LESS_PRIVATE_THAN_ITS_CLAIM
    ),
}
"""Rules every write keeps from tiers on, but data written before them (and archives of it)
may break: the tests check them, a restore does not refuse an older archive for them."""


async def violations(
    graph: Graph, rules: dict[str, LiteralString] | None = None
) -> dict[str, list[str]]:
    """Broken rules with the offending ids (empty when every invariant holds); the rules are
    asked at once, each in its own read transaction."""
    chosen = RULES if rules is None else rules
    answers = await asyncio.gather(*(graph.read(query) for query in chosen.values()))
    broken = {rule: [row["id"] for row in rows] for rule, rows in zip(chosen, answers, strict=True)}
    return {rule: ids for rule, ids in broken.items() if ids}
