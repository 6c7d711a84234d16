"""Engram's tests, as specifications: through the door (`graph.memory`, `graph.runtime`, the
domain) or a face in api/ (GraphQL, MCP, the CLI, the client), against a real Neo4j; the fast
tier (`pytest.mark.fast`, `./scripts/test --fast`) is pure logic without Neo4j. The few modules
that reach below the door say why in `tests/test_layout.py`. Shared helpers (stories, HTTP,
models written from the spec) live beside the tests; nothing in graph/ or api/ imports them."""

import os

# Every row any query of a test returns (in this process and in the servers it starts) is
# checked to hold plain data only, as graph.store.db reads rows without Record.data's walk.
os.environ.setdefault("ENGRAM_CHECK_ROWS", "1")
