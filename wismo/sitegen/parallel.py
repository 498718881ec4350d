"""The conversation pages rendered by several processes: most of a large site's build, each page independent.

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

from wismo.sitegen.context import SiteData, conversation_url
from wismo.sitegen.conversation import build_conversation_pages, conversation_count
from wismo.sitegen.output import write_file

MIN_PARALLEL = 400  # fewer conversation pages than this render faster in this process than with workers
CHUNK = 250  # pages per task: enough to keep every worker busy to the end, few enough to cost little


def write_page(env: Environment, template: str, path: Path, root: str, **context: Any) -> None:
    """Render one template into path (its folder created), over the previous build's file (output.write_file)."""
    text = env.get_template(template).render(root=root, **context)
    if not path.parent.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
    write_file(path, text.encode("utf-8"))


@dataclass(frozen=True)
class ConversationJob:
    """What rendering conversation pages needs: the templates, the data, the folder and the shared context."""

    env: Environment
    data: SiteData
    out_dir: Path
    common: dict[str, Any]

    def render(self, start: int, stop: int) -> list[str]:
        """Write the conversation pages numbered start..stop-1; return their names (relative to the site)."""
        written = []
        for page in build_conversation_pages(self.data, start, stop):
            name = conversation_url(page.card.run_id, page.conversation_id)
            write_page(self.env, "conversation.html", self.out_dir / name, "../../", page=page, **self.common)
            written.append(name)
        return written


_inherited: ConversationJob | None = None  # set before the workers fork; they find their job here


def _render_inherited(start: int, stop: int) -> list[str]:
    assert _inherited is not None, "a worker must be forked after the job is set"
    return _inherited.render(start, stop)


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


def render_conversations(job: ConversationJob, jobs: int, meanwhile: Callable[[], None]) -> list[str]:
    """Write every conversation page, with `jobs` worker processes when that pays; return the pages' names.

    `meanwhile` renders the site's other pages in this process while the workers render theirs.
    """
    total = conversation_count(job.data)
    if jobs <= 1 or total < MIN_PARALLEL or not can_fork():
        meanwhile()
        with collecting():
            return job.render(0, total)
    global _inherited
    _inherited = job
    job.env.get_template("conversation.html")  # compiled once, here, rather than once in every worker
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
                tasks = [pool.submit(_render_inherited, start, min(start + CHUNK, total))
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
    if len(written) != total:
        raise RuntimeError(f"the workers wrote {len(written)} of {total} conversation pages")
    return written
