"""The agent surface: the JSON contract's schemas (schemas.py), the tools an MCP client calls (tools.py), the
in-process run of the CLI they rest on (run.py) and the MCP server (server.py, the only module that imports the
`mcp` SDK). Nothing here is imported by the other commands."""
