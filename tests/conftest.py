"""Shared fixtures and hooks: this checkout on PYTHONPATH for child processes, --live, dataset folders.

Helpers that test modules import live in tests/helpers.py; nothing imports this file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT, default_cases, default_records


@pytest.fixture
def make_dataset(tmp_path: Path) -> Callable[..., Path]:
    """Write a dataset folder; `records`/`cases` default to copies of the packaged dataset."""
    counter = iter(range(1000))

    def make(records: dict[str, Any] | None = None, cases: list[dict[str, Any]] | None = None,
             name: str | None = None) -> Path:
        folder = tmp_path / (name or f"dataset-{next(counter)}")
        folder.mkdir()
        (folder / "records.json").write_text(json.dumps(records if records is not None else default_records(),
                                                        indent=2))
        (folder / "cases.json").write_text(json.dumps(cases if cases is not None else default_cases(), indent=2))
        return folder

    return make


def pytest_configure(config: pytest.Config) -> None:
    """Child processes (MCP servers, `python -m wismo.cli`) must import this checkout, not another install."""
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--live` opts in to the tests that call real provider APIs (they also need the provider's key)."""
    parser.addoption("--live", action="store_true", default=False,
                     help="run tests marked live against the real provider APIs (needs their API keys)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip live tests unless --live was given; each live test skips itself when its key is unset."""
    if config.getoption("--live"):
        return
    skip = pytest.mark.skip(reason="calls a real provider API: run with --live and the provider's key set")
    for item in items:
        if "live" in item.keywords:
            item.add_marker(skip)
