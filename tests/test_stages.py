"""The house reads as the README says: core below everything, then recorder → runs → analysis → site, the CLI on top.

`core` (errors, domain, run format) imports no stage; each stage imports only `core` and the stages
before it; the site reads runs only through the analysis and the run format; inside `recorder`, each
subpackage imports only those below it, so no two of them depend on each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import ROOT

FIRST_PARTY = ("core", "recorder", "analysis", "wismo", "tests", "benchmarks")
# A stage (by the folder of its modules) and the packages it may import besides itself.
ALLOWED: dict[str, tuple[str, ...]] = {
    "core/errors.py": (),
    "core/domain": ("core.errors",),
    "core/runformat": ("core.errors", "core.domain.fields"),
    "recorder": ("core",),
    "analysis": ("core",),
    "wismo/sitegen": ("core", "analysis"),
    "wismo/export": ("core", "analysis"),  # a pure reader of runs, beside the site; the analysis validates them
    "wismo/loopback": ("core", "recorder"),  # it plays the scripted policy over the providers' wire formats
    "wismo/cli": ("core", "recorder", "analysis", "wismo"),  # the top: every command over every stage
}
# Inside recorder: each subject and the subjects below it that it may use.
RECORDER_LAYERS: dict[str, tuple[str, ...]] = {
    "servers": (),
    "providers": (),
    "designs": ("servers",),
    "agent": ("designs", "providers"),
    "run": ("agent", "designs", "providers", "servers"),
    "doctor": ("agent", "designs", "providers", "run"),
    "generate": ("servers",),
}


def imported_modules(path: Path) -> set[str]:
    """Every first-party module a file imports, at any depth (lazy imports inside functions included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.split(".")[0] in FIRST_PARTY}


def _module_of(stage: str) -> str:
    return stage.removesuffix(".py").replace("/", ".")


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _permitted(module: str, stage: str) -> bool:
    return any(_within(module, p) for p in (_module_of(stage), *ALLOWED[stage]))


def _files(stage: str) -> list[Path]:
    path = ROOT / stage
    return [path] if path.suffix == ".py" else sorted(path.rglob("*.py"))


@pytest.mark.parametrize("stage", sorted(ALLOWED))
def test_a_stage_imports_only_itself_and_what_lies_below_it(stage):
    wrong = []
    for path in _files(stage):
        for module in sorted(imported_modules(path)):
            if not _permitted(module, stage):
                wrong.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_every_module_of_the_shipped_packages_belongs_to_a_stage():
    covered = {p for stage in ALLOWED for p in _files(stage)}
    shipped = [p for top in ("core", "recorder", "analysis", "wismo") for p in (ROOT / top).rglob("*.py")]
    loose = [str(p.relative_to(ROOT)) for p in shipped
             if p not in covered and p not in (ROOT / "core" / "__init__.py", ROOT / "wismo" / "__init__.py",
                                                ROOT / "wismo" / "errors.py")]
    assert not loose, loose


def test_the_package_roots_import_only_core():
    for path in (ROOT / "core" / "__init__.py", ROOT / "wismo" / "__init__.py"):
        assert all(_within(m, "core") for m in imported_modules(path)), path


def _subject(path: Path) -> str:
    parts = path.relative_to(ROOT / "recorder").parts
    return parts[0].removesuffix(".py")


def test_recorder_subjects_import_only_the_subjects_below_them():
    wrong = []
    for path in sorted((ROOT / "recorder").rglob("*.py")):
        subject = _subject(path)
        if subject == "__init__":
            continue
        for module in sorted(imported_modules(path)):
            if not _within(module, "recorder"):
                continue
            used = module.split(".")[1]
            if used != subject and used not in RECORDER_LAYERS[subject]:
                wrong.append(f"{path.relative_to(ROOT)} ({subject}) imports {module}")
    assert not wrong, "\n".join(wrong)


def test_every_recorder_subject_is_layered():
    subjects = {_subject(p) for p in (ROOT / "recorder").rglob("*.py")} - {"__init__"}
    assert subjects == set(RECORDER_LAYERS)


def test_the_checker_finds_a_planted_backward_import(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("def later():\n    from analysis.claims.run import check_run\n    return check_run\n")
    assert imported_modules(planted) == {"analysis.claims.run"}
    assert not _permitted("analysis.claims.run", "recorder")
    assert not _permitted("recorder.run.record", "wismo/sitegen")
    assert not _permitted("recorder.servers.lookups", "analysis")
    assert not _permitted("core.runformat.read", "core/domain")
    assert _permitted("core.domain.evidence", "analysis")
    assert not _permitted("recorder.run.record", "wismo/export")
    assert not _permitted("wismo.sitegen.build", "wismo/export")
    assert _permitted("core.runformat.read", "wismo/export")
