"""Golden-file tests: generated pages compared with committed copies, volatile parts scrubbed.

On a mismatch the actual page is saved beside its gold copy as `<name>.actual.html` (git-ignored).
After checking the difference is intended, refresh every gold copy with:

    WISMO_REFRESH_GOLD=1 python -m pytest tests/site/test_gold.py
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.helpers import marked_command
from tests.site import factories
from tests.site.test_reviews import entry, write
from wismo.sitegen.reviews import load_reviews

GOLD = Path(__file__).parent / "gold"
REFRESH = "WISMO_REFRESH_GOLD=1 python -m pytest tests/site/test_gold.py"
SCRUBS = [
    # Static files are named by their content hash: a CSS change must not touch every gold page.
    (re.compile(r"(static/[a-z-]+)\.[0-9a-f]{8}\.(css|js)"), r"\1.HASH.\2"),
    (re.compile(r"<time>[^<]*</time>"), "<time>BUILT_AT</time>"),
    (re.compile(r"wismo \d+\.\d+\.\d+[\w.+-]*"), "wismo VERSION"),
    # Chart SVGs come from vl-convert and change with its version; test_charts checks their content.
    (re.compile(r'(<svg aria-hidden="true" focusable="false" data-chart="[^"]+").*?</svg>', re.S),
     r"\1>[chart]</svg>"),
]
MAIN_PAGES = {
    "index.html": "index.html",
    "case-tracking-unavailable.html": "cases/tracking-unavailable.html",
    "conversation-partial-delivery.granular.r1.html": "conversations/sample-offline/partial-delivery.granular.r1.html",
    "conversation-payment-declined.focused.r3.html": "conversations/sample-offline/payment-declined.focused.r3.html",
    "checks.html": "checks.html",
}
# A run of three designs (issue 16): the overview and a case page, where a column per design and each other
# design's difference from the baseline show.
THREE_DESIGN_PAGES = {
    "three-designs-index.html": "index.html",
    "three-designs-case-carrier-delay.html": "cases/carrier-delay.html",
}


def scrub(html: str) -> str:
    """Replace the parts that change from build to build."""
    for pattern, replacement in SCRUBS:
        html = pattern.sub(replacement, html)
    return html


def compare(gold_name: str, page: Path) -> None:
    """Compare one page with its gold copy (or rewrite the gold copy when refreshing)."""
    actual = scrub(page.read_text(encoding="utf-8"))
    gold = GOLD / gold_name
    if os.environ.get("WISMO_REFRESH_GOLD") == "1":
        GOLD.mkdir(exist_ok=True)
        gold.write_text(actual, encoding="utf-8")
        return
    saved = gold.with_name(gold.stem + ".actual.html")
    if not gold.exists() or gold.read_text(encoding="utf-8") != actual:
        saved.write_text(actual, encoding="utf-8")
        pytest.fail(f"{gold_name} differs from its gold copy (or has none); the actual page is in {saved}. "
                    f"If the change is intended, refresh the gold copies: {REFRESH}")
    saved.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def main_site(tmp_path_factory):
    from tests.site.conftest import BUILT_AT
    from wismo.sitegen import build_site

    tmp = tmp_path_factory.mktemp("gold")
    site = factories.with_failing_run(factories.two_run_site())
    details = site["details_by_run"]["sample-offline"]
    reviewed = [d for d in details if d.case_id == "tracking-unavailable"]
    raw = [entry("sample-offline", d.conversation_id, d.customer_summary, verdict)
           for d, verdict in zip(reviewed, ["justified", "not_justified", "unsure", "justified"], strict=False)]
    raw.append(entry("sample-offline", "tracking-unavailable.focused.r3", "an earlier summary"))
    reviews = load_reviews([write(tmp, {"version": 1, "reviews": raw}, "reviews.json")])
    out = tmp / "site"
    build_site(**site, out_dir=out, reviews=reviews, findings_by_run=factories.findings_fixture(), built_at=BUILT_AT)
    return out


@pytest.mark.parametrize("gold_name", sorted(MAIN_PAGES))
def test_main_pages_match_their_gold_copies(main_site, gold_name):
    compare(gold_name, main_site / MAIN_PAGES[gold_name])


@pytest.mark.parametrize("gold_name", sorted(THREE_DESIGN_PAGES))
def test_three_design_pages_match_their_gold_copies(build, gold_name):
    out = build(factories.three_design_site())
    compare(gold_name, out / THREE_DESIGN_PAGES[gold_name])


def test_review_page_matches_its_gold_copy(build):
    out = build(factories.one_case_site())
    compare("review.html", out / "review.html")


def test_scrubs_leave_a_stable_page():
    html = ('<link href="static/style.0123abcd.css"><time>2026</time> wismo 0.1.0 '
            '<svg aria-hidden="true" focusable="false" data-chart="x" width="2"><g/></svg>')
    assert scrub(html) == ('<link href="static/style.HASH.css"><time>BUILT_AT</time> wismo VERSION '
                           '<svg aria-hidden="true" focusable="false" data-chart="x">[chart]</svg>')


def test_the_site_page_documents_the_refresh_command():
    assert marked_command("gold-refresh-command", "docs/site.md") == REFRESH
