// Uniqueness constraints for Engram's concepts (Community Edition: no existence or key
// constraints, so "required" is enforced by the commands, and re-checked by the tests).
CREATE CONSTRAINT space_id IF NOT EXISTS FOR (s:Space) REQUIRE s.id IS UNIQUE;
CREATE CONSTRAINT space_name IF NOT EXISTS FOR (s:Space) REQUIRE s.name IS UNIQUE;
CREATE CONSTRAINT clock_name IF NOT EXISTS FOR (c:Clock) REQUIRE c.name IS UNIQUE;
CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE;
CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE (e.spaceId, e.key) IS UNIQUE;
CREATE CONSTRAINT claim_id IF NOT EXISTS FOR (c:Claim) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT claim_revision IF NOT EXISTS FOR (c:Claim) REQUIRE (c.spaceId, c.key, c.revision) IS UNIQUE;
CREATE CONSTRAINT episode_id IF NOT EXISTS FOR (e:Episode) REQUIRE e.id IS UNIQUE;
CREATE CONSTRAINT observation_id IF NOT EXISTS FOR (o:Observation) REQUIRE o.id IS UNIQUE;
CREATE CONSTRAINT artifact_id IF NOT EXISTS FOR (a:Artifact) REQUIRE a.id IS UNIQUE;
CREATE CONSTRAINT tombstone_id IF NOT EXISTS FOR (t:Tombstone) REQUIRE t.id IS UNIQUE;
CREATE CONSTRAINT audit_id IF NOT EXISTS FOR (a:AuditEvent) REQUIRE a.id IS UNIQUE;
// An idempotency key is unique within its space: a replay finds the first write's audit event.
CREATE CONSTRAINT audit_idempotency IF NOT EXISTS FOR (a:AuditEvent) REQUIRE (a.spaceId, a.idempotencyKey) IS UNIQUE;
