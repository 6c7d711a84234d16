"""The local Neo4j Engram starts on demand when no NEO4J_URI is set: its jars from Maven Central,
its settings (the Browser's among them), the launcher and the running server. Imports `domain`
and `graph.store.settings` only."""

from graph.store.local.server import LocalNeo4j, RunningNeo4j

__all__ = ["LocalNeo4j", "RunningNeo4j"]
