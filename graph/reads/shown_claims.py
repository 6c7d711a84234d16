"""How a claim read in a view comes back: its projection (instants as strings, see
`graph.domain.timeutil.to_native`) with the evidence of it visible in the view, and, for a claim
the view shows (`visibility.holds`), its valid interval as the part of its told one it is shown
on (`visibility.held_bounds`)."""

from __future__ import annotations

from typing import LiteralString

from graph.reads.visibility import held_bounds, visible
from graph.store.rows import CLAIM_PROJECTION, EVIDENCE_PROJECTION

SHOWN_CLAIM_PROJECTION: LiteralString = (
    held_bounds("c")
    + """
RETURN c {.id, .spaceId, .key, .revision, .type, .subjectId, .predicate, .objectId, .valueJson,
  .text, .status, .confidence, .importance, .privacy, .pinned, .reason, .actor,
  validFrom: toString(cHeldFrom), validTo: toString(cHeldTo),
  recordedAt: toString(c.recordedAt), supersededAt: toString(c.supersededAt)}"""
)
"""`RETURN` of a claim `c` shown in a view (`holds`), its valid interval the part of its told one
it is shown on around `asOf` (`held_bounds`); the caller names it (`… AS claim`)."""

_VISIBLE_EVIDENCE: LiteralString = (
    """
OPTIONAL MATCH (c)-[e:SUPPORTED_BY|CONTRADICTED_BY|CORRECTED_BY]->(t)
WHERE """
    + visible("e")
    + " AND "
    + visible("t")
    + """
WITH c, collect(CASE WHEN t IS NULL THEN NULL ELSE """
    + EVIDENCE_PROJECTION
    + """ END) AS evidence
"""
)

CLAIM_WITH_VISIBLE_EVIDENCE: LiteralString = (
    _VISIBLE_EVIDENCE + "RETURN " + CLAIM_PROJECTION + " AS claim, evidence\n"
)
"""Follows a match of claim `c`: the claim and the evidence of it visible in the view."""

SHOWN_CLAIM_WITH_VISIBLE_EVIDENCE: LiteralString = (
    _VISIBLE_EVIDENCE + SHOWN_CLAIM_PROJECTION + " AS claim, evidence\n"
)
"""`CLAIM_WITH_VISIBLE_EVIDENCE` for a claim `c` shown in the view (`holds`): its interval the
part it is shown on."""
