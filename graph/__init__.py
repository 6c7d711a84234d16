"""Engram's memory on Neo4j, in floors that import only downwards: `domain` (records, rules,
errors; imports nothing), `store` (the driver, migrations, the local Neo4j), `meaning`
(vectors), `reads` (views and the visibility predicate), `commands` (writes as an actor),
`erasure` (forgetting), `jobs` (import, export, backup, retention) — and on top the door,
`graph.memory` (a `Memory` reached by role, one module each: `memory_reads`, `memory_writes`,
`memory_forgetting`, `memory_admin`), with `graph.runtime` beside it (settings, the Neo4j
target, migrations, the Browser's guide queries): the only modules the doors in api/ import
besides `domain`. Cypher lives here, as named constants."""
