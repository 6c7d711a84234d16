"""The local Neo4j Engram starts on demand when no NEO4J_URI is set."""

from graph.store.local.server import LocalNeo4j, RunningNeo4j

__all__ = ["LocalNeo4j", "RunningNeo4j"]
