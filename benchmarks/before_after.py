"""Measure a change: the same fresh-process figures for a git ref and for this checkout, interleaved.

`python -m benchmarks.before_after REF [--repeats N] [--only NAMES]` extracts REF (`git archive`) into a
temporary folder and measures both trees in turns (REF, this checkout, REF, ...), so that whatever else
the machine is doing weighs on both alike. Each measurement runs the tree's own code in a fresh process
(its folder as the working directory and PYTHONPATH). The figures are printed and stored under
"beforeAfter" (or --key) in the results file, beside the sections `python -m benchmarks` writes (a later
run against the same commit replaces the figures it measures again and keeps the others), with the
machine's load averages before each round and after the last: on a shared machine they say how much the
wall times are worth.

`site` rebuilds into the same folder each time (a rebuild replaces the last build's files, as a user's
`wismo build-site` into out/site does); `site-fresh` builds into a new, empty folder each time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.__main__ import _machine
from benchmarks.record_throughput import SlowModelProcess
from benchmarks.scale import BARE_SCAN, _runs, measure_process
from benchmarks.startup import CALLS, _record, _session
from benchmarks.stats import figure

ROOT = Path(__file__).resolve().parent.parent
MEASURES = ("servers", "provider", "record", "summarize", "site", "site-fresh")
BARE_SCAN_NAME = "DuckDB bare count(*) scan of its events.jsonl"
SUMMARIZE_GOAL = 4.0  # wismo summarize --json at most 4 × the bare scan

# In a fresh interpreter, after record's own imports: creating the scripted policy, as record does first.
SCRIPTED_PROVIDER = """
import time
import recorder.run.record
from recorder.providers import create_provider
from recorder.providers.base import ProviderSettings
started = time.perf_counter()
create_provider("scripted", ProviderSettings())
print(time.perf_counter() - started)
"""
Samples = dict[str, list[float]]


@contextmanager
def _in_tree(root: Path) -> Iterator[None]:
    """Child processes started inside run the code of `root`."""
    folder, path = os.getcwd(), os.environ.get("PYTHONPATH")
    os.chdir(root)
    os.environ["PYTHONPATH"] = str(root)
    try:
        yield
    finally:
        os.chdir(folder)
        if path is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = path


def _servers(samples: Samples) -> None:
    commands = {"granular": [sys.executable, "-m", "recorder.servers", "granular"],
                "focused": [sys.executable, "-m", "recorder.servers", "focused"],
                "wismo serve granular": [sys.executable, "-m", "wismo.cli", "serve", "granular"]}
    for label, command in commands.items():
        whole, closed = asyncio.run(_session(command, label, CALLS.get(label, CALLS["granular"])))
        samples.setdefault(f"MCP session, {label} (ms)", []).append(whole)
        samples.setdefault(f"MCP server shutdown (stdin closed → exited), {label} (ms)", []).append(closed)


def _provider(samples: Samples) -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPTED_PROVIDER], capture_output=True, text=True, check=True)
    samples.setdefault("creating the scripted policy after record's imports (ms)", []).append(
        float(done.stdout) * 1000)


def _recording(url: str, folder: Path) -> Callable[[Samples], None]:
    one_case = ("--cases", "partial-delivery", "--repetitions", "1")
    kinds = {"scripted, 1 case × 2 designs": one_case,
             "openai (loopback, instant), 1 case × 2 designs": ("--provider", "openai", "--model", "loopback",
                                                                "--base-url", f"{url}/v1", "--api-key-env",
                                                                "WISMO_BENCHMARK_KEY", *one_case),
             "scripted, 70 conversations": ("--repetitions", "5")}
    runs = iter(range(1_000_000))

    def measure(samples: Samples) -> None:
        for label, args in kinds.items():
            wall, first, last = _record(folder, f"run-{next(runs)}", *args)
            samples.setdefault(f"wismo record, {label}: wall (s)", []).append(wall)
            samples.setdefault(f"  {label}: start → first event (s)", []).append(first)
            samples.setdefault(f"  {label}: last event → exited (s)", []).append(last)
    return measure


def _summarize(run: Path, size: int) -> Callable[[Samples], None]:
    def measure(samples: Samples) -> None:
        # The goal is a ratio to DuckDB's bare scan of the same file, in the same round (fresh processes).
        scan = measure_process(["-c", BARE_SCAN, str(run / "events.jsonl")], "bare scan")
        samples.setdefault(f"{BARE_SCAN_NAME}, {size:,} conversations (s)", []).append(scan.wall_s)
        samples.setdefault(f"  its CPU time (bare scan), {size:,} conversations (s)", []).append(scan.cpu_s)
        with tempfile.TemporaryFile() as out:
            measured = measure_process(["-m", "wismo.cli", "summarize", "--json", str(run)], "summarize", out)
            samples.setdefault(f"wismo summarize --json, {size:,} conversations (s)", []).append(measured.wall_s)
            samples.setdefault(f"  its CPU time (summarize), {size:,} conversations (s)", []).append(measured.cpu_s)
            samples.setdefault(f"  its output, {size:,} conversations (MB)", []).append(out.tell() / 1e6)
            samples.setdefault(f"  its peak memory, {size:,} conversations (MB)", []).append(measured.peak_mb)
    return measure


def _site(run: Path, size: int, out: Path, *, fresh: bool = False) -> Callable[[Samples], None]:
    """build-site into `out` each time (a rebuild), or with fresh=True into a new folder under it each time."""
    label = "into an empty folder" if fresh else "rebuilt"
    builds = iter(range(1_000_000))

    def measure(samples: Samples) -> None:
        folder = out / f"build-{next(builds)}" if fresh else out
        measured = measure_process(["-m", "wismo.cli", "build-site", str(run), "--out", str(folder)], "build-site")
        samples.setdefault(f"wismo build-site, {label}, {size:,} conversations (s)", []).append(measured.wall_s)
        samples.setdefault(f"  CPU time, all processes, {label}, {size:,} conversations (s)", []).append(
            measured.cpu_s)
        samples.setdefault(f"  peak memory, main process, {label}, {size:,} conversations (MB)", []).append(
            measured.peak_mb)
        samples.setdefault(f"  peak memory, largest worker, {label}, {size:,} conversations (MB)", []).append(
            measured.worker_peak_mb)
    return measure


def _load() -> list[float]:
    """The machine's load averages over 1, 5 and 15 minutes (none where the system does not say)."""
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else []


