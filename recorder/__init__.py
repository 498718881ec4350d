"""wismo's first stage: serves the dataset through MCP tool designs, runs the agent loop, writes raw runs.

Subpackages by subject: `servers` (the built-in MCP designs), `agent` (the loop), `providers` (model
APIs and the scripted policy), `designs` (choosing, reaching and comparing designs), `run` (record,
manifest, resume) and `doctor`; `generate` writes synthetic datasets.
"""
