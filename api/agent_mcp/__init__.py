"""Engram's MCP server: the tools (`mcp_tools`), their arguments and answers, and the HTTP and
stdio transports (`mcp_server`). Named `agent_mcp` so that `import mcp` is always the SDK."""
