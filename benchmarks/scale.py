"""Benchmarks 3 and 4: analysis and site build at scale, each measured in a fresh child process.

A fresh process per measurement keeps one measurement's caches and peak memory out of the next.
Peak memory is the child's own high-water mark (VmHWM), which it reports as it exits: the ru_maxrss
that wait4 reports is no use here, because Linux carries the parent's resident size over the
fork and exec into it, so every child looked at least as large as this (generating) process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from benchmarks.stats import Figure, figure
from benchmarks.synthetic import generate_run, record_template
from wismo.sitegen.parallel import default_jobs

# Every line parsed by read_json, as the analysis reads it (newline-delimited records, errors ignored),
# with the schema given as the analysis gives it: left to detect the schema, read_json first samples the
# file, which the analysis never does (78 % of this scan at 1k conversations, 22 % at 100k).
BARE_SCAN = """
import duckdb, sys
path = sys.argv[1]
con = duckdb.connect()
print(con.execute("select count(*) from read_json(?, format='newline_delimited', records=true, "
                  "ignore_errors=true, columns={type: 'VARCHAR'})", [path]).fetchall()[0][0])
"""

# What `wismo summarize` and build-site do: every check, then the metrics, on one load of the run.
VALIDATE_AND_SUMMARIZE = """
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO
from analysis import analyze_runs
[analysis] = analyze_runs([Path(sys.argv[1])])
assert analysis.validation.passed, [c.name for c in analysis.validation.checks if not c.passed]
assert analysis.summary is not None
"""

# `wismo summarize --json` as printed by default, and with both lists that grow with the run.
SUMMARIZE_JSON = {"": (), " --cases --paired": ("--cases", "--paired")}

# Runs argv[2:] (-c CODE ARGS or -m MODULE ARGS) as __main__, then writes to argv[1] its VmHWM in kB and
# the largest high-water mark of the worker processes it forked (pages shared with it counted in both).
PEAK_WRAPPER = """
import atexit, resource, runpy, sys
peak_file = sys.argv[1]
def report():
    with open("/proc/self/status") as status:
        peak = next((line.split()[1] for line in status if line.startswith("VmHWM:")), "")
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(peak_file, "w") as out:
        out.write(f"{peak} {workers}")
atexit.register(report)
mode, target, *rest = sys.argv[2:]
sys.argv = [target if mode == "-m" else "-c", *rest]
if mode == "-m":
    runpy.run_module(target, run_name="__main__", alter_sys=True)
else:
    exec(compile(target, "<benchmark>", "exec"), {"__name__": "__main__"})
