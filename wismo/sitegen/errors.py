"""The site's errors: both are WismoErrors, so the CLI prints one line instead of a traceback."""

from __future__ import annotations

from core.errors import WismoError


class SiteError(WismoError):
    """The site cannot be built from what it was given (bad output folder, duplicate runs, unsafe chart)."""


class ReviewsError(SiteError):
    """An exported reviews file cannot be read: not JSON, wrong version, or an entry of the wrong shape."""


class SiteWriteError(SiteError):
    """The site could not be written (a read-only folder, a full disk); apart from a failed validation (1)."""

    exit_code = 3
