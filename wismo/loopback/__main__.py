"""`python -m wismo.loopback`: a loopback model server in its own process, with a per-request fault plan.

    python -m wismo.loopback --api chat --plan '{"faults": [{"do": "html", "order": "ORD-1004"}]}'

Prints its base URL (e.g. http://127.0.0.1:41234) as the first line of stdout, then serves the
scripted policy over the chosen wire format (responses, chat, messages) until it is stopped.
With --log, every request is appended to that file as one JSON line (number, order, turn, fault).
See wismo.loopback.policy for the plan.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path

from wismo.loopback.policy import APIS, PolicyModel, load_plan
from wismo.loopback.server import FakeServer, Received, Reply


def main(argv: list[str] | None = None) -> None:
    """Serve until SIGTERM or SIGINT."""
    parser = argparse.ArgumentParser(prog="python -m wismo.loopback", description=__doc__.splitlines()[0])
    parser.add_argument("--api", choices=APIS, required=True, help="the wire format to speak")
    parser.add_argument("--plan", default='{"faults": []}', help="the fault plan: JSON text, or @FILE")
    parser.add_argument("--log", type=Path, default=None, help="append one JSON line per request to this file")
    args = parser.parse_args(argv)
    text = Path(args.plan[1:]).read_text() if args.plan.startswith("@") else args.plan
    try:
        model = PolicyModel(args.api, load_plan(json.loads(text)))
    except ValueError as exc:
        parser.error(f"--plan: {exc}")
    lock = threading.Lock()

    def respond(received: Received) -> Reply:
        reply = model(received)
        if args.log is not None:
            with lock, open(args.log, "a", encoding="utf-8") as log:
                log.write(json.dumps(model.log[-1]) + "\n")
        return reply

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    with FakeServer(respond) as server:
        print(server.url, flush=True)
        stop.wait()
    sys.exit(0)


if __name__ == "__main__":
    main()
