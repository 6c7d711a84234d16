"""Engram's MCP server: the tools (`mcp_tools`, `mcp_changes`, sharing `mcp_calls`), their
arguments and answers (`mcp_arguments`, `mcp_results`), and the HTTP and stdio transports
(`mcp_server`). Named `agent_mcp` so that `import mcp` is always the SDK."""