def compare(ref: str, repeats: int, chosen: list[str], work: Path,
            loads: list[list[float]] | None = None) -> list[dict[str, object]]:
    """Measure REF and this checkout in turns; return one figure per measure and tree.

    `loads` gets the load averages before each round and after the last.
    """
    loads = [] if loads is None else loads
    os.environ["WISMO_BENCHMARK_KEY"] = "benchmark-key-not-secret"
    with tempfile.TemporaryDirectory() as temporary, SlowModelProcess(0.0) as url:
        before = Path(temporary) / "tree"
        before.mkdir()
        archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
        sizes = sorted({size for size, measure in ((100_000, "summarize"), (10_000, "site"), (10_000, "site-fresh"))
                        if measure in chosen})
        runs = _runs(work.resolve(), sizes) if sizes else {}
        measures: list[Callable[[Samples], None]] = []
        if "servers" in chosen:
            measures.append(_servers)
        if "provider" in chosen:
            measures.append(_provider)
        if "record" in chosen:
            measures.append(_recording(url, Path(temporary)))
        if "summarize" in chosen:
            measures.append(_summarize(runs[100_000], 100_000))
        if "site" in chosen:
            measures.append(_site(runs[10_000], 10_000, Path(temporary) / "site"))
        if "site-fresh" in chosen:
            measures.append(_site(runs[10_000], 10_000, Path(temporary) / "fresh-sites", fresh=True))
        trees = {f"before ({ref})": before, "after (this checkout)": ROOT}
        samples: dict[str, Samples] = {tree: {} for tree in trees}
        for round_number in range(repeats):
            loads.append(_load())
            for tree, root in trees.items():
                with _in_tree(root):
                    for measure in measures:
                        measure(samples[tree])
            print(f"round {round_number + 1} of {repeats} done (load averages before it: {loads[-1]})", flush=True)
        loads.append(_load())
    figures = []
    for name in samples[next(iter(trees))]:
        for tree in trees:
            unit = name.rsplit("(", 1)[1].rstrip(")")
            result = figure(f"{name.rsplit(' (', 1)[0]} [{tree}]", unit, samples[tree][name])
            print(result.line())
            figures.append(result.to_json())
    for tree in trees:
        figures += _ratios(samples[tree], tree)
    return figures


