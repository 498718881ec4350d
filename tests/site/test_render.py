"""Rendered pages: autoescaped model and dataset text, inlined JSON that cannot break out, no network."""

from __future__ import annotations

import json
import re

import pytest

from tests.site import factories
from wismo.sitegen import build_site
from wismo.sitegen.errors import SiteError

PAGES = ("index.html", "cases/delivered-on-time.html", "review.html", "checks.html",
         "conversations/hostile-run/delivered-on-time.granular.r1.html",
         "conversations/hostile-run/delivered-on-time.focused.r1.html")


def test_every_page_is_written(build):
    out = build(factories.two_run_site())
    assert (out / "index.html").is_file() and (out / "checks.html").is_file() and (out / "review.html").is_file()
    assert len(list((out / "cases").glob("*.html"))) == 7
    assert len(list((out / "conversations" / "sample-offline").glob("*.html"))) == 42
    assert len(list((out / "conversations" / "20261130T101500Z-openai-gpt-5-mini").glob("*.html"))) == 28


def test_hostile_text_is_escaped_everywhere(build):
    out = build(factories.hostile_site())
    for name in PAGES:
        html = (out / name).read_text()
        assert "<script>window.__pwned" not in html, name
        assert "<img src=x" not in html, name
        assert "onerror=\"window" not in html, name
    index = (out / "index.html").read_text()
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in index  # the question and the tool descriptions
    focused = (out / PAGES[-1]).read_text()
    assert "&lt;/script&gt;&lt;script&gt;" in focused  # the raw final text
    assert "&lt;img src=x onerror=" in focused  # inside the pretty-printed tool result


OWN_SCRIPT = r'<script src="(\.\./)*static/(site|review|review-filter|imported-reviews)\.[0-9a-f]{8}\.js" defer>'


def test_only_the_sites_own_scripts_are_loaded(build):
    out = build(factories.hostile_site())
    for name in PAGES:
        html = (out / name).read_text()
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert re.fullmatch(OWN_SCRIPT, tag) or tag == '<script type="application/json" id="review-data">', \
                (name, tag)
        assert "Content-Security-Policy" in html and "script-src 'self'" in html and "connect-src 'none'" in html


def test_inlined_review_data_cannot_end_its_script_element(build):
    out = build(factories.hostile_site())
    html = (out / "review.html").read_text()
    start = html.index('<script type="application/json" id="review-data">') + len(
        '<script type="application/json" id="review-data">')
    body = html[start:html.index("</script>", start)]
    assert "<" not in body and ">" not in body
    data = json.loads(body)
    assert any(factories.HOSTILE in item["summary"] for item in data["items"])


def test_no_page_refers_to_the_network(build):
    out = build(factories.with_failing_run(factories.two_run_site()))
    for path in out.rglob("*"):
        if path.suffix in (".html", ".css", ".js"):
            text = path.read_text()
            # Only the SVG namespace URIs may look like URLs; nothing is fetched from them.
            urls = set(re.findall(r"https?://[^\s\"')]+", text)) - {"http://www.w3.org/2000/svg",
                                                                      "http://www.w3.org/1999/xlink"}
            assert not urls, (path, urls)
            assert "@import" not in text and "fetch(" not in text and "XMLHttpRequest" not in text


def test_a_failing_run_is_not_presented_as_valid(build):
    out = build(factories.with_failing_run(factories.offline_site()))
    index = (out / "index.html").read_text()
    assert "Run broken-run failed validation and is not presented." in index
    assert 'href="checks.html#run-broken-run"' in index
    # One run's results section (the matrix's caption also starts "Results:", so count the headings).
    assert "Results: scripted-policy-v1" in index and len(re.findall(r'<h2 id="run-[^"]*">Results: ', index)) == 1
    case = (out / "cases" / "carrier-delay.html").read_text()
    assert "broken-run failed validation" in case and case.count("run broken-run") == 0
    conversation = (out / "conversations" / "broken-run" / "carrier-delay.focused.r1.html").read_text()
    assert "failed validation: nothing on this page is validated" in conversation
    checks = (out / "checks.html").read_text()
    assert "✗ failed validation" in checks and "carrier-delay.focused.r1" in checks


