"""build-site --compare-with: compare.html puts the regressions first, names the question kind, lists what
changed, is linked from the overview, escapes what the runs say, works offline; without the option the
overview has no trace of it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.errors import WismoError
from tests.analysis.test_compare import ARRIVED, build
from tests.helpers import run_wismo
from wismo.sitegen.from_runs import build_from_runs

HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture
def compared_site(tmp_path: Path) -> Path:
    baseline = build(tmp_path, "before", seed=1)
    candidate = build(tmp_path, "after", seed=2, failing=("focused", ARRIVED))
    # a tool added whose name carries markup: the page must show it as text
    manifest = candidate / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"tools": {\n    "granular": []',
                                                     '"tools": {\n    "granular": [{"name": "' + HOSTILE
                                                     + '", "description": "d", "parameters": {}}]'))
    built = build_from_runs([candidate], tmp_path / "site", compare_with=baseline)
    return built.index.parent


def test_the_comparison_page_shows_the_regressions_first_and_is_linked_from_the_overview(
        compared_site: Path, open_page: Callable[..., Any]):
    watch = open_page()
    page = watch.page
    page.goto((compared_site / "index.html").as_uri())
    link = page.locator("#comparison a")
    assert link.inner_text() == "Compared with the baseline run before: 2 regressions."
    link.click()
    page.wait_for_url("**/compare.html")
    headings = page.locator("main h2").all_inner_texts()
    assert headings[:2] == ["Regressions", "What changed between the runs"]
    alert = page.locator("[role=alert] li").all_inner_texts()
    assert alert[0].startswith("focused: pass rate −50 points") and alert[0].endswith("on every kind")
    assert alert[1].startswith("focused: pass rate −100 points") and "'has everything arrived' questions" in alert[1]
    changes = page.locator("#changes + ul li").all_inner_texts()
    assert changes == [f"granular: tool {HOSTILE}: – → added"]  # shown as text, not run
    regression_rows = page.locator("tr:has(.badge.fail)").all_inner_texts()
    assert len(regression_rows) == 2 and all("focused" not in row or "pass rate" in row for row in regression_rows)
    watch.shot("compare")
    watch.assert_clean()


def test_what_the_runs_say_is_escaped(compared_site: Path):
    text = (compared_site / "compare.html").read_text(encoding="utf-8")
    assert HOSTILE not in text and "&lt;img src=x onerror=alert(1)&gt;" in text


def test_without_a_comparison_the_overview_has_no_link_and_no_page(tmp_path: Path):
    candidate = build(tmp_path, "after", seed=2)
    built = build_from_runs([candidate], tmp_path / "site")
    assert not (built.index.parent / "compare.html").exists()
    assert 'id="comparison"' not in built.index.read_text(encoding="utf-8")


def test_compare_with_takes_one_candidate_and_refuses_before_writing(tmp_path: Path):
    first, second = build(tmp_path, "a", seed=1), build(tmp_path, "b", seed=2)
    with pytest.raises(WismoError, match="one candidate run"):
        build_from_runs([first, second], tmp_path / "site", compare_with=first)
    other = build(tmp_path, "other", seed=3, dataset_hash="sha256:9")
    done = run_wismo("build-site", str(second), "--compare-with", str(other), "--out", str(tmp_path / "site2"),
                     cwd=tmp_path)
    assert done.returncode == 2 and "cannot compare" in done.stderr
    assert not (tmp_path / "site2").exists()
