"""One writer per run folder: an exclusive lock held for the whole life of record, resume, score and claims.

The lock is an advisory `flock` on `<run>/.wismo-lock`. The kernel drops it when its holder exits,
however it exits (SIGKILL included), so a lock left by a killed process is never stuck: the next
writer takes it and overwrites the holder details. While it is held, the file names the holder (pid,
host, command, since when) so a second writer can refuse with one line that says who has the run.
A process that already holds the lock may take it again (nested use, e.g. record's claim check).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from core.errors import WismoError
from core.runformat import LOCK_FILE


class RunLocked(WismoError):
    """Another process is writing to this run folder."""


# run folder (resolved) -> (file descriptor, depth): the locks this process holds.
_HELD: dict[Path, tuple[int, int]] = {}


def holder_description(run_dir: Path) -> str:
    """Who holds (or last held) the lock, as the lock file tells it."""
    try:
        holder = json.loads((run_dir / LOCK_FILE).read_text(encoding="utf-8"))
        return (f"pid {holder['pid']} on {holder['host']} since {holder['since']} "
                f"({holder.get('command') or 'wismo'})")
    except (OSError, ValueError, KeyError, TypeError):
        return "another process (it has not written its details yet)"


def writer_of(run_dir: Path) -> str | None:
    """Who is writing this run now (another process holding its lock), or None; takes no lock, creates nothing."""
    key = Path(run_dir).resolve()
    if key in _HELD:
        return None  # this process is the writer (record's own checks read the run it writes)
    try:
        fd = os.open(key / LOCK_FILE, os.O_RDONLY)
    except OSError:
        return None  # no lock file: nobody has written to it since locks existed
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return holder_description(key)
    except OSError:
        return None
    finally:
        os.close(fd)  # closing releases a shared lock taken just now
    return None


@contextlib.contextmanager
def run_lock(run_dir: Path, command: str) -> Iterator[None]:
    """Hold the run folder's lock; raise RunLocked at once, naming the holder, when another process has it."""
    key = Path(run_dir).resolve()
    if key in _HELD:
        fd, depth = _HELD[key]
        _HELD[key] = (fd, depth + 1)
        try:
            yield
        finally:
            fd, depth = _HELD[key]
            _HELD[key] = (fd, depth - 1)
        return
    path = key / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise WismoError(f"cannot lock {path}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise RunLocked(f"{run_dir} is being written by {holder_description(key)}; wait for it to finish "
                        "(only one record, resume, score or claims may write to a run at a time)") from None
    try:
        details = {"pid": os.getpid(), "host": socket.gethostname(), "command": command,
                   "since": datetime.now(UTC).isoformat(timespec="seconds")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(details) + "\n").encode("utf-8"), 0)
    except OSError:
        pass  # a full disk must not stop the lock from working; the holder is then just unnamed
    _HELD[key] = (fd, 1)
    try:
        yield
    finally:
        fd, _ = _HELD.pop(key)
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)  # no holder any more
        os.close(fd)  # closing the descriptor releases the flock