def _ratios(samples: Samples, tree: str) -> list[dict[str, object]]:
    """`summarize --json` over the bare scan of the same run, round by round (both measured in the same turn)."""
    ratios = []
    for name, scans in samples.items():
        if not name.startswith(BARE_SCAN_NAME):
            continue
        size = name.removeprefix(BARE_SCAN_NAME + ", ").removesuffix(" (s)")
        runs = samples[f"wismo summarize --json, {size} (s)"]
        result = figure(f"summarize --json / bare scan, {size} [{tree}]", "×",
                        [run / scan for run, scan in zip(runs, scans, strict=True)],
                        f"≤ {SUMMARIZE_GOAL:g} ×", SUMMARIZE_GOAL)
        print(result.line())
        ratios.append(result.to_json())
        # CPU time counts every thread of each process and not the time spent waiting for a core: the same
        # comparison, less at the mercy of what else the machine runs (no goal is set in it).
        cpu_runs = samples.get(f"  its CPU time (summarize), {size} (s)")
        cpu_scans = samples.get(f"  its CPU time (bare scan), {size} (s)")
        if cpu_runs and cpu_scans:
            result = figure(f"  CPU time, summarize --json / bare scan, {size} [{tree}]", "×",
                            [run / scan for run, scan in zip(cpu_runs, cpu_scans, strict=True)])
            print(result.line())
            ratios.append(result.to_json())
    return ratios


def main(argv: list[str] | None = None) -> int:
    """Compare, print, and store the figures under "beforeAfter" in the results file."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.before_after", description=__doc__)
    parser.add_argument("ref", help="the git commit, branch or tag to compare this checkout with")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default=",".join(MEASURES), help=f"comma-separated measures of {MEASURES}")
    parser.add_argument("--work", type=Path, default=Path("out/benchmarks"), help="folder of the synthetic runs")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/latest.json"))
    parser.add_argument("--key", default="beforeAfter",
                        help="the entry of the results file the figures go under (default: beforeAfter); another "
                             "key keeps the figures of an earlier comparison")
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    if set(chosen) - set(MEASURES):
        parser.error(f"unknown measure(s): {', '.join(sorted(set(chosen) - set(MEASURES)))}")
    loads: list[list[float]] = []
    figures = compare(args.ref, args.repeats, chosen, args.work, loads)
    results = json.loads(args.out.read_text()) if args.out.exists() else {}
    commit = subprocess.run(["git", "rev-parse", "--short", args.ref], cwd=ROOT, capture_output=True, text=True)
    stored = results.get(args.key, {})
    if stored.get("commit") == commit.stdout.strip():  # a run of other measures against the same ref adds to it
        names = {f["name"] for f in figures}
        figures = [f for f in stored["figures"] if f["name"] not in names] + figures
    results[args.key] = {"measuredAt": datetime.now(UTC).isoformat(timespec="seconds"), "ref": args.ref,
                         "commit": commit.stdout.strip(), "machine": _machine(), "loadAverages": loads,
                         "figures": figures}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
