"""The erase engine forget, retention purges and ledger replays share: content out of every
selected row, the evidence that supported only them, the links that carried it, claims left
without support cascaded to a retracted revision, entities still named above the erasing tier
lifted instead of erased — all in the caller's transaction, never content in what it returns.

    erasure = await erase(ctx, selection, held=held_ids)
    erasure.fingerprints, erasure.made_inactive, erasure.lifted
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import LiteralString

from graph.commands.captions import ENTITY_KIND_LABELS, refresh_display_names
from graph.commands.writing import WriteContext
from graph.domain.timeline import rank_instant
from graph.erasure.by_products import add_by_products, recite_names
from graph.erasure.selectors import Selection

CASCADE_REASON = "its only evidence was forgotten"

SPACE_SALT: LiteralString = """
MATCH (s:Space {id: $spaceId})
SET s.forgetSalt = coalesce(s.forgetSalt, $fresh)
RETURN s.forgetSalt AS salt
"""

_CITING: LiteralString = """
<-[:SUPPORTED_BY]-(c:Claim)
WHERE c.supersededAt IS NULL AND c.erasedAt IS NULL
RETURN DISTINCT c.id AS id
"""
CLAIMS_CITING_OBSERVATIONS: LiteralString = (
    "UNWIND $ids AS id\nMATCH (t:Observation {id: id})" + _CITING
)
CLAIMS_CITING_ARTIFACTS: LiteralString = "UNWIND $ids AS id\nMATCH (t:Artifact {id: id})" + _CITING

OBSERVATION_TEXTS: LiteralString = """
UNWIND $ids AS id
MATCH (o:Observation {id: id})
WHERE o.content IS NOT NULL
RETURN o.content AS text
"""

ARTIFACT_CONTENT: LiteralString = """
UNWIND $ids AS id
MATCH (a:Artifact {id: id})
RETURN a.content AS text, a.storage AS storage, a.locator AS locator
"""

ERASE_CLAIMS: LiteralString = """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
CALL (c) {
  WITH c WHERE c.objectId IS NOT NULL
  MATCH (:Entity {id: c.subjectId})-[relation]->(:Entity {id: c.objectId})
  WHERE relation.claimId = c.id
  DELETE relation
}
WITH c
CALL (c) {
  MATCH (c)-[:MEANS]->(meaning:Meaning)
  DETACH DELETE meaning
}
OPTIONAL MATCH (c)-[r]-()
DELETE r
WITH DISTINCT c
SET c.erasedAt = coalesce(c.erasedAt, $now), c.key = 'forgotten:' + c.id
REMOVE c:Unembedded
REMOVE c.valueJson, c.text, c.caption, c.name, c.aliases, c.spokenNames, c.reason, c.predicate,
       c.subjectId, c.objectId
"""


def _erase_evidence(label: LiteralString, content: LiteralString) -> LiteralString:
    """Erase the `label` nodes of `$ids` (evidence: observations or artifacts): their links
    from claims go, and the `content` properties."""
    return (
        """
UNWIND $ids AS id
MATCH (t:"""
        + label
        + """ {id: id})
OPTIONAL MATCH (t)<-[e]-(:Claim)
DELETE e
WITH DISTINCT t
SET t.erasedAt = coalesce(t.erasedAt, $now)
REMOVE """
        + content
        + "\n"
    )


ERASE_OBSERVATIONS = _erase_evidence("Observation", "t.content, t.contentHash")
ERASE_ARTIFACTS = _erase_evidence("Artifact", "t.content, t.locator, t.sha256")


ERASE_ENTITIES: LiteralString = (
    """