def test_only_failing_runs_still_build_a_site_that_says_so(build):
    site = factories.offline_site()
    run = site["validations"][0].run
    out = build({"validations": [factories.validation(run, failing=True)], "summaries": site["summaries"],
                 "details_by_run": site["details_by_run"]})
    index = (out / "index.html").read_text()
    assert "failed validation and is not presented" in index and "Results:" not in index
    assert "No run passed validation" in index
    assert "nothing to review" in (out / "review.html").read_text()


def test_the_output_folder_is_replaced_only_if_wismo_built_it(build, tmp_path):
    out = build(factories.offline_site())
    (out / "stale.html").write_text("old")
    # A file no build wrote is kept, and the build refuses the folder (tests/site/test_output_folder.py).
    with pytest.raises(SiteError, match=r"holds files an earlier build did not write \(stale.html\)"):
        build(factories.offline_site(), out=out)
    assert (out / "stale.html").read_text() == "old"
    (out / "stale.html").unlink()
    build(factories.offline_site(), out=out)
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(SiteError, match="not empty and was not built by wismo"):
        build_site(**factories.offline_site(), out_dir=foreign)
    assert (foreign / "notes.txt").read_text() == "keep me"


def test_the_output_folder_may_not_be_inside_the_sources(tmp_path):
    from wismo.sitegen.assets import assets_dir

    with pytest.raises(SiteError, match="inside the site's sources"):
        build_site(**factories.offline_site(), out_dir=assets_dir() / "out")


def test_review_counts_appear_on_overview_and_case_pages(build, tmp_path):
    from tests.site.test_reviews import entry, write
    from wismo.sitegen.reviews import load_reviews

    site = factories.offline_site()
    detail = site["details_by_run"]["sample-offline"][0]
    path = write(tmp_path, {"version": 1, "reviews": [entry("sample-offline", detail.conversation_id,
                                                            detail.customer_summary, "not_justified")]})
    out = build(site, reviews=load_reviews([path]))
    index = (out / "index.html").read_text()
    assert "1 verdicts applied, 0 stale" in index
    assert "reviews: 0 justified · 1 not justified · 0 unsure" in index
    case = (out / "cases" / f"{detail.case_id}.html").read_text()
    assert "reviewed: not justified" in case and "1 not justified" in case


def test_a_provider_that_reported_no_tokens_still_builds(build):
    from dataclasses import replace

    from analysis.model import Stat

    site = factories.offline_site()
    details = [replace(d, input_tokens=None, output_tokens=None, total_tokens=None,
                       turn_details=[replace(t, input_tokens=None, output_tokens=None, carried_tokens=None,
                                             new_tokens=None) for t in d.turn_details])
               for d in site["details_by_run"]["sample-offline"]]
    [summary] = site["summaries"]
    designs = [replace(m, stats={**m.stats, **{k: Stat(None, None, None, 0) for k in
                                               ("inputTokens", "outputTokens", "totalTokens")}})
               for m in summary.designs]
    out = build({**site, "summaries": [replace(summary, designs=designs)],
                 "details_by_run": {"sample-offline": details}})
    index = (out / "index.html").read_text()
    assert "granular: median – over 0 conversations" in index
    conversation = (out / "conversations" / "sample-offline" / "carrier-delay.granular.r1.html").read_text()
    assert "no token counts reported" in conversation and 'class="bar"' not in conversation


def test_imported_reviews_become_a_script_that_only_assigns_data(build, tmp_path):
    from tests.site.test_reviews import entry2, write
    from wismo.sitegen.reviews import load_reviews

    site = factories.hostile_site()
    detail = site["details_by_run"]["hostile-run"][0]
    note = factories.HOSTILE + " \u2028 line separator"
    path = write(tmp_path, {"version": 2, "reviews": [entry2("hostile-run", detail.conversation_id,
                                                              detail.customer_summary, None, note=note)]})
    out = build(site, reviews=load_reviews([path]))
    [script] = (out / "static").glob("imported-reviews.*.js")
    text = script.read_text()
    prefix, suffix = "window.wismoImportedReviews = ", ";\n"
    assert text.startswith(prefix) and text.endswith(suffix) and text.isascii() and "<" not in text
    document = json.loads(text[len(prefix):-len(suffix)])
    assert [e["note"] for e in document["entries"]] == [note] and document["entries"][0]["applied"]
    assert script.name in (out / "review.html").read_text()
    assert "imported-reviews" not in (out / "index.html").read_text()
