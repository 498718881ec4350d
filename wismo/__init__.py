"""wismo: measure where evidence gathering belongs in an MCP support agent.

The package root holds only what every stage shares: the version, the errors (`wismo.errors`) and
the raw run format (`wismo.runformat`). The stages are the packages `recorder` → `analysis` →
`wismo.sitegen`; `wismo.cli` is the command line over all of them.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