UNWIND $ids AS id
MATCH (e:Entity {id: id})
OPTIONAL MATCH (e)-[r]-()
DELETE r
WITH DISTINCT e
SET e.erasedAt = coalesce(e.erasedAt, $now), e.key = 'forgotten:' + e.id
REMOVE e.canonical, e.name
REMOVE e"""
    + ENTITY_KIND_LABELS
    + "\n"
)

# An entity that claims above the forgetting writer's tier still name (the writer's own claims
# about it are erased already) is lifted to the lowest such tier instead of being erased: from
# then on no view at or below the writer's tier — current or past — shows it, and the tiers above
# keep what they know. Merges the writer could see go with it.
LIFT_ENTITIES: LiteralString = """
UNWIND $ids AS id
MATCH (e:Entity {id: id})
CALL (e) {
  MATCH (c:Claim {subjectId: e.id})
  WHERE c.erasedAt IS NULL
  RETURN c.privacy AS privacy
  UNION
  MATCH (c:Claim {objectId: e.id})
  WHERE c.erasedAt IS NULL
  RETURN c.privacy AS privacy
}
WITH e, min(privacy) AS kept
WHERE kept > $maxPrivacy
SET e.privacy = kept
WITH e
CALL (e) {
  MATCH (e)-[m:MERGED_INTO]-(:Entity)
  WHERE m.privacy <= $maxPrivacy
  DELETE m
}
RETURN e.id AS id, e.privacy AS privacy
"""

NAMED_ENTITIES: LiteralString = """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
WHERE c.type = 'entity' AND c.subjectId IS NOT NULL
RETURN DISTINCT c.subjectId AS id
"""

ERASE_EPISODES: LiteralString = """
UNWIND $ids AS id
MATCH (e:Episode {id: id})
SET e.erasedAt = coalesce(e.erasedAt, $now), e.status = 'tombstoned'
REMOVE e.title, e.participants
"""

SPACE_BLOBS: LiteralString = """
MATCH (a:Artifact {storage: 'blob'})
WHERE a.spaceId = $spaceId AND a.erasedAt IS NULL
RETURN DISTINCT a.locator AS locator
"""

# A forgotten space's name may be taken again by a new space, so the API keys that grant the old
# one lose that grant. Keys are neomodel's (graph/commands/apikeys.py), which cannot write in this
# transaction: the closed space keeps its old name in `grantsToWithdraw`, the purge outbox has
# the keys' owner withdraw it after commit, and no new space takes the name before that is done.
CLOSE_SPACE: LiteralString = """
MATCH (s:Space {id: $spaceId})
SET s.erasedAt = $now, s.grantsToWithdraw = s.name, s.name = 'forgotten-' + s.id
REMOVE s.description, s.forgetSalt, s.onePredicates, s.manyPredicates
"""


def content_fingerprint(salt: str, text: str) -> str:
    """A keyed digest of erased text: recognises the same text again, reveals nothing alone."""
    return hmac.new(salt.encode(), text.encode("utf-8"), hashlib.sha256).hexdigest()


async def _space_salt(ctx: WriteContext) -> str:
    [row] = await ctx.run(SPACE_SALT, fresh=secrets.token_hex(32))
    return str(row["salt"])


async def keyed_digest(ctx: WriteContext, text: str) -> str:
    """`text` as a digest keyed by the space's secret salt (see `content_fingerprint`)."""
    return content_fingerprint(await _space_salt(ctx), text)


@dataclass
class Erasure:
    fingerprints: set[str] = field(default_factory=set)
    blobs: set[str] = field(default_factory=set)
    made_inactive: list[str] = field(default_factory=list)
    lifted: dict[str, int] = field(default_factory=dict)
    """Entities forgotten below a tier that still holds claims about them: id → the tier
    they were lifted to (gone from every view below it, kept for the tiers above)."""


