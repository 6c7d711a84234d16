// Meaning vectors of claims (all-MiniLM-L6-v2, 384 dimensions, unit length): the vector half of
// search. One (:Meaning) node per embedded claim revision, derived data, erased with the claim.
CREATE VECTOR INDEX claim_meaning IF NOT EXISTS
FOR (m:Meaning) ON (m.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};
CREATE INDEX meaning_space IF NOT EXISTS FOR (m:Meaning) ON (m.spaceId);
