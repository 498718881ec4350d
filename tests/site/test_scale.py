"""The overview stays small at 10,000 conversations: detail lives on case and conversation pages."""

from __future__ import annotations

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
