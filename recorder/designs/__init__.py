"""The designs a run records: choosing them, reaching their MCP servers, and comparing their records."""
