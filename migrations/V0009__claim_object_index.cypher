// Search follows claims to an entity as their object too (a fact about Acme is found by "Acme"
// when Acme is its object): that lookup needs the objectId anchored like subjectId is.
CREATE INDEX claim_object IF NOT EXISTS FOR (c:Claim) ON (c.objectId);
