"""wismo's first stage: the dataset, the MCP tool servers, the agent loop and the raw run writer."""

__version__ = "0.1.0"
