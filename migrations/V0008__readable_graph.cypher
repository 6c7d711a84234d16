// Display copies for people in Neo4j Browser, filled in for what was written before them:
// entities get their kind as a label and their current name, claims a caption, relations a
// `current` flag. The truth stays in the claims; erasure removes these copies with it.
MATCH (e:Entity)
WHERE e.erasedAt IS NULL AND e.kind IN ['person', 'org', 'project', 'repo', 'file', 'url', 'topic', 'other']
SET e:$(toUpper(substring(e.kind, 0, 1)) + substring(e.kind, 1));
MATCH (e:Entity)
WHERE e.erasedAt IS NULL AND e.name IS NULL
CALL (e) {
  OPTIONAL MATCH (c:Claim {subjectId: e.id})
  WHERE c.type = 'entity' AND c.supersededAt IS NULL AND c.erasedAt IS NULL
    AND c.status IN ['active', 'disputed'] AND c.privacy <= e.privacy
    AND (c.validFrom IS NULL OR c.validFrom <= datetime())
    AND (c.validTo IS NULL OR datetime() < c.validTo)
  WITH c ORDER BY c.validFrom DESC, c.recordedAt DESC, c.revision DESC
  RETURN head(collect(c.name)) AS name
}
SET e.name = coalesce(name, e.canonical);
MATCH (c:Claim)
WHERE c.erasedAt IS NULL AND c.caption IS NULL AND c.text IS NOT NULL
WITH c, split(c.text, '\n') AS lines
SET c.caption = CASE WHEN size(lines) > 1 THEN left(lines[1], 120) ELSE left(c.text, 120) END;
MATCH (:Entity)-[r]->(:Entity)
WHERE r.claimId IS NOT NULL AND r.current IS NULL
SET r.current = r.supersededAt IS NULL;
