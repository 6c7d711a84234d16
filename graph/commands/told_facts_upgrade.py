"""Data written before told facts (ENGRAM.md §2), brought up to them: what migration V0015 runs,
and a restore of an archive made before it.

* **Ranks**: every claim row and relation gets its `toldRank` (`graph.domain.timeline.told_rank`)
  from its status, `validFrom`, `recordedAt` and place in its batch (0 then), so a view can
  choose between the told facts of a key by one comparison.
* **Texts as words**: a claim's `text` used to start with its type and key
  (`[fact:fact:person/alice:WORKS_AT]`) and name entities by the slugs of their keys
  (`alice WORKS_AT acme`); it is now what a person reads (`Alice works at Acme Corp`,
  `memory_types.claim_text`). A fact names its entities by their display names and says its
  predicate in words; an entity claim keeps its names; any other claim reads
  `<key parts>: <its summary>`. Captions follow; meaning vectors are kept (the words mean what
  the old text meant).

Every statement is batched (an auto-commit transaction) and idempotent.
"""

from __future__ import annotations

from typing import LiteralString

READABLE_TEXTS: LiteralString = """
MATCH (c:Claim)
WHERE c.erasedAt IS NULL AND c.text STARTS WITH '[' + c.type + ':'
CALL (c) {
  OPTIONAL MATCH (s:Entity {id: c.subjectId})
  OPTIONAL MATCH (o:Entity {id: c.objectId})
  WITH c, s, o, split(c.text, '\\n') AS lines,
       replace(substring(c.key, size(c.type) + 1), ':', ' ') AS about,
       toLower(replace(coalesce(c.predicate, ''), '_', ' ')) AS words
  WITH c, s, o, about, words, CASE WHEN size(lines) > 1 THEN lines[1] ELSE '' END AS said
  WITH c, s, o, about, words, said,
       size(split(said, ' ')[0]) + size(coalesce(c.predicate, '')) + 2 AS valueAt
  WITH c, CASE
      WHEN c.type = 'fact' AND o IS NOT NULL
        THEN coalesce(s.name, s.canonical) + ' ' + words + ' ' + coalesce(o.name, o.canonical)
      WHEN c.type = 'fact'
        THEN coalesce(s.name, s.canonical, split(said, ' ')[0]) + ' ' + words + ' '
             + CASE WHEN valueAt < size(said) THEN substring(said, valueAt) ELSE '' END
      WHEN c.type = 'entity' THEN said
      WHEN said = '' THEN about
      ELSE about + ': ' + said
    END AS text
  SET c.text = trim(text),
      c.caption = CASE WHEN size(trim(text)) <= 120 THEN trim(text)
                       ELSE left(trim(text), 119) + '…' END
} IN TRANSACTIONS OF 1000 ROWS
"""
"""Rewrite every unerased claim text that starts with its type and key."""


def _rank_instant(instant: LiteralString) -> LiteralString:
    """Cypher for `timeline.rank_instant` of a datetime expression (in UTC)."""
    u = f"datetime({{datetime: {instant}, timezone: 'UTC'}})"
    parts = [
        f"right('000' + toString({u}.year), 4)",
        *(
            f"right('0' + toString({u}.{unit}), 2)"
            for unit in ("month", "day", "hour", "minute", "second")
        ),
        f"right('00000' + toString({u}.microsecond), 6)",
    ]
    return " + ".join(parts)


FILL_TOLD_RANKS: LiteralString = (
    """
MATCH (c:Claim)
WHERE c.toldRank IS NULL AND c.recordedAt IS NOT NULL
CALL (c) {
  SET c.toldRank = CASE WHEN c.status IN ['active', 'disputed'] THEN '1' ELSE '0' END
    + CASE WHEN c.validFrom IS NULL THEN '00000000000000000000' ELSE """
    + _rank_instant("c.validFrom")
    + """ END
    + """
    + _rank_instant("c.recordedAt")
    + """ + '000000'
} IN TRANSACTIONS OF 1000 ROWS
"""
)
"""Rank every claim row written before ranks."""

FILL_RELATION_RANKS: LiteralString = """
MATCH (:Entity)-[r]->(:Entity)
WHERE r.claimId IS NOT NULL AND r.toldRank IS NULL
CALL (r) {
  MATCH (c:Claim {id: r.claimId})
  SET r.toldRank = c.toldRank
} IN TRANSACTIONS OF 1000 ROWS
"""
"""Give every relation written before ranks its claim's rank."""
