// Claims written before meaning vectors existed join the embedding outbox.
MATCH (c:Claim)
WHERE c.text IS NOT NULL AND c.erasedAt IS NULL AND NOT (c)-[:MEANS]->()
SET c:Unembedded;
