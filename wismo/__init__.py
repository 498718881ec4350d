"""wismo's command line and its last stage, the static site renderer."""

from recorder import __version__

__all__ = ["__version__"]
