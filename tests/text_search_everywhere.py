"""Looking for forgotten content anywhere in the database: every property of every node and
relationship, as text."""

from __future__ import annotations

from typing import LiteralString

from graph.runtime import Graph

NODES_MENTIONING: LiteralString = """
MATCH (n)
WHERE any(k IN keys(n) WHERE
  CASE WHEN n[k] IS :: LIST<ANY> THEN any(x IN n[k] WHERE toString(x) CONTAINS $text)
       ELSE toString(n[k]) CONTAINS $text END)
RETURN labels(n) AS labels, n.id AS id
"""

RELATIONSHIPS_MENTIONING: LiteralString = """
MATCH ()-[r]->()
WHERE type(r) CONTAINS $text
   OR any(k IN keys(r) WHERE
     CASE WHEN r[k] IS :: LIST<ANY> THEN any(x IN r[k] WHERE toString(x) CONTAINS $text)
          ELSE toString(r[k]) CONTAINS $text END)
RETURN type(r) AS type
"""


async def mentions_anywhere(graph: Graph, text: str) -> list[object]:
    """Every node and relationship that still mentions `text` (empty when it is gone)."""
    found: list[object] = list(await graph.read(NODES_MENTIONING, text=text))
    found += await graph.read(RELATIONSHIPS_MENTIONING, text=text)
    return found
