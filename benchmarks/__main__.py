"""Run the benchmark suite and print every figure: `python -m benchmarks [--quick] [--only NAMES]`.

Figures are medians with min and max over repeated measurements; they are printed and written to a
JSON file (default benchmarks/results/latest.json) with the machine they were measured on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

SECTIONS = ("mcp", "harness", "startup", "analysis", "site", "record")


def _machine() -> dict[str, object]:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() \
        else platform.processor()
    memory = None
    if Path("/proc/meminfo").exists():
        total_kb = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f"{total_kb / 1024 / 1024:.0f} GiB"
    return {"python": platform.python_version(), "platform": platform.platform(), "cpu": cpu,
            "cpus": os.cpu_count(), "memory": memory}


def main(argv: list[str] | None = None) -> int:
    """Run the chosen sections, print the figures, write the JSON file."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and smaller sizes (a smoke run)")
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"comma-separated sections of {SECTIONS}")
    parser.add_argument("--work", type=Path, default=Path("out/benchmarks"),
                        help="folder for synthetic runs and sites (reused between invocations)")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/latest.json"))
    parser.add_argument("--merge", action="store_true",
                        help="replace only the chosen sections in --out, keeping the others (each run is listed)")
    args = parser.parse_args(argv)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(chosen) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown section(s): {', '.join(sorted(unknown))}")
    args.work.mkdir(parents=True, exist_ok=True)
    analysis_sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    site_sizes = [1_000] if args.quick else [1_000, 10_000]
    repeats = 1 if args.quick else 3

    from benchmarks import mcp_and_harness, record_throughput, scale, startup

    runners = {
        "mcp": lambda: mcp_and_harness.mcp_round_trip(args.quick),
        "harness": lambda: mcp_and_harness.harness_overhead(args.quick),
        "startup": lambda: startup.startup(args.quick),
        "analysis": lambda: scale.analysis_at_scale(args.work, analysis_sizes, repeats),
        "site": lambda: scale.site_at_scale(args.work, site_sizes, repeats),
        "record": lambda: record_throughput.record_throughput([1, 4, 16], 1 if args.quick else 3),
    }
    results = {"measuredAt": datetime.now(UTC).isoformat(timespec="seconds"), "machine": _machine(),
               "quick": args.quick, "sections": {}}
    print(f"machine: {results['machine']}")
    for section in chosen:
        print(f"\n== {section} ==", flush=True)
        started = time.perf_counter()
        figures = runners[section]()
        for item in figures:
            print(item.line(), flush=True)
        results["sections"][section] = [f.to_json() for f in figures]
        print(f"({section} took {time.perf_counter() - started:.0f} s)")
    previous = json.loads(args.out.read_text()) if args.out.exists() else {}
    if "beforeAfter" in previous:  # what `python -m benchmarks.before_after` stored stays
        results["beforeAfter"] = previous["beforeAfter"]
    if args.merge and previous:
        this_run = {key: results[key] for key in ("measuredAt", "machine", "quick")} | {"sections": chosen}
        runs = previous.get("runs") or [{key: previous.get(key) for key in ("measuredAt", "machine", "quick")}
                                         | {"sections": list(previous.get("sections", {}))}]
        results = {**previous, "runs": [*runs, this_run],
                   "sections": {**previous.get("sections", {}), **results["sections"]}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    missed = [f["name"] for figures in results["sections"].values() for f in figures if f["met"] is False]
    print(f"\nwrote {args.out}" + (f"; goals missed: {len(missed)}" if missed else "; every goal met"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
