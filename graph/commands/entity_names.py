"""How a write or a read finds an entity by a name without reading every entity claim of its
space.

Every `entity:` claim carries `spokenNames`: its name and each alias as compared (lowercase
words joined by one space, `graph.domain.memory_types.name_words`), each between newlines
(`memory_types.spoken_names`; a name's `memory_types.name_needle` is what they contain):

    >>> spoken_names(["Ada  Lovelace", "Countess"])
    '\\nada lovelace\\ncountess\\n'
    >>> name_needle("ADA lovelace")
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
  reduce(joined = '', w IN [word IN split(replace(replace(replace(toLower(text), '\\t', ' '),
                                     '\\n', ' '), '\\r', ' '), ' ') WHERE word <> ''] |
         joined + CASE joined WHEN '' THEN '' ELSE ' ' END + w)]
"""

FILL_SPOKEN_NAMES: LiteralString = (
    """
MATCH (c:Claim)
WHERE c.type = 'entity' AND c.erasedAt IS NULL AND c.name IS NOT NULL
  AND c.spokenNames IS NULL
CALL (c) {
  SET c.spokenNames = reduce(spoken = '\\n', name IN """
    + _COMPARED
    + """ | spoken + name + '\\n')
} IN TRANSACTIONS OF 1000 ROWS
"""
)
"""Give the entity claims written before `spokenNames` theirs (what migration V0011 runs; a
restore of an archive made before it runs it again). Batched: an auto-commit transaction."""
