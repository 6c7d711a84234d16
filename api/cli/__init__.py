"""The `engram` command: serving, spaces and keys, the local Neo4j, memory from a terminal,
import/export, backup/restore, retention. Commands import what they run when they run, so
`--help` stays quick; they reach graph/ through `graph.memory`."""
