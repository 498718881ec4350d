"""The house reads as the README says: recorder → runs (wismo.runformat) → analysis → site.

No stage imports a later one; the run format and the errors are the only modules every stage shares;
the site reads runs only through the analysis and the run format.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import ROOT

SHARED = ("wismo.errors", "wismo.runformat")
# A stage (by the folder of its modules) and the packages it may import besides itself and SHARED.
ALLOWED: dict[str, tuple[str, ...]] = {
    "wismo/runformat": (),
    "wismo/loopback": ("recorder",),  # it plays the scripted policy over the providers' wire formats
    "recorder": (),
    "analysis": ("recorder",),
    "wismo/sitegen": ("analysis",),
}
FIRST_PARTY = ("recorder", "analysis", "wismo", "tests", "benchmarks")


def imported_modules(path: Path) -> set[str]:
    """Every first-party module a file imports, at any depth (lazy imports inside functions included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.split(".")[0] in FIRST_PARTY}


def _own(stage: str) -> str:
    return stage.replace("/", ".")


def _permitted(module: str, stage: str) -> bool:
    prefixes = (_own(stage), *SHARED, *ALLOWED[stage])
    return module == "wismo" or any(module == p or module.startswith(p + ".") for p in prefixes)


@pytest.mark.parametrize("stage", sorted(ALLOWED))
def test_a_stage_imports_only_itself_the_stage_before_and_the_shared_modules(stage):
    wrong = []
    for path in sorted((ROOT / stage).rglob("*.py")):
        for module in sorted(imported_modules(path)):
            if not _permitted(module, stage):
                wrong.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_the_shared_modules_import_no_stage():
    for path in [ROOT / "wismo" / "errors.py", ROOT / "wismo" / "__init__.py",
                 *sorted((ROOT / "wismo" / "runformat").rglob("*.py"))]:
        modules = imported_modules(path)
        assert all(m == "wismo" or m.startswith(SHARED) for m in modules), (path, modules)


def test_the_checker_finds_a_planted_backward_import(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("def later():\n    from analysis.claims.run import check_run\n    return check_run\n")
    assert imported_modules(planted) == {"analysis.claims.run"}
    assert not _permitted("analysis.claims.run", "recorder")
    assert not _permitted("recorder.record", "wismo/sitegen")
