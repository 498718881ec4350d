"""The site's output folder: a build deletes only the files it wrote itself, listed in the folder's marker.

Every build writes `.wismo-site`, a JSON list of the files it wrote. The next build into the same
folder replaces or deletes exactly those, and refuses a folder that holds a recorded run (a manifest.json
or an events.jsonl anywhere in it) or any file no build listed, so a run or a user's file is never lost.

The marker is read as untrusted: anyone can plant one in a shared or downloaded folder. A marker
that is not a JSON object with a list of files (empty, `{}`, text from an old build) means the folder
is not known to be wismo's, so it is refused, never removed wholesale; and a listed name is replaced or
deleted only when it stays inside the folder (no `..`, no absolute path, no symlink on the way) and is a
kind of file a build writes (pages, styles, scripts). Any other name refuses the whole build, naming it.

A rebuild writes each page over the previous build's file of the same name and, once it is done (or has
failed), deletes the previous files it did not write again: the folder then holds this build's files
alone, as if the old ones had been deleted first. Writing into a file keeps its inode and its blocks,
where deleting it and creating it anew costs the file system far more (on the ext4 of the VM the
benchmarks ran on: 0.15-0.7 ms of kernel time to create a file, up to 3 ms of waiting to delete or
truncate one, against 0.02 ms to write over one; a site of 10,000 conversations has 11,700 files). No page
is ever written through a symlink (O_NOFOLLOW).

A build marks the folder as being built before it writes a page (`"building": true`), so a build
killed half-way (kill -9, a power cut) leaves a folder the next build recognises as its own: the site
files in it are replaced or deleted as if listed. That gives a planted marker no more power than listing
every site file by name already gives it; any other file still refuses the build.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Collection
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath

from core.runformat import EVENTS_FILE, MANIFEST_FILE
from wismo.sitegen.errors import SiteError

MARKER = ".wismo-site"
MARKER_TEMPORARY_PREFIX = MARKER + ".tmp"
SHOWN = 3
# Every file a build writes is one of these (pages, the static styles and scripts, the imported reviews
# script); a marker listing anything else did not come from a build.
WRITTEN_SUFFIXES = frozenset({".html", ".css", ".js"})
# Deleting thousands of files one after the other waits on the file system's journal for each (30 s for
# 11,700 files on that VM); a few threads deleting at once take a twentieth of that.
DELETING_THREADS = 8
# No O_TRUNC (write_file cuts the file after writing); O_NONBLOCK so that a FIFO planted where a page goes cannot
# block the build (it has no effect on a plain file).
_WRITE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
                | getattr(os, "O_CLOEXEC", 0))


def _walk(out: Path) -> tuple[set[str], list[Path]]:
    """In one pass over the folder (symlinked folders not entered): every file or symlink but the marker's, as
    names relative to it, and the folders holding a recorded run's manifest.json or events.jsonl."""
    files: set[str] = set()
    runs: set[Path] = set()
    pending = [(out, "")]
    while pending:
        folder, prefix = pending.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name in (MANIFEST_FILE, EVENTS_FILE):
                    runs.add(folder)
                if entry.is_dir(follow_symlinks=False):
                    pending.append((Path(entry.path), f"{prefix}{entry.name}/"))
                elif (entry.is_symlink() or entry.is_file()) and not entry.name.startswith(MARKER):
                    files.add(prefix + entry.name)
    return files, sorted(runs)


def _files(out: Path) -> set[str]:
    return _walk(out)[0]


class _Checker:
    """Why a name (from the marker, or found in the folder) must not be replaced or deleted, or None.

    Each folder on the way is checked once for all the names under it (a site holds thousands of files in
    a few folders): no symlink anywhere on the way, and it resolves to where its name says, inside the folder.
    """

    def __init__(self, out: Path) -> None:
        self.out = out
        self.resolved = out.resolve()
        self.folders: dict[PurePosixPath, str | None] = {PurePosixPath("."): None}

    def _folder(self, folder: PurePosixPath) -> str | None:
        if folder not in self.folders:
            reason = self._folder(folder.parent)
            path = self.out / folder
            if reason is None and path.is_symlink():  # a symlink anywhere on the way could lead out of the folder
                reason = "is a symlink"
            if reason is None and path.resolve() != self.resolved.joinpath(*folder.parts):
                reason = "resolves outside the folder"
            self.folders[folder] = reason
        return self.folders[folder]

    def unsafe(self, name: str) -> str | None:
        """Why `name` must not be touched in the folder, or None when it is a file a build wrote there."""
        relative = PurePosixPath(name)
        if not name or relative.is_absolute() or "\\" in name or ".." in relative.parts or ":" in name:
            return "is not a plain name inside the folder"
        if relative.suffix not in WRITTEN_SUFFIXES:
            return "is not a kind of file a site build writes"
        reason = self._folder(relative.parent)
        if reason is not None:
            return reason
        try:
            mode = os.lstat(self.out / relative).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return None
        if stat.S_ISLNK(mode):
            return "is a symlink"
        return None if stat.S_ISREG(mode) else "is not a file"


def _unsafe(out: Path, name: str) -> str | None:
    """Why `name` (from the marker) must not be deleted from `out`, or None when it is a file a build wrote there."""
    return _Checker(out).unsafe(name)


