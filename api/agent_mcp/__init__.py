"""Engram's MCP server: the tools (`tools`, `change_tools`, sharing `tool_context`), their
arguments and answers (`arguments`, `results`), and the HTTP and stdio transports
(`transports`). Named `agent_mcp` so that `import mcp` is always the SDK."""
