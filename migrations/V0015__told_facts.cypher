// Told facts (ENGRAM.md §2), for data written before them (graph/commands/told_facts_upgrade.py):
// names fold one way — case, runs of spaces, `-` and `_` alike — so every entity claim's
// `spokenNames` is folded again (graph/commands/entity_names.py); every claim row and relation
// gets its `toldRank`, which a view compares to choose between the told facts of a key; and a
// claim's text is its words, never its key. All batched and idempotent: a run that stopped
// midway is simply applied again. Keys are kept as they are: a key is an identity, and a lookup
// by name folds whatever key its entity has.
MATCH (c:Claim)
WHERE c.type = 'entity' AND c.erasedAt IS NULL AND c.name IS NOT NULL
CALL (c) {
  WITH c, reduce(spoken = '\n', name IN 
[text IN [c.name] + coalesce(c.aliases, []) |
  reduce(joined = '', w IN [word IN split(
      replace(replace(replace(replace(replace(toLower(text), '\t', ' '), '\n', ' '), '\r', ' '),
              '-', ' '), '_', ' '), ' ') WHERE word <> ''] |
         joined + CASE joined WHEN '' THEN '' ELSE ' ' END + w)]
 | spoken + name + '\n') AS spoken
  WITH c, spoken WHERE c.spokenNames IS NULL OR c.spokenNames <> spoken
  SET c.spokenNames = spoken
} IN TRANSACTIONS OF 1000 ROWS;
MATCH (c:Claim)
WHERE c.toldRank IS NULL AND c.recordedAt IS NOT NULL
CALL (c) {
  SET c.toldRank = CASE WHEN c.status IN ['active', 'disputed'] THEN '1' ELSE '0' END
    + CASE WHEN c.validFrom IS NULL THEN '00000000000000000000' ELSE right('000' + toString(datetime({datetime: c.validFrom, timezone: 'UTC'}).year), 4) + right('0' + toString(datetime({datetime: c.validFrom, timezone: 'UTC'}).month), 2) + right('0' + toString(datetime({datetime: c.validFrom, timezone: 'UTC'}).day), 2) + right('0' + toString(datetime({datetime: c.validFrom, timezone: 'UTC'}).hour), 2) + right('0' + toString(datetime({datetime: c.validFrom, timezone: 'UTC'}).minute), 2) + right('0' + toString(datetime({datetime: c.validFrom, timezone: 'UTC'}).second), 2) + right('00000' + toString(datetime({datetime: c.validFrom, timezone: 'UTC'}).microsecond), 6) END
    + right('000' + toString(datetime({datetime: c.recordedAt, timezone: 'UTC'}).year), 4) + right('0' + toString(datetime({datetime: c.recordedAt, timezone: 'UTC'}).month), 2) + right('0' + toString(datetime({datetime: c.recordedAt, timezone: 'UTC'}).day), 2) + right('0' + toString(datetime({datetime: c.recordedAt, timezone: 'UTC'}).hour), 2) + right('0' + toString(datetime({datetime: c.recordedAt, timezone: 'UTC'}).minute), 2) + right('0' + toString(datetime({datetime: c.recordedAt, timezone: 'UTC'}).second), 2) + right('00000' + toString(datetime({datetime: c.recordedAt, timezone: 'UTC'}).microsecond), 6) + '000000'
} IN TRANSACTIONS OF 1000 ROWS;
MATCH (:Entity)-[r]->(:Entity)
WHERE r.claimId IS NOT NULL AND r.toldRank IS NULL
CALL (r) {
  MATCH (c:Claim {id: r.claimId})
  SET r.toldRank = c.toldRank
} IN TRANSACTIONS OF 1000 ROWS;
MATCH (c:Claim)
WHERE c.erasedAt IS NULL AND c.text STARTS WITH '[' + c.type + ':'
CALL (c) {
  OPTIONAL MATCH (s:Entity {id: c.subjectId})
  OPTIONAL MATCH (o:Entity {id: c.objectId})
  WITH c, s, o, split(c.text, '\n') AS lines,
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
} IN TRANSACTIONS OF 1000 ROWS;
