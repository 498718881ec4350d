"""The one error family wismo raises for problems a user can fix (bad input, bad options)."""


class WismoError(Exception):
    """A problem the user can fix; the CLI prints its message on one line and exits non-zero."""


class DatasetError(WismoError):
    """A dataset file is missing, unreadable or does not follow the record shapes."""


class RunFormatError(WismoError):
    """A run folder is missing files or holds lines wismo cannot read."""