def _listed(out_dir: Path, out: Path) -> set[str]:
    """The files the marker lists, each checked safe to delete; a SiteError for a marker no build wrote."""
    marker = out / MARKER
    if marker.is_symlink() or not marker.is_file():
        raise SiteError(f"{out_dir} is not empty and was not built by wismo; choose another --out or empty it")
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SiteError(f"{out_dir / MARKER} is not a marker wismo wrote ({type(error).__name__}); nothing was "
                        "deleted: choose another --out or empty the folder yourself") from None
    files = data.get("files") if isinstance(data, dict) else None
    if isinstance(data, dict) and data.get("building") is True and files == []:
        # A build that never finished: the site files it left (checked like listed names) are its own.
        checker = _Checker(out)
        return {name for name in _files(out) if checker.unsafe(name) is None}
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise SiteError(f"{out_dir / MARKER} holds no list of the files a build wrote; nothing was deleted: "
                        "choose another --out or empty the folder yourself")
    checker = _Checker(out)
    for name in files:
        reason = checker.unsafe(name)
        if reason is not None:
            raise SiteError(f"{out_dir / MARKER} lists {name!r}, which {reason}; nothing was deleted: "
                            "choose another --out or empty the folder yourself")
    return set(files)


def _checked(out_dir: Path) -> set[str]:
    """check_output's checks; the files the previous build listed (none for a new or empty folder)."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise SiteError(f"{out_dir} exists and is not a folder")
    if not out.is_dir():
        return set()
    present, runs = _walk(out)
    if runs:
        raise SiteError(f"{out_dir} holds a recorded run ({runs[0]}); a site build never deletes a run: choose "
                        "another --out")
    if not present and not (out / MARKER).exists():
        return set()
    listed = _listed(out_dir, out)
    foreign = sorted(present - listed)
    if foreign:
        shown = ", ".join(foreign[:SHOWN]) + (f" and {len(foreign) - SHOWN} more" if len(foreign) > SHOWN else "")
        raise SiteError(f"{out_dir} holds files an earlier build did not write ({shown}); move them or choose "
                        "another --out")
    return listed


def check_output(out_dir: Path) -> None:
    """Refuse an output folder that holds a run, or files no build of wismo wrote (nothing is changed)."""
    _checked(out_dir)


def prepare_output(out_dir: Path, source: Path) -> set[str]:
    """Check the folder and create it; return the files the previous build wrote, to be replaced or deleted.

    Nothing is deleted yet: finish_output deletes those this build did not write again.
    """
    out = Path(out_dir).resolve()
    if out == source.resolve() or source.resolve() in out.parents:
        raise SiteError(f"{out_dir} is inside the site's sources ({source}); choose another --out")
    previous = _checked(out)
    out.mkdir(parents=True, exist_ok=True)
    _write_marker(out, [], building=True)
    return previous


def write_file(path: Path, data: bytes) -> None:
    """Write `data` into `path`: over the bytes of the file there (its inode and blocks kept), else a new file.

    Never through a symlink (O_NOFOLLOW); a file that is not a plain file of its own (a FIFO, a hard link
    planted to share another file's content) is replaced by a new one instead of written into.
    """
    descriptor = os.open(path, _WRITE_FLAGS, 0o666)
    try:
        found = os.fstat(descriptor)
        if not stat.S_ISREG(found.st_mode) or found.st_nlink != 1:
            os.close(descriptor)
            descriptor = -1
            os.unlink(path)
            descriptor = os.open(path, _WRITE_FLAGS | os.O_EXCL, 0o666)
        with open(descriptor, "wb", closefd=False) as stream:
            stream.write(data)
            stream.flush()
            # Cut what the old file held beyond the new bytes (nothing for a new file). Rewriting first and
            # cutting after, rather than opening with O_TRUNC, keeps the file's blocks: freeing them all and
            # allocating them again cost that VM up to 1 ms a file.
            os.ftruncate(descriptor, len(data))
    finally:
        if descriptor >= 0:
            os.close(descriptor)


def _delete(out: Path, names: Collection[str]) -> None:
    """Delete these files (checked site files) and then the folders left empty."""
    if names:
        with ThreadPoolExecutor(min(DELETING_THREADS, len(names))) as pool:
            for _ in pool.map(lambda name: (out / name).unlink(missing_ok=True), sorted(names)):
                pass
    for folder, _, _ in os.walk(out, topdown=False):  # the deepest first; symlinked folders not entered
        if folder != str(out) and not os.listdir(folder):
            os.rmdir(folder)


def record_output(out_dir: Path) -> None:
    """List the site files now in the folder as written by this build (foreign files were refused before it).

    Written to a fresh temporary file (O_EXCL: a planted symlink is never followed) and renamed over the
    marker, so a marker is always whole: a crash leaves the old list or the new one.
    """
    out = Path(out_dir)
    checker = _Checker(out)
    _write_marker(out, sorted(name for name in _files(out) if checker.unsafe(name) is None), building=False)


def _write_marker(out: Path, files: list[str], *, building: bool) -> None:
    """Write the marker whole (a fresh temporary file renamed over it): the files written, or a build under way."""
    note = ("a build is writing this folder; one that never finished leaves its site files to the next build"
            if building else "the next build deletes these files and nothing else")
    data = {"builtBy": "wismo build-site", "note": note, "building": building, "files": files}
    handle, temporary = tempfile.mkstemp(dir=out, prefix=MARKER_TEMPORARY_PREFIX)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(json.dumps(data, indent=1) + "\n")
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, out / MARKER)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def finish_output(out_dir: Path, previous: Collection[str] = (), written: Collection[str] = ()) -> None:
    """Delete the previous build's files this one did not write again, then record what the folder holds.

    `previous` is what prepare_output returned, `written` the files this build wrote (relative names). When
    even the marker cannot be written, this build's files are removed again: the folder held none but site
    files (prepare_output refused any other), so a half-written site without a marker is removed whole (only
    site files, only inside the folder) and the next build is not refused.
    """
    out = Path(out_dir)
    _delete(out, set(previous) - set(written))
    try:
        record_output(out_dir)
    except OSError:
        checker = _Checker(out)
        for name in _files(out):
            if checker.unsafe(name) is None:
                (out / name).unlink(missing_ok=True)
        raise
