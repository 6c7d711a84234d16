"""Meaning vectors: the packaged MiniLM model, the outbox that embeds claims after their writes,
and each space's own vector index. Imports `store` and `domain`."""
