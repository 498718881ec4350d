"""Start `python -m wismo.loopback` as a child process and hand back its URL (tests and benchmarks use it)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class LoopbackProcess:
    """A running loopback model server: its process, base URL and request log."""

    process: subprocess.Popen[str]
    url: str
    log: Path | None

    def requests(self) -> list[dict[str, Any]]:
        """The requests served so far, as the server logged them."""
        if self.log is None or not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines() if line]


@contextlib.contextmanager
def loopback_process(api: str, plan: dict[str, Any] | None = None,
                     log: Path | None = None) -> Iterator[LoopbackProcess]:
    """Run a loopback server in its own process for the duration of the block."""
    command = [sys.executable, "-m", "wismo.loopback", "--api", api, "--plan", json.dumps(plan or {"faults": []})]
    if log is not None:
        command += ["--log", str(log)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    try:
        url = process.stdout.readline().strip() if process.stdout else ""
        if not url.startswith("http://"):
            raise RuntimeError(f"the loopback server did not start (exit {process.poll()})")
        yield LoopbackProcess(process, url, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
