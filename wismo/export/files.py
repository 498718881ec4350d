"""Writing an export: the output file is replaced in one rename, so a reader never sees half of it."""

from __future__ import annotations

from pathlib import Path

from core.runformat.write import write_failure


def temporary_beside(path: Path) -> Path:
    """Where an export is written before the rename: beside it, so the rename stays on one file system."""
    return path.with_name(path.name + ".tmp")


def replace_text(path: Path, text: str) -> None:
    """Write text to path in one rename; a failed write is one RunWriteError line and leaves path as it was."""
    temporary = temporary_beside(path)
    try:
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise write_failure(path, exc) from None
