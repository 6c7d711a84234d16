"""What a person sees in Neo4j Browser: entities named and labelled by kind, claims captioned.

The bi-temporal truth stays where it is (an entity's names are its `entity:` claims, a claim's
content its value); these are display copies kept current by the writes that change them, and
erased with the content they show:

* an entity carries its current display `name` — the newest current `entity:` claim valid now,
  at or below the entity's own tier, else its canonical slug — and its kind as a second label
  (`:Person`, `:Org`, …) so Browser colours it;
* a claim carries a short one-line `caption` (`alice WORKS_AT acme`: the slugs of its own key,
  never another claim's name, so forgetting a name or reading below a tier finds none);
* a relation edge carries `current` (false once superseded), so a Browser query can draw the
  current graph only.
"""

from __future__ import annotations

from typing import LiteralString

from graph.commands.writing import WriteContext
from graph.domain.vocabulary import EntityKind, MemoryType

MAX_CAPTION = 120

KIND_LABELS: dict[str, str] = {kind.value: kind.value.title() for kind in EntityKind}
"""The second label of an entity per kind — the allow-list checked before a label is spliced."""

ENTITY_KIND_LABELS: LiteralString = ":Person:Org:Project:Repo:File:Url:Topic:Other"
"""Every kind label, for removing them all when an entity is erased (a literal, since it is
spliced into Cypher; checked against the allow-list below)."""
if "".join(f":{label}" for label in KIND_LABELS.values()) != ENTITY_KIND_LABELS:
    raise RuntimeError("ENTITY_KIND_LABELS must list every EntityKind's label")

REFRESH_DISPLAY_NAMES: LiteralString = """
UNWIND $namedEntityIds AS id
MATCH (e:Entity {id: id})
WHERE e.erasedAt IS NULL
CALL (e) {
  OPTIONAL MATCH (c:Claim {subjectId: e.id})
  WHERE c.type = 'entity' AND c.supersededAt IS NULL AND c.erasedAt IS NULL
    AND c.status IN ['active', 'disputed'] AND c.privacy <= e.privacy
    AND (c.validFrom IS NULL OR c.validFrom <= $now) AND (c.validTo IS NULL OR $now < c.validTo)
  // The told name shown now (graph.domain.timeline): the latest start (an open start is the
  // earliest), then the later told.
  WITH c ORDER BY c.validFrom IS NOT NULL DESC, c.validFrom DESC, c.recordedAt DESC,
                  coalesce(c.toldSeq, 0) DESC
  RETURN head(collect(c.name)) AS name
}
SET e.name = coalesce(name, e.canonical)
"""


def kind_label(kind: str) -> str:
    """The label for an entity kind; ValueError for anything outside the allow-list."""
    label = KIND_LABELS.get(kind)
    if label is None:
        raise ValueError(f"not an entity kind: {kind!r}")
    return label


def caption(memory_type: MemoryType, summary: str) -> str:
    """A claim's one-line caption: its readable summary, cut to fit a node."""
    line = " ".join(summary.split()) or str(memory_type)
    return line if len(line) <= MAX_CAPTION else line[: MAX_CAPTION - 1] + "…"


async def refresh_display_names(ctx: WriteContext, entity_ids: set[str]) -> None:
    """Set the display name of entities whose `entity:` claims this transaction changed."""
    if entity_ids:
        await ctx.run(REFRESH_DISPLAY_NAMES, namedEntityIds=sorted(entity_ids))
