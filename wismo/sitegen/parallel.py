"""The conversation and case pages rendered by several processes: most of a large site's build, each page
independent. (The case pages went to the workers too when this process, building the charts and every other page
meanwhile, was found to finish last: its share was the build's critical path at 10,000 conversations.)

Workers are forked, so they inherit the site's data (about 20 KB a conversation) instead of receiving it
pickled, and share it with this process until they touch it. Each takes a range of pages and writes them
itself; nothing but the names of the pages it wrote comes back. A page is the same bytes whichever process
renders it: the same functions build it from the same data (tests compare a parallel build with a serial one).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment

from wismo.sitegen.cases import build_case_pages, case_count
from wismo.sitegen.context import SiteData, case_url, conversation_url
from wismo.sitegen.conversation import build_conversation_pages, conversation_count
from wismo.sitegen.output import write_file

MIN_PARALLEL = 400  # fewer conversation pages than this render faster in this process than with workers
CHUNK = 250  # pages per task: enough to keep every worker busy to the end, few enough to cost little
CASE_CHUNK = 60  # case pages per task: a case page holds every repetition of the case, several conversations' worth


def write_page(env: Environment, template: str, path: Path, root: str, **context: Any) -> None:
    """Render one template into path (its folder created), over the previous build's file (output.write_file)."""
    text = env.get_template(template).render(root=root, **context)
    if not path.parent.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
    write_file(path, text.encode("utf-8"))


@dataclass(frozen=True)
class PagesJob:
    """What rendering the conversation and case pages needs: the templates, the data, the folder, the context
    every page shares and the one the case pages add."""

    env: Environment
    data: SiteData
    out_dir: Path
    common: dict[str, Any]
    case_context: dict[str, Any]

    def render(self, start: int, stop: int) -> list[str]:
        """Write the conversation pages numbered start..stop-1; return their names (relative to the site)."""
        written = []
        for page in build_conversation_pages(self.data, start, stop):
            name = conversation_url(page.card.run_id, page.conversation_id)
            write_page(self.env, "conversation.html", self.out_dir / name, "../../", page=page, **self.common)
            written.append(name)
        return written

    def render_cases(self, start: int, stop: int) -> list[str]:
        """Write the case pages numbered start..stop-1; return their names."""
        written = []
        for page in build_case_pages(self.data, start, stop):
            name = case_url(page.case_id)
            write_page(self.env, "case.html", self.out_dir / name, "../", page=page, **self.case_context,
                       **self.common)
            written.append(name)
        return written


_inherited: PagesJob | None = None  # set before the workers fork; they find their job here


def _render_inherited(start: int, stop: int) -> list[str]:
    assert _inherited is not None, "a worker must be forked after the job is set"
    return _inherited.render(start, stop)


def _render_inherited_cases(start: int, stop: int) -> list[str]:
    assert _inherited is not None, "a worker must be forked after the job is set"
    return _inherited.render_cases(start, stop)


def default_jobs() -> int:
    """The CPUs this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def can_fork() -> bool:
    """Forking is safe here: Linux and the other Unixes, not macOS (its system libraries forbid it) or Windows."""
    return "fork" in multiprocessing.get_all_start_methods() and sys.platform != "darwin"


@contextmanager
def collecting() -> Iterator[None]:
    """The garbage collector on within (whatever it was outside): rendering a page leaves reference cycles behind
    (about 70 objects a conversation page), which a build that paused the collector (wismo.sitegen.from_runs)
    must still free while it renders thousands of pages."""
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not was_enabled:
            gc.disable()


def render_pages(job: PagesJob, jobs: int, meanwhile: Callable[[], None]) -> list[str]:
    """Write every conversation and case page, with `jobs` worker processes when that pays; return the pages'
    names.

    `meanwhile` renders the site's other pages in this process while the workers render theirs.
    """
    total, cases = conversation_count(job.data), case_count(job.data)
    if jobs <= 1 or total < MIN_PARALLEL or not can_fork():
        meanwhile()
        with collecting():
            return job.render_cases(0, cases) + job.render(0, total)
    global _inherited
    _inherited = job
    for template in ("conversation.html", "case.html"):
        job.env.get_template(template)  # compiled once, here, rather than once in every worker
    # The site's data is millions of objects that live until the end. Frozen, the garbage collector of every
    # process leaves them alone: a worker's collections would otherwise walk all of them (the CPU time of a
    # build went up by half) and write to each one's header, copying the pages it shares with this process.
    gc.freeze()
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns that forking a process with threads (DuckDB's, vl-convert's) may deadlock the
            # child; these children only run Python and Jinja and write files, never those libraries.
            warnings.filterwarnings("ignore", message=r".*use of fork\(\) may lead to deadlocks",
                                    category=DeprecationWarning)
            # Each worker collects its own garbage (collecting()), the inherited data frozen out of its reach.
            with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"),
                                     initializer=gc.enable) as pool:
                # The case pages first: the largest tasks go first, so that no worker is left with one at the end.
                tasks = [pool.submit(_render_inherited_cases, start, min(start + CASE_CHUNK, cases))
                         for start in range(0, cases, CASE_CHUNK)]
                tasks += [pool.submit(_render_inherited, start, min(start + CHUNK, total))
                          for start in range(0, total, CHUNK)]
                try:
                    meanwhile()
                except BaseException:
                    for task in tasks:  # the build has failed: the pages not begun are not written
                        task.cancel()
                    raise
                written = [name for task in tasks for name in task.result()]
    finally:
        _inherited = None
        gc.unfreeze()
    if len(written) != total + cases:
        raise RuntimeError(f"the workers wrote {len(written)} of {total} conversation and {cases} case pages")
    return written
