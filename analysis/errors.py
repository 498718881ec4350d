"""The analysis's own errors; both are WismoErrors, which the CLI prints as one line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.errors import RunFormatError, WismoError

if TYPE_CHECKING:
    from analysis.model import RunValidation

__all__ = ["RunFormatError", "RunValidationError"]


class RunValidationError(WismoError):
    """A run failed validation, so its figures are not presented; the message names the failing checks."""

    def __init__(self, validation: RunValidation) -> None:
        failing = [check for check in validation.checks if not check.passed]
        names = ", ".join(f"{check.name} ({check.row_count} row{'s' * (check.row_count != 1)})"
                          for check in failing)
        super().__init__(f"{validation.run.run_dir} fails validation: {names}; "
                         f"`wismo validate {validation.run.run_dir}` lists the rows")
        self.validation = validation
