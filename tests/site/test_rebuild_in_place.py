"""A rebuild writes its pages over the previous build's files (issue 21): the same site, never through a link.

Rewriting a file keeps its inode, where deleting it and creating it anew cost the file system far more; the
folder must still end up holding this build's files alone, as if the old ones had been deleted first.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.site import factories
from tests.site.conftest import BUILT_AT
from wismo.sitegen import build_site, charts, parallel
from wismo.sitegen.errors import SiteError, SiteWriteError
from wismo.sitegen.output import MARKER, write_file


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*"))
            if p.is_file() and not p.name.startswith(MARKER)}


def _listed(site: Path) -> list[str]:
    return sorted(json.loads((site / MARKER).read_text())["files"])


def _build(site: dict, out: Path, **extra) -> None:
    build_site(**site, out_dir=out, built_at=BUILT_AT, jobs=1, **extra)


def test_a_rebuild_rewrites_every_page_in_place_and_ends_as_a_fresh_build(tmp_path):
    fresh, rebuilt = tmp_path / "fresh", tmp_path / "rebuilt"
    _build(factories.two_run_site(), rebuilt)  # another site first: more pages, other runs
    before = _files(rebuilt)
    inodes = {name: (rebuilt / name).stat().st_ino for name in before}
    _build(factories.offline_site(), rebuilt)
    _build(factories.offline_site(), fresh)
    after = _files(rebuilt)
    assert after == _files(fresh)  # the same bytes as a build into an empty folder, and no file more
    assert _listed(rebuilt) == sorted(after)
    kept = [name for name in after if name in before]
    assert kept and set(before) - set(after)  # pages written again, and pages the second site no longer has
    assert [name for name in kept if (rebuilt / name).stat().st_ino != inodes[name]] == []
    longer = [name for name in kept if len(before[name]) > len(after[name])]
    assert longer  # a page that shrank: its old tail was cut, as the equality above already shows


def test_a_page_planted_as_a_hard_link_is_replaced_not_written_through(tmp_path):
    site = tmp_path / "site"
    _build(factories.offline_site(), site)
    precious = tmp_path / "precious.html"
    precious.write_text("precious")
    (site / "index.html").unlink()
    os.link(precious, site / "index.html")  # listed by the marker, a plain file: the checks let it through
    _build(factories.offline_site(), site)
    assert precious.read_text() == "precious"
    assert (site / "index.html").stat().st_ino != precious.stat().st_ino
    assert "<html" in (site / "index.html").read_text()


def test_write_file_never_follows_a_symlink_and_cuts_what_the_old_file_held_beyond_the_new_bytes(tmp_path):
    outside = tmp_path / "outside.html"
    outside.write_text("precious")
    (tmp_path / "link.html").symlink_to(outside)
    with pytest.raises(OSError):
        write_file(tmp_path / "link.html", b"page")
    assert outside.read_text() == "precious"
    page = tmp_path / "page.html"
    write_file(page, b"a long first version")
    inode = page.stat().st_ino
    write_file(page, b"short")
    assert page.read_bytes() == b"short" and page.stat().st_ino == inode


def test_a_rebuild_that_fails_half_way_leaves_only_its_own_files_listed_and_the_next_build_works(
        tmp_path, monkeypatch):
    site = tmp_path / "site"
    _build(factories.two_run_site(), site)
    previous = _files(site)

    def broken(self, start, stop):
        raise OSError(f"disk full while writing pages {start}-{stop}")
    with monkeypatch.context() as patch:
        patch.setattr(parallel.ConversationJob, "render", broken)
        with pytest.raises(SiteWriteError, match="disk full"):
            _build(factories.offline_site(), site)
    left = _files(site)
    # No conversation page was written, so none of the previous build's is left; the other pages are new.
    assert not any(name.startswith("conversations/") for name in left)
    assert left["index.html"] != previous["index.html"] and _listed(site) == sorted(left)
    _build(factories.offline_site(), site)
    fresh = tmp_path / "fresh"
    _build(factories.offline_site(), fresh)
    assert _files(site) == _files(fresh)


@pytest.mark.skipif(not parallel.can_fork(), reason="worker processes are forked (Linux)")
def test_a_chart_refused_while_the_workers_render_fails_the_build_and_leaves_the_folder_buildable(
        tmp_path, monkeypatch):
    site = tmp_path / "site"
    monkeypatch.setattr(parallel, "MIN_PARALLEL", 0)
    monkeypatch.setattr(parallel, "CHUNK", 7)
    with monkeypatch.context() as patch:
        patch.setattr(charts.vl_convert, "vegalite_to_svg", lambda spec: '<svg onload="x()"></svg>')
        with pytest.raises(SiteError, match="event handler"):
            build_site(**factories.offline_site(), out_dir=site, built_at=BUILT_AT, jobs=2)
    left = _files(site)
    assert "index.html" not in left and "onload" not in "".join(p.decode() for p in left.values())
    assert _listed(site) == sorted(left)
    build_site(**factories.offline_site(), out_dir=site, built_at=BUILT_AT, jobs=2)
    fresh = tmp_path / "fresh"
    _build(factories.offline_site(), fresh)
    assert _files(site) == _files(fresh)
