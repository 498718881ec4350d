"""Shared fixtures: the repository root on PYTHONPATH for child processes, and dataset helpers."""

from __future__ import annotations

import copy
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from recorder.dataset import DEFAULT_DATASET_DIR

ROOT = Path(__file__).resolve().parents[1]
# Child processes (MCP servers, `python -m wismo.cli`) must import this checkout, not another install.
os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])

WISMO = [sys.executable, "-m", "wismo.cli"]


def default_records() -> dict[str, Any]:
    """A fresh copy of the default records.json."""
    return json.loads((DEFAULT_DATASET_DIR / "records.json").read_text())


def default_cases() -> list[dict[str, Any]]:
    """A fresh copy of the default cases.json."""
    return json.loads((DEFAULT_DATASET_DIR / "cases.json").read_text())


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


def renamed_dataset() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The default dataset with every ID and SKU renamed, so nothing can rely on the defaults' values."""
    text_records = json.dumps(default_records())
    text_cases = json.dumps(default_cases())
    replacements = {"ORD-10": "ORD-50", "PAY-10": "PAY-50", "RSV-10": "RSV-50", "TRK-10": "TRK-50",
                    "DOCK-USB-C": "HUB-8PORT", "KEYBOARD-TKL": "KEYPAD-NUM", "WEBCAM-4K": "MIC-STUDIO",
                    "CHAIR-ERGO": "DESK-STAND", "LAPTOP-14": "PHONE-X2", "MONITOR-27": "PRINTER-A4",
                    "HEADSET-USB": "SPEAKER-BT", "TABLET-11": "EREADER-7", "MOUSE-WL": "PEN-STYLUS",
                    "BAG-15": "CASE-HARD", "ACC-7001": "ACC-4242"}
    for old, new in replacements.items():
        text_records = text_records.replace(old, new)
        text_cases = text_cases.replace(old, new)
    return json.loads(text_records), json.loads(text_cases)


@pytest.fixture
def copy_of() -> Callable[[Any], Any]:
    """Deep-copy helper for mutating fixtures."""
    return copy.deepcopy


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
