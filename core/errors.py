"""The one error family wismo raises for problems a user can fix; every stage uses it.

The CLI catches a WismoError, prints its message on one line and exits 2: users never see a
traceback for their own mistakes (bad input, bad options, a run folder that cannot be read).
"""


class WismoError(Exception):
    """A problem the user can fix; the CLI prints its message on one line and exits with `exit_code`."""

    exit_code = 2


class DatasetError(WismoError):
    """A dataset file is missing, unreadable or does not follow the record shapes."""


class RunFormatError(WismoError):
    """A run folder is missing files or holds lines wismo cannot read."""
