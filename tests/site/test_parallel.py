"""Conversation pages rendered by worker processes: the site is the same bytes as a build in one process."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from tests.site import factories
from tests.site.conftest import BUILT_AT
from tests.site.test_reviews import entry, write
from wismo.sitegen import build_site, parallel
from wismo.sitegen.context import SiteData
from wismo.sitegen.conversation import build_conversation_pages, conversation_count
from wismo.sitegen.errors import SiteWriteError
from wismo.sitegen.reviews import load_reviews

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="worker processes are forked (Linux)")


def _files(site: Path) -> dict[str, bytes]:
    return {str(path.relative_to(site)): path.read_bytes() for path in sorted(site.rglob("*")) if path.is_file()}


class CountingPool(ProcessPoolExecutor):
    """The pool build_site uses, counting the tasks it is given."""

    submitted = 0

    def submit(self, *args, **kwargs):  # type: ignore[override]
        CountingPool.submitted += 1
        return super().submit(*args, **kwargs)


def _everything(tmp_path: Path) -> dict:
    """Two runs and a failing one, claim findings and imported reviews: every kind of conversation page."""
    site = factories.with_failing_run(factories.two_run_site())
    reviewed = site["details_by_run"]["sample-offline"][:3]
    raw = [entry("sample-offline", d.conversation_id, d.customer_summary, verdict)
           for d, verdict in zip(reviewed, ["justified", "not_justified", "unsure"], strict=True)]
    reviews = load_reviews([write(tmp_path, {"version": 1, "reviews": raw})])
    return {**site, "reviews": reviews, "findings_by_run": factories.findings_fixture()}


def test_a_parallel_build_is_byte_for_byte_the_serial_one(tmp_path, monkeypatch):
    site = _everything(tmp_path)
    build_site(**site, out_dir=tmp_path / "serial", built_at=BUILT_AT, jobs=1)
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 0)  # the fixture's few dozen pages, in tasks of 7
    monkeypatch.setattr(parallel, "CHUNK", 7)
    monkeypatch.setattr(parallel, "ProcessPoolExecutor", CountingPool)
    build_site(**site, out_dir=tmp_path / "parallel", built_at=BUILT_AT, jobs=3)
    serial, parallel_files = _files(tmp_path / "serial"), _files(tmp_path / "parallel")
    conversations = [name for name in serial if name.startswith("conversations/")]
    assert len(conversations) > 3 * 7
    assert CountingPool.submitted == -(-len(conversations) // 7)  # every page went through the workers
    assert list(parallel_files) == list(serial)
    assert [name for name in serial if parallel_files[name] != serial[name]] == []


def test_the_pages_of_any_range_are_those_of_the_whole_list():
    site = factories.with_failing_run(factories.two_run_site())
    data = SiteData.create(site["validations"], site["summaries"], site["details_by_run"], None, None)
    every = [page.conversation_id for page in build_conversation_pages(data)]
    assert len(every) == conversation_count(data) > 2 * len(site["details_by_run"]["sample-offline"])
    cut = len(site["details_by_run"]["sample-offline"])
    for start, stop in [(0, 5), (cut - 2, cut + 3), (cut, len(every)), (len(every) - 1, len(every) + 9)]:
        assert [page.conversation_id for page in build_conversation_pages(data, start, stop)] == every[start:stop]


def test_a_failing_worker_fails_the_build(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 0)
    monkeypatch.setattr(parallel, "CHUNK", 7)

    def broken(self, start, stop):
        raise OSError(f"disk full while writing pages {start}-{stop}")
    monkeypatch.setattr(parallel.ConversationJob, "render", broken)
    # A worker's write failure is the build's one-line write error (exit 3), its cause quoted.
    with pytest.raises(SiteWriteError, match=r"cannot write the site into .*: disk full while writing pages 0-7"):
        build_site(**factories.offline_site(), out_dir=tmp_path / "site", built_at=BUILT_AT, jobs=2)