async def erase(
    ctx: WriteContext,
    selection: Selection,
    *,
    held: set[str] | None = None,
    by_products: bool = True,
) -> Erasure:
    """Erase the selected ids (and cascade); used by forget, retention purge and restore.

    What exists only because of the erased claims goes too (`graph.erasure.by_products`: the
    evidence only they cite, the entities only they name) — unless a legal hold keeps it
    (`held`): a hold preserves evidence even when the claim drawn from it is forgotten. A
    ledger replay passes `by_products=False`: the tombstone lists what went, and working it out
    again at another tier, without the holds of then, could take more.
    """
    held = held or set()
    erasure = Erasure()
    if selection.whole_space:
        rows = await ctx.run(SPACE_BLOBS)
        erasure.blobs = {str(row["locator"]).removeprefix("blob:") for row in rows}
        await ctx.run(CLOSE_SPACE)
        return erasure
    if selection.claims and by_products:
        # A forgotten fact must not live on verbatim in the message it was taken from, nor in
        # the entities it alone named.
        await add_by_products(ctx, selection, held=held)
    citing: set[str] = set()
    for query, ids in (
        (CLAIMS_CITING_OBSERVATIONS, selection.observations),
        (CLAIMS_CITING_ARTIFACTS, selection.artifacts),
    ):
        if ids:
            citing |= {row["id"] for row in await ctx.run(query, ids=sorted(ids))}
    texts: list[str] = []
    if selection.observations:
        for row in await ctx.run(OBSERVATION_TEXTS, ids=sorted(selection.observations)):
            texts.append(row["text"])
    if selection.artifacts:
        for row in await ctx.run(ARTIFACT_CONTENT, ids=sorted(selection.artifacts)):
            if row["text"] is not None:
                texts.append(row["text"])
            if row["storage"] == "blob" and row["locator"]:
                erasure.blobs.add(str(row["locator"]).removeprefix("blob:"))
    claims = sorted(selection.claims | selection.names)
    named: set[str] = set()
    if claims:
        named = {row["id"] for row in await ctx.run(NAMED_ENTITIES, ids=claims)}
        await ctx.run(ERASE_CLAIMS, ids=claims)
    if selection.observations:
        await ctx.run(ERASE_OBSERVATIONS, ids=sorted(selection.observations))
    if selection.artifacts:
        await ctx.run(ERASE_ARTIFACTS, ids=sorted(selection.artifacts))
    if selection.entities:
        lifted = await ctx.run(LIFT_ENTITIES, ids=sorted(selection.entities))
        erasure.lifted = {row["id"]: int(row["privacy"]) for row in lifted}
        erased = sorted(selection.entities - erasure.lifted.keys())
        if erased:
            await ctx.run(ERASE_ENTITIES, ids=erased)
    if selection.episodes:
        await ctx.run(ERASE_EPISODES, ids=sorted(selection.episodes))
    if texts:
        salt = await _space_salt(ctx)
        erasure.fingerprints = {content_fingerprint(salt, text) for text in texts}
    candidates = sorted(citing - selection.claims - selection.names)
    if candidates:
        # An entity named in passing keeps its name on what supports another fact about it.
        candidates = sorted(set(candidates) - await recite_names(ctx, candidates))
    if candidates:
        rows = await ctx.run(
            CASCADE, ids=candidates, nowRank=rank_instant(ctx.now), reason=CASCADE_REASON
        )
        erasure.made_inactive = [row["id"] for row in rows]
        named |= {row["id"] for row in await ctx.run(NAMED_ENTITIES, ids=erasure.made_inactive)}
    # Display names follow the entity claims this erasure took away or retracted.
    await refresh_display_names(ctx, named)
    return erasure


# Claims left without unerased support become non-active: each gets a retracted revision
# (the next revision number of its key at its tier; pieces of one key are numbered in turn),
# done on the server so a large cascade does not travel to Python and back. Evidence is at least
# as private as its claims, so a cascade never reaches above the tier of what was erased.
CASCADE: LiteralString = """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
WHERE c.supersededAt IS NULL AND c.erasedAt IS NULL AND c.status IN ['active', 'disputed']
  AND NOT EXISTS {
    MATCH (c)-[:SUPPORTED_BY]->(t)
    WHERE t.erasedAt IS NULL
  }
WITH c.key AS key, c.privacy AS privacy, collect(c) AS orphans
CALL (key, privacy) {
  MATCH (row:Claim {spaceId: $spaceId, key: key})
  WHERE row.privacy <= privacy
  RETURN max(row.revision) AS head
}
UNWIND range(0, size(orphans) - 1) AS i
WITH orphans[i] AS old, head + i + 1 AS revision
SET old.supersededAt = $now
WITH old, revision
CALL (old) {
  WITH old WHERE old.objectId IS NOT NULL
  MATCH (:Entity {id: old.subjectId})-[relation]->(:Entity {id: old.objectId})
  WHERE relation.claimId = old.id AND relation.supersededAt IS NULL
  SET relation.supersededAt = $now, relation.current = false
}
CREATE (new:Claim)
SET new = old {.*, id: randomUUID(), revision: revision, status: 'retracted', reason: $reason,
               actor: $actor, recordedAt: $now, supersededAt: null,
               toldRank: '0' + substring(old.toldRank, 1, 20) + $nowRank + right(old.toldRank, 6)}
CREATE (new)-[:REVISES {recordedAt: $now}]->(old)
WITH new
OPTIONAL MATCH (subject:Entity {id: new.subjectId})
FOREACH (_ IN CASE WHEN subject IS NULL THEN [] ELSE [1] END |
  CREATE (new)-[:ABOUT {recordedAt: $now}]->(subject))
RETURN new.id AS id
"""
