"""How a write or a read finds an entity by a name without reading every entity claim of its
space.

Every `entity:` claim carries `spokenNames`: its name and each alias as compared (folded:
lowercase words joined by one space, `-` and `_` between words like spaces —
`graph.domain.memory_types.name_words`), each between newlines
(`memory_types.spoken_names`; a name's `memory_types.name_needle` is what they contain):

    spoken_names(["Ada  Lovelace", "Countess"])
    '\\nada lovelace\\ncountess\\n'
    name_needle("ADA lovelace")
    '\\nada lovelace\\n'

A name is one of a claim's names exactly when the claim's `spokenNames` contains the name's
needle (a compared name holds no newline), and a text index (`claim_spoken_names`,
migrations/V0011) answers that `CONTAINS` by a seek, not a scan. It is a copy of the claim's
own names, written with them and erased with them (`graph.erasure.engine`).
"""

from __future__ import annotations

from typing import LiteralString

_COMPARED: LiteralString = """
[text IN [c.name] + coalesce(c.aliases, []) |
  reduce(joined = '', w IN [word IN split(
      replace(replace(replace(replace(replace(toLower(text), '\\t', ' '), '\\n', ' '), '\\r', ' '),
              '-', ' '), '_', ' '), ' ') WHERE word <> ''] |
         joined + CASE joined WHEN '' THEN '' ELSE ' ' END + w)]
"""

REFOLD_SPOKEN_NAMES: LiteralString = (
    """
MATCH (c:Claim)
WHERE c.type = 'entity' AND c.erasedAt IS NULL AND c.name IS NOT NULL
CALL (c) {
  WITH c, reduce(spoken = '\\n', name IN """
    + _COMPARED
    + """ | spoken + name + '\\n') AS spoken
  WITH c, spoken WHERE c.spokenNames IS NULL OR c.spokenNames <> spoken
  SET c.spokenNames = spoken
} IN TRANSACTIONS OF 1000 ROWS
"""
)
"""Give every entity claim its `spokenNames` as names fold now (case, runs of spaces, `-` and `_`
alike: `memory_types.name_words`), where it has none or an older folding's (what migration V0015
runs, and a restore after it, for archives made before). Batched: an auto-commit transaction;
applied again, it changes nothing."""
