"""The bottom every stage stands on: the version, the errors, the domain and the run format.

`core.errors` (one error base class), `core.domain` (the dataset, the evidence contract, the scorer and
the field and backend names, defined once) and `core.runformat` (the run folder's one definition)
import nothing from `recorder`, `analysis` or `wismo`; every stage above may import them.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
