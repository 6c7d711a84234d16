// Indexes for forgetting: claims by object, holds and tombstones by space, blobs by locator.
CREATE INDEX claim_object IF NOT EXISTS FOR (c:Claim) ON (c.objectId);
CREATE INDEX artifact_locator IF NOT EXISTS FOR (a:Artifact) ON (a.locator);
CREATE INDEX legal_hold_space IF NOT EXISTS FOR (h:LegalHold) ON (h.spaceId);
CREATE INDEX tombstone_space_at IF NOT EXISTS FOR (t:Tombstone) ON (t.spaceId, t.watermark);
CREATE CONSTRAINT legal_hold_id IF NOT EXISTS FOR (h:LegalHold) REQUIRE h.id IS UNIQUE;
