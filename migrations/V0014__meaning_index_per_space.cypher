// Meaning vectors are searched per space (graph/meaning/space_indexes.py): exactly while a space
// is small, in a vector index of the space's own once it holds 1000 vectors. The one index for
// all spaces is gone: beside a big space, it let a small space's nearest vectors be crowded out
// (Neo4j 5.26 cannot filter inside a vector index), and every vector paid for its upkeep.
DROP INDEX claim_meaning IF EXISTS;
CREATE CONSTRAINT meaning_index_space IF NOT EXISTS
FOR (ix:MeaningIndex) REQUIRE ix.spaceId IS UNIQUE;
