"""The overview stays small at 10,000 conversations: detail lives on case and conversation pages."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tests.site import factories
from wismo.sitegen.assets import assets_dir
from wismo.sitegen.build import make_environment
from wismo.sitegen.context import SiteData
from wismo.sitegen.overview import build_overview
from wismo.sitegen.pages import SiteNav


def test_overview_is_under_one_megabyte_at_ten_thousand_conversations():
    site = factories.large_site(10_000)
    details = site["details_by_run"]["large-run"]
    assert len(details) >= 9_996
    data = SiteData.create(site["validations"], site["summaries"], site["details_by_run"], None, None)
    page = build_overview(data, None)
    html = make_environment(assets_dir() / "templates").get_template("overview.html").render(
        root="", page=page, invalid_runs=[], assets={"style.css": "s.css", "site.js": "s.js"},
        nav=SiteNav(version="0", built_at="now"))
    assert len(html.encode()) < 1_000_000, len(html.encode())
    assert details[0].conversation_id not in html  # no per-conversation data on the overview


def test_the_overview_lists_some_cases_and_the_case_pages_list_them_all(tmp_path):
    """550 cases (a synthetic run cloned from a real one): 50 on the overview, all on two case-list pages."""
    from benchmarks.synthetic import generate_run, record_template
    from wismo.sitegen.from_runs import build_from_runs
    from wismo.sitegen.overview import CASES_PER_PAGE, OVERVIEW_CASES

    # Playwright's sync API may hold an event loop in this thread (browser tests share the session).
    with ThreadPoolExecutor(1) as pool:
        template = pool.submit(record_template, tmp_path).result()
    run = generate_run(template, tmp_path / "many-cases", 1_100, repetitions=1)
    build = build_from_runs([run], tmp_path / "site")
    assert all(v.passed for v in build.validations)
    site = tmp_path / "site"
    index = (site / "index.html").read_text()
    assert index.count('<th scope="row"><a href="cases/') == OVERVIEW_CASES
    assert f"The first {OVERVIEW_CASES} of 550 cases." in index and '<a href="cases.html">All 550 cases →</a>' in index
    first, second = (site / "cases.html").read_text(), (site / "cases-2.html").read_text()
    assert first.count('<th scope="row"><a href="cases/') == CASES_PER_PAGE
    assert second.count('<th scope="row"><a href="cases/') == 50
    assert 'href="cases-2.html" rel="next"' in first and 'href="cases.html" rel="prev"' in second
    assert not (site / "cases-3.html").exists()
    assert len(list((site / "cases").glob("*.html"))) == 550
