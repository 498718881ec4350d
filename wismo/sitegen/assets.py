"""Where the templates and static files live, and copying the static files with a content hash in their names."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from wismo.sitegen.errors import SiteError

# wismo/sitegen/assets.py -> the `wismo/` package folder
PACKAGE_DIR = Path(__file__).resolve().parent.parent
STATIC_DIR = "static"
TEMPLATES_DIR = "templates"


def assets_dir(package_dir: Path | None = None) -> Path:
    """The folder holding templates/ and static/: `wismo/site/` in a wheel, else the checkout's top-level `site/`."""
    package_dir = package_dir or PACKAGE_DIR
    installed = package_dir / "site"
    if (installed / TEMPLATES_DIR).is_dir():
        return installed
    # A source checkout or an editable install: `site/` sits beside the `wismo/` package.
    checkout = package_dir.parent / "site"
    if (checkout / TEMPLATES_DIR).is_dir():
        return checkout
    raise SiteError(f"the site's templates are missing: looked in {installed} and {checkout}")


def hashed_name(path: Path) -> str:
    """`style.css` -> `style.1a2b3c4d.css`: a changed file gets a new name, so no browser shows a stale copy."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:8]
    return f"{path.stem}.{digest}{path.suffix}"


def copy_static(source: Path, out_dir: Path) -> dict[str, str]:
    """Copy every static file into `out_dir/static/` under its hashed name; return name -> relative URL."""
    target = out_dir / STATIC_DIR
    target.mkdir(parents=True, exist_ok=True)
    urls: dict[str, str] = {}
    for path in sorted((source / STATIC_DIR).iterdir()):
        if not path.is_file() or path.name.startswith("."):
            continue
        name = hashed_name(path)
        shutil.copyfile(path, target / name)
        urls[path.name] = f"{STATIC_DIR}/{name}"
    return urls
