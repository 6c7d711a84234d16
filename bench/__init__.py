"""Benchmarks, on demand, never timed tests: each path of Engram measured beside its floor (the
fastest raw Cypher or transaction doing the same work) in the same run, results written to
`bench/results/`. Reaches graph/ only through the door (`graph.memory`, `graph.runtime`, the
domain), as api/ does; its raw floors run their own Cypher on `memory.graph`."""
