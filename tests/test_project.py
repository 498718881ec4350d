"""The project as a whole: README commands, CLI help, ruff, and a wheel that carries its data files."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import click
import pytest

from tests.helpers import ROOT, marked_command
from wismo.cli import cli


def test_readme_names_both_set_up_commands():
    demo = marked_command("demo-command")
    test = marked_command("test-command")
    assert demo.startswith("python -m pip install -e .") and " wismo " in f" {demo} "
    assert test.endswith("python -m pytest")
    subcommand = demo.split("wismo ", 1)[1].split()[0]
    assert subcommand in cli.commands, f"the README's demo runs `wismo {subcommand}`, which does not exist"


def test_every_guarantee_in_the_readme_names_a_test_that_exists():
    text = (ROOT / "README.md").read_text()
    section = text.split("## What wismo guarantees", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`(test_\w+)`", section))
    defined = {m for p in (ROOT / "tests").rglob("test_*.py") for m in re.findall(r"^def (test_\w+)\(", p.read_text(),
                                                                                 re.M)}
    assert len(named) >= 20 and named <= defined, sorted(named - defined)
    # Every promise is held by a test its row names: a row without one is a promise nothing checks.
    promises = [line for line in section.splitlines() if line.startswith("| **")]
    assert len(promises) >= 16
    unheld = [promise[:80] for promise in promises if not re.search(r"`test_\w+`", promise.rsplit("|", 2)[-2])]
    assert unheld == []


def test_ci_runs_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text()
    assert "test-command" in script and "apt-get install" in script and "playwright install" not in script


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_every_command_has_help_with_an_example(name):
    command = cli.commands[name]
    ctx = click.Context(command, info_name=name)
    text = command.get_help(ctx)
    assert command.help and len(command.help) > 40
    assert "Example" in text, f"wismo {name} --help shows no example"


@pytest.mark.parametrize(("name", "absent"), [("validate", "mcp"), ("summarize", "mcp"), ("record", "duckdb")])
def test_a_command_loads_only_the_libraries_it_needs(name, absent):
    code = ("import sys, click; from wismo.cli import cli; "
            f"command = cli.get_command(click.Context(cli), {name!r}); "
            "print(command.name, sorted(m for m in ('mcp', 'duckdb', 'openai', 'anthropic') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    command_name, loaded = done.stdout.split(" ", 1)
    assert command_name == name
    for module in (absent, "openai", "anthropic"):
        assert f"'{module}'" not in loaded, f"wismo {name} imports {module} before it runs"


def test_code_is_ruff_clean():
    ruff = shutil.which("ruff") or (Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    done = subprocess.run([str(ruff), "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_code_type_checks():
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    # The packages and the strictness are in pyproject.toml's [tool.mypy].
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_wheel_ships_the_data_files(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True)
    if done.returncode != 0 and "No module named" in done.stderr + done.stdout:
        done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path),
                               str(ROOT)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    [wheel] = tmp_path.glob("wismo-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "core/domain/data/default/records.json" in names
    assert "core/domain/data/default/cases.json" in names
    assert any(n.startswith("wismo/site/templates/") for n in names)
    assert "wismo/cli/__init__.py" in names
    sql = sorted(p.name for p in (ROOT / "analysis" / "sql").glob("*.sql"))
    assert all(f"analysis/sql/{name}" in names for name in sql)


def test_every_relative_link_in_the_docs_points_to_a_file():
    import re

    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} → {target}")
    assert not broken, broken


def test_the_readme_stays_short_with_the_reference_in_docs():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200
