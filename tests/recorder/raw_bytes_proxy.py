"""Relay an MCP stdio server, turning every "USB-C dock" it writes into bytes that are not UTF-8.

`python raw_bytes_proxy.py COMMAND...`: a real server behind a pipe that corrupts its output, as a
server with a broken encoder (or a stray binary write) would.
"""

from __future__ import annotations

import subprocess
import sys
import threading

child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
assert child.stdin is not None and child.stdout is not None


def relay_requests() -> None:
    assert child.stdin is not None
    for line in sys.stdin.buffer:
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()


threading.Thread(target=relay_requests, daemon=True).start()
for line in child.stdout:
    sys.stdout.buffer.write(line.replace(b"USB-C dock", b"USB-C \xff\xfe dock"))
    sys.stdout.buffer.flush()
