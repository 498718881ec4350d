"""wismo: the top of the house: the command line (`wismo.cli`), the site generator (`wismo.sitegen`)
and the loopback model servers a user can try faults with (`python -m wismo.loopback`).

What every stage shares lives below them all, in `core` (errors, domain, run format).
"""

from core import __version__

__all__ = ["__version__"]
