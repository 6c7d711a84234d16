"""Neo4j itself: the driver and its transactions (`db`), migrations, rows as records, integrity
rules, neomodel's administrative nodes, and the local Neo4j started on demand (`local`).
Imports `domain` only."""
