"""Helpers the tests share: the repository root, the CLI as a child command, dataset copies.

Plain functions and constants only: importing this module changes nothing (conftest.py sets up the
environment child processes need).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from recorder.dataset import DEFAULT_DATASET_DIR

ROOT = Path(__file__).resolve().parents[1]
WISMO = [sys.executable, "-m", "wismo.cli"]


def default_records() -> dict[str, Any]:
    """A fresh copy of the default records.json."""
    return json.loads((DEFAULT_DATASET_DIR / "records.json").read_text())


def default_cases() -> list[dict[str, Any]]:
    """A fresh copy of the default cases.json."""
    return json.loads((DEFAULT_DATASET_DIR / "cases.json").read_text())


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


def marked_command(marker: str, document: str = "README.md") -> str:
    """The shell command in the ```sh block that follows `<!-- marker -->` in a document of the repository."""
    text = (ROOT / document).read_text()
    match = re.search(rf"<!-- {marker} -->\s*```sh\n(.+?)\n```", text, re.S)
    assert match, f"{document} has no {marker} block"
    return match.group(1).strip()
