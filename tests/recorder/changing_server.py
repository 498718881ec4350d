"""A brought design that can be edited between starts, for the tests: `python changing_server.py STATE`.

Each start reads the file STATE and serves tests/recorder/other_names_server.py with the flaw it
names (empty: none). A test writes another flaw to STATE and kills or restarts the process: the new
instance is "the same server, edited" (other tool names with `by-sku`, other records with
`alter-status`).
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

state = Path(sys.argv[1]).read_text().strip() if len(sys.argv) > 1 and Path(sys.argv[1]).exists() else ""
sys.argv = [str(Path(__file__).with_name("other_names_server.py")), *([state] if state else [])]
runpy.run_path(sys.argv[0], run_name="__main__")
