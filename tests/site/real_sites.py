"""Three real sites, built by the CLI from offline recordings: the demo run, a three-design run, a study.

The issue-25 browser tests read each at 1440 × 900 and 390 × 844. The three-design run brings
examples/middle/server.py as its own MCP server; the study is a generated dataset of 1- and 25-line
orders, where granular runs out of its tool-call budget on the large ones (so failures are present).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers import ROOT, WISMO

DESKTOP = (1440, 900)
PHONE = (390, 844)
WIDTHS = {"desktop": DESKTOP, "phone": PHONE}
SITES = ("demo", "three", "study")


def wismo(*args: str, cwd: Path) -> None:
    """Run the CLI; fail with its output when it fails."""
    done = subprocess.run([*WISMO, *args], capture_output=True, text=True, cwd=cwd, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def build_real_sites(tmp: Path) -> dict[str, Path]:
    """Record the three-design run and the study, build the three sites; name -> site folder."""
    runs = tmp / "runs"
    wismo("record", "--out", str(runs), "--run-id", "three", "--repetitions", "1",
          "--server", f"middle=python {ROOT / 'examples' / 'middle' / 'server.py'}", cwd=tmp)
    wismo("dataset", "generate", "--out", str(tmp / "study"), "--seed", "1", "--lines", "1,25",
          "--orders-per-size", "1", cwd=tmp)
    wismo("record", "--out", str(runs), "--run-id", "study", "--dataset", str(tmp / "study"), "--repetitions", "1",
          cwd=tmp)
    sources = {"demo": ROOT / "runs" / "sample-offline", "three": runs / "three", "study": runs / "study"}
    for name, source in sources.items():
        wismo("build-site", str(source), "--out", str(tmp / f"site-{name}"), cwd=tmp)
    return {name: tmp / f"site-{name}" for name in sources}
