"""Engram's doors, on top of `graph.memory`: the web app (`app`: GraphQL, MCP over HTTP, the
Browser guide and GraphiQL pages with GraphiQL's assets, `guards`), the command line (`cli`) and
the typed HTTP client (`client`, which imports nothing of Engram). Modules here import
`graph.memory`, `graph.runtime` (settings, the Neo4j target) and `graph.domain` only, never
`graph/` below them."""
