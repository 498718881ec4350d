"""The site's output folder: a build deletes only the files it wrote itself, listed in the folder's marker.

Every build writes `.wismo-site`, a JSON list of the files it wrote. The next build into the same
folder deletes exactly those, and refuses a folder that holds a recorded run (a manifest.json or an
events.jsonl anywhere in it) or any file no build listed, so a run or a user's file is never lost.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from core.runformat import EVENTS_FILE, MANIFEST_FILE
from wismo.sitegen.errors import SiteError

MARKER = ".wismo-site"
SHOWN = 3


def _run_folders(out: Path) -> list[Path]:
    return sorted({p.parent for name in (MANIFEST_FILE, EVENTS_FILE) for p in out.rglob(name)})


def _files(out: Path) -> set[str]:
    return {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() or p.is_symlink()} - {MARKER}


def _listed(marker: Path) -> set[str] | None:
    """The files a build listed; None for the marker of a build that kept no list (before lists existed)."""
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    files = data.get("files") if isinstance(data, dict) else None
    return {str(f) for f in files} if isinstance(files, list) else None


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
    if not present:
        return
    marker = out / MARKER
    if not marker.is_file():
        raise SiteError(f"{out_dir} is not empty and was not built by wismo; choose another --out or empty it")
    listed = _listed(marker)
    foreign = sorted(present - listed) if listed is not None else []
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
        listed = _listed(out / MARKER)
        if listed is None:  # a build from before the lists: its marker said the whole folder was its own
            shutil.rmtree(out)
        else:
            for name in listed:
                (out / name).unlink(missing_ok=True)
            (out / MARKER).unlink()
            for folder in sorted((p for p in out.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
                if not any(folder.iterdir()):
                    folder.rmdir()
    out.mkdir(parents=True, exist_ok=True)


def record_output(out_dir: Path) -> None:
    """List every file now in the folder as written by this build (foreign files were refused before it)."""
    out = Path(out_dir)
    data = {"builtBy": "wismo build-site", "note": "the next build deletes these files and nothing else",
            "files": sorted(_files(out))}
    temporary = out / (MARKER + ".tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, out / MARKER)