"""


@dataclass(frozen=True)
class Measured:
    """One fresh process: wall time, CPU time (its workers' included), its peak memory, its largest worker's."""

    wall_s: float
    cpu_s: float
    peak_mb: float
    worker_peak_mb: float


def measure_process(argv: list[str], what: str, stdout: int | IO[bytes] = subprocess.DEVNULL) -> Measured:
    """Run `python *argv` in a fresh interpreter (in this process's folder, with its environment)."""
    with tempfile.NamedTemporaryFile("r", suffix=".peak") as peak_file:
        wrapped = ["-c", PEAK_WRAPPER, peak_file.name, *argv] if Path("/proc/self/status").exists() else argv
        started = time.perf_counter()
        process = subprocess.Popen([sys.executable, *wrapped], stdout=stdout)
        _, status, usage = os.wait4(process.pid, 0)  # its usage includes the workers it waited for
        wall = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"benchmark child failed: {what}")
        peak_kb, _, workers_kb = peak_file.read().strip().partition(" ")
    return Measured(wall, usage.ru_utime + usage.ru_stime, (int(peak_kb) if peak_kb else usage.ru_maxrss) / 1024,
                    int(workers_kb or 0) / 1024)


def _measure(argv: list[str], what: str) -> tuple[float, float]:
    """Run `python *argv` in a fresh interpreter; return (wall seconds, peak resident MB)."""
    measured = measure_process(argv, what)
    return measured.wall_s, measured.peak_mb


def _child(code: str, *args: str) -> tuple[float, float]:
    """Run code in a fresh interpreter; return (wall seconds, peak resident MB)."""
    return _measure(["-c", code, *args], f"{code.strip().splitlines()[-1]} {args}")


def _summarize_json(run: Path, *options: str) -> tuple[float, float, float]:
    """`wismo summarize --json` into a file, as a user redirects it: (wall s, peak MB, output MB)."""
    with tempfile.TemporaryFile() as out:
        measured = measure_process(["-m", "wismo.cli", "summarize", "--json", *options, str(run)], "summarize", out)
        return measured.wall_s, measured.peak_mb, out.tell() / 1e6


def _runs(work: Path, sizes: list[int]) -> dict[int, Path]:
    template = record_template(work)
    runs = {}
    for size in sizes:
        run = work / f"synthetic-{size}"
        if not (run / "manifest.json").exists():
            generate_run(template, run, size)
        runs[size] = run
    return runs


def analysis_at_scale(work: Path, sizes: list[int], repeats: int) -> list[Figure]:
    """validate + summarize against a bare DuckDB count(*) of the same file, with peak memory."""
    figures = []
    for size, run in _runs(work, sizes).items():
        events = str(run / "events.jsonl")
        scans = [_child(BARE_SCAN, events) for _ in range(repeats)]
        analyses = [_child(VALIDATE_AND_SUMMARIZE, str(run)) for _ in range(repeats)]
        scan_median = sorted(w for w, _ in scans)[len(scans) // 2]
        megabytes = (run / "events.jsonl").stat().st_size / 1e6
        figures += [
            figure(f"Bare DuckDB count(*) scan, {size:,} conversations ({megabytes:,.0f} MB)", "s",
                   [w for w, _ in scans]),
            figure(f"validate + summarize, {size:,} conversations", "s", [w for w, _ in analyses],
                   f"≤ 2 × bare scan = {2 * scan_median:.2f} s", 2 * scan_median),
            figure(f"validate + summarize peak memory, {size:,} conversations", "MB", [m for _, m in analyses]),
        ]
        for label, options in SUMMARIZE_JSON.items():
            printed = [_summarize_json(run, *options) for _ in range(repeats)]
            # The goal of the default --json: at most 4 × the bare scan of the same file (issue 21).
            goal = (f"≤ 4 × bare scan = {4 * scan_median:.2f} s", 4 * scan_median) if not options else (None, None)
            figures += [
                figure(f"wismo summarize --json{label}, {size:,} conversations", "s", [w for w, _, _ in printed],
                       *goal),
                figure(f"  --json{label} output, {size:,} conversations", "MB", [o for _, _, o in printed]),
                figure(f"  --json{label} peak memory, {size:,} conversations", "MB", [m for _, m, _ in printed]),
            ]
    return figures


def _folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def site_at_scale(work: Path, sizes: list[int], repeats: int) -> list[Figure]:
    """build-site wall and CPU time and memory (one process per CPU, and one process), overview and site size."""
    figures = []
    for size, run in _runs(work, sizes).items():
        out = work / f"site-{size}"
        goal = ("≤ 10 s", 10.0) if size >= 10_000 else (None, None)  # issue 21 (it was < 60 s)
        for label, options in {f"{default_jobs()} processes (default)": (), "--jobs 1": ("--jobs", "1")}.items():
            argv = ["-m", "wismo.cli", "build-site", str(run), "--out", str(out), *options]
            samples = [measure_process(argv, f"build-site {size} {label}") for _ in range(repeats)]
            figures += [
                figure(f"build-site, {size:,} conversations, {label}", "s", [m.wall_s for m in samples], *goal),
                figure(f"  CPU time, {size:,} conversations, {label}", "s", [m.cpu_s for m in samples]),
                figure(f"  peak memory, main process, {size:,} conversations, {label}", "MB",
                       [m.peak_mb for m in samples]),
            ]
            if not options:
                figures.append(figure(f"  peak memory, largest worker, {size:,} conversations (shared pages counted)",
                                      "MB", [m.worker_peak_mb for m in samples]))
        overview = (out / "index.html").stat().st_size / 1e6
        figures.append(figure(f"overview page size, {size:,} conversations", "MB", [overview], "< 1 MB", 1.0))
        figures.append(figure(f"whole site size, {size:,} conversations", "MB", [_folder_size(out) / 1e6]))
    return figures
