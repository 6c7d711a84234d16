// Fact claims written before now also name a multi-word predicate in words, as
// graph/domain/memory_types.retrieval_text writes them (`HEAD_OF_STATE` → "head of state"):
// Lucene keeps `head_of_state` one token, so "head of state" found nothing. Batched (one
// auto-commit transaction per 1000 claims); a claim that already ends with the words is left
// alone, so a run that stopped midway is simply applied again. Erased claims have no text.
MATCH (c:Claim)
WHERE c.type = 'fact' AND c.erasedAt IS NULL AND c.text IS NOT NULL
  AND c.predicate CONTAINS '_'
  AND NOT c.text ENDS WITH '\n' + toLower(replace(c.predicate, '_', ' '))
CALL (c) {
  SET c.text = c.text + '\n' + toLower(replace(c.predicate, '_', ' '))
} IN TRANSACTIONS OF 1000 ROWS;
