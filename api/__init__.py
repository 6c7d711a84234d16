"""Engram's doors, on top of `graph.memory`: the web app (`app`: GraphQL, MCP over HTTP, the
Browser guide and GraphiQL pages, `guards`), the command line (`cli`) and the typed HTTP client
(`client`, which imports nothing of Engram). Modules here import `graph.memory` and
`graph.domain` only, never `graph/` below the door."""
