"""The site's output folder: a build deletes only the files it wrote itself, listed in the folder's marker.

Every build writes `.wismo-site`, a JSON list of the files it wrote. The next build into the same
folder deletes exactly those, and refuses a folder that holds a recorded run (a manifest.json or an
events.jsonl anywhere in it) or any file no build listed, so a run or a user's file is never lost.

The marker is read as untrusted: anyone can plant one in a shared or downloaded folder. A marker
that is not a JSON object with a list of files (empty, `{}`, text from an old build) means the folder
is not known to be wismo's, so it is refused, never removed wholesale; and a listed name is deleted
only when it stays inside the folder (no `..`, no absolute path, no symlink on the way) and is a kind
of file a build writes (pages, styles, scripts). Any other name refuses the whole build, naming it.

A build marks the folder as being built before it writes a page (`"building": true`), so a build
killed half-way (kill -9, a power cut) leaves a folder the next build recognises as its own: the site
files in it are deleted as if listed. That gives a planted marker no more power than listing every
site file by name already gives it; any other file still refuses the build.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path, PurePosixPath

from core.runformat import EVENTS_FILE, MANIFEST_FILE
from wismo.sitegen.errors import SiteError

MARKER = ".wismo-site"
MARKER_TEMPORARY_PREFIX = MARKER + ".tmp"
SHOWN = 3
# Every file a build writes is one of these (pages, the static styles and scripts, the imported reviews
# script); a marker listing anything else did not come from a build.
WRITTEN_SUFFIXES = frozenset({".html", ".css", ".js"})


def _run_folders(out: Path) -> list[Path]:
    return sorted({p.parent for name in (MANIFEST_FILE, EVENTS_FILE) for p in out.rglob(name)})


def _files(out: Path) -> set[str]:
    return {p.relative_to(out).as_posix() for p in out.rglob("*")
            if (p.is_file() or p.is_symlink()) and not p.name.startswith(MARKER)}


def _unsafe(out: Path, name: str) -> str | None:
    """Why `name` (from the marker) must not be deleted from `out`, or None when it is a file a build wrote there."""
    relative = PurePosixPath(name)
    if not name or relative.is_absolute() or "\\" in name or ".." in relative.parts or ":" in name:
        return "is not a plain name inside the folder"
    if relative.suffix not in WRITTEN_SUFFIXES:
        return "is not a kind of file a site build writes"
    path = out
    for part in relative.parts:  # a symlink anywhere on the way could lead out of the folder
        path = path / part
        if path.is_symlink():
            return "is a symlink"
    if out.resolve() not in path.resolve().parents:
        return "resolves outside the folder"
    if path.exists() and not path.is_file():
        return "is not a file"
    return None


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
        return {name for name in _files(out) if _unsafe(out, name) is None}
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise SiteError(f"{out_dir / MARKER} holds no list of the files a build wrote; nothing was deleted: "
                        "choose another --out or empty the folder yourself")
    for name in files:
        reason = _unsafe(out, name)
        if reason is not None:
            raise SiteError(f"{out_dir / MARKER} lists {name!r}, which {reason}; nothing was deleted: "
                            "choose another --out or empty the folder yourself")
    return set(files)


def check_output(out_dir: Path) -> None:
    """Refuse an output folder that holds a run, or files no build of wismo wrote (nothing is changed)."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise SiteError(f"{out_dir} exists and is not a folder")
    if not out.is_dir():
        return
    runs = _run_folders(out)
    if runs:
        raise SiteError(f"{out_dir} holds a recorded run ({runs[0]}); a site build never deletes a run: choose "
                        "another --out")
    present = _files(out)
    if not present and not (out / MARKER).exists():
        return
    listed = _listed(out_dir, out)
    foreign = sorted(present - listed)
    if foreign:
        shown = ", ".join(foreign[:SHOWN]) + (f" and {len(foreign) - SHOWN} more" if len(foreign) > SHOWN else "")
        raise SiteError(f"{out_dir} holds files an earlier build did not write ({shown}); move them or choose "
                        "another --out")


def prepare_output(out_dir: Path, source: Path) -> None:
    """Check the folder, then delete the files the previous build wrote (and folders that end up empty)."""
    out = Path(out_dir).resolve()
    if out == source.resolve() or source.resolve() in out.parents:
        raise SiteError(f"{out_dir} is inside the site's sources ({source}); choose another --out")
    check_output(out)
    if out.is_dir() and (out / MARKER).is_file():
        for name in _listed(out_dir, out):  # every name checked: inside the folder, no symlink, a site file
            (out / name).unlink(missing_ok=True)
        (out / MARKER).unlink()
        for folder in sorted((p for p in out.rglob("*") if p.is_dir() and not p.is_symlink()),
                             key=lambda p: len(p.parts), reverse=True):
            if not any(folder.iterdir()):
                folder.rmdir()
    out.mkdir(parents=True, exist_ok=True)
    _write_marker(out, [], building=True)


def record_output(out_dir: Path) -> None:
    """List the site files now in the folder as written by this build (foreign files were refused before it).

    Written to a fresh temporary file (O_EXCL: a planted symlink is never followed) and renamed over the
    marker, so a marker is always whole: a crash leaves the old list or the new one.
    """
    out = Path(out_dir)
    _write_marker(out, sorted(name for name in _files(out) if _unsafe(out, name) is None), building=False)


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


def finish_output(out_dir: Path) -> None:
    """Record what this build wrote; when even the marker cannot be written, remove those files again.

    After prepare_output the folder held none but this build's files, so a half-written site without
    a marker is removed whole (only site files, only inside the folder): the next build is not refused.
    """
    try:
        record_output(out_dir)
    except OSError:
        out = Path(out_dir)
        for name in _files(out):
            if _unsafe(out, name) is None:
                (out / name).unlink(missing_ok=True)
        raise
