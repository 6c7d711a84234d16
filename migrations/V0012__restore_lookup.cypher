// A restore finds the nodes it loaded by the key they had in the archive (graph/jobs/restore.py).
// The index lives with the schema, on a label only a restore in progress uses, so a restore
// changes no schema: creating and dropping it per restore emptied Neo4j's plan cache twice, and
// every query after it was planned again (3–4 s of a small restore).
CREATE INDEX engram_restoring IF NOT EXISTS FOR (n:EngramRestoring) ON (n.restoreKey);
