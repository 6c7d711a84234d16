// Range indexes that anchor the hot reads, and full-text indexes for search.
CREATE INDEX claim_space_key IF NOT EXISTS FOR (c:Claim) ON (c.spaceId, c.key);
CREATE INDEX claim_space_type IF NOT EXISTS FOR (c:Claim) ON (c.spaceId, c.type);
CREATE INDEX claim_subject IF NOT EXISTS FOR (c:Claim) ON (c.subjectId);
CREATE INDEX claim_recorded IF NOT EXISTS FOR (c:Claim) ON (c.spaceId, c.recordedAt);
CREATE INDEX episode_space_status IF NOT EXISTS FOR (e:Episode) ON (e.spaceId, e.status);
CREATE INDEX observation_episode IF NOT EXISTS FOR (o:Observation) ON (o.episodeId, o.seq);
CREATE INDEX audit_space_at IF NOT EXISTS FOR (a:AuditEvent) ON (a.spaceId, a.at);
CREATE INDEX tombstone_fingerprint IF NOT EXISTS FOR (t:Tombstone) ON (t.spaceId, t.fingerprint);
// spaceId is indexed with the text so a search asks Lucene for one space's candidates only.
CREATE FULLTEXT INDEX claim_text IF NOT EXISTS FOR (c:Claim) ON EACH [c.text, c.spaceId];
CREATE FULLTEXT INDEX observation_text IF NOT EXISTS FOR (o:Observation) ON EACH [o.content, o.spaceId];
