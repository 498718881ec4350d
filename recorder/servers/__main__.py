"""Run one design's MCP server on stdio: `python -m recorder.servers granular --dataset DIR`."""

from __future__ import annotations

import argparse
import sys

from core.errors import WismoError
from recorder.servers import DESIGNS, build_server, serve_stdio


def main(argv: list[str] | None = None) -> int:
    """Parse the design and dataset, then serve over stdio until the client closes the pipe."""
    parser = argparse.ArgumentParser(prog="python -m recorder.servers")
    parser.add_argument("design", choices=sorted(DESIGNS))
    parser.add_argument("--dataset", default=None, help="dataset folder (only records.json is read)")
    args = parser.parse_args(argv)
    try:
        server = build_server(args.design, args.dataset)
    except WismoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    serve_stdio(server)


if __name__ == "__main__":
    sys.exit(main())
