// A write that names an entity (`{name: "Ada Lovelace", kind: person}`) finds it by a text index
// seek on its claims' `spokenNames` (graph/commands/entity_names.py) instead of reading every
// current entity claim of the space; evidence text finds the writer's session episode by index.
CREATE TEXT INDEX claim_spoken_names IF NOT EXISTS FOR (c:Claim) ON (c.spokenNames);
CREATE INDEX episode_session IF NOT EXISTS FOR (e:Episode) ON (e.spaceId, e.sessionKey);
// The entity claims written before: their names and aliases as compared (lowercase words joined
// by one space), each between newlines. Batched; a claim that has them already is left alone.
MATCH (c:Claim)
WHERE c.type = 'entity' AND c.erasedAt IS NULL AND c.name IS NOT NULL
  AND c.spokenNames IS NULL
CALL (c) {
  SET c.spokenNames = reduce(spoken = '\n', name IN
[text IN [c.name] + coalesce(c.aliases, []) |
  reduce(joined = '', w IN [word IN split(replace(replace(replace(toLower(text), '\t', ' '),
                                     '\n', ' '), '\r', ' '), ' ') WHERE word <> ''] |
         joined + CASE joined WHEN '' THEN '' ELSE ' ' END + w)]
 | spoken + name + '\n')
} IN TRANSACTIONS OF 1000 ROWS;
