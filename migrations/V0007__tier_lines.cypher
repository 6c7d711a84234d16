// Writers at different privacy tiers keep separate lines: a claim row is numbered within its tier
// (space, key, privacy, revision), and an entity key may have one node per tier, so a writer
// never collides with — and so never learns of — what lies above its tier.
DROP CONSTRAINT claim_revision IF EXISTS;
CREATE CONSTRAINT claim_tier_revision IF NOT EXISTS FOR (c:Claim) REQUIRE (c.spaceId, c.key, c.privacy, c.revision) IS UNIQUE;
DROP CONSTRAINT entity_key IF EXISTS;
CREATE INDEX entity_space_key IF NOT EXISTS FOR (e:Entity) ON (e.spaceId, e.key);
