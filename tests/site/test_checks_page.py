"""The check report says first what a failing check would make wrong in the figures, then the SQL behind it."""

from __future__ import annotations

from dataclasses import replace

from analysis.checks import CHECKS
from analysis.model import CheckResult
from tests.site import factories
from tests.site.test_pages import data_for
from wismo.sitegen.checks import CHECK_MEANINGS, build_check_report, plural


def test_every_analysis_check_has_a_meaning_in_the_readers_terms():
    assert set(CHECK_MEANINGS) == {spec.name for spec in CHECKS}
    # In the reader's terms: what would go wrong with the figures (or why it does not count), not the SQL.
    assert all(("would" in text or "never counted" in text or "left out" in text) and ".sql" not in text
               for text in CHECK_MEANINGS.values())


def test_plurals_agree_with_their_counts():
    assert plural(1, "offending row") == "1 offending row"
    assert plural(2, "offending row") == "2 offending rows"
    assert plural(1_200, "row") == "1,200 rows"


def _site_with(check: CheckResult):
    site = factories.offline_site()
    [validation] = site["validations"]
    site["validations"] = [replace(validation, checks=[check, *validation.checks[1:]])]
    return site


def test_a_known_check_shows_its_meaning_then_its_query():
    row = ("carrier-delay.focused.r1", 2411, 2390)
    check = CheckResult("claimed_counters", "Claimed counters that differ from the events.",
                        "check_claimed_counters.sql", ["conversationId", "claimed", "traced"], [row], 1)
    [run] = build_check_report(data_for(_site_with(check))).runs
    [shown] = [c for c in run.checks if c.name == "claimed_counters"]
    assert shown.meaning == CHECK_MEANINGS["claimed_counters"]
    assert shown.description == "Claimed counters that differ from the events."
    assert shown.status == "fail: 1 offending row"


def test_the_rendered_report_puts_the_meaning_before_the_sql_name(build):
    check = CheckResult("stored_scores", "Stored scores that differ from a re-computation.",
                        "check_stored_scores.sql", ["conversationId"], [("carrier-delay.focused.r1",)] * 1, 1,
                        severity="notice")
    html = (build(_site_with(check)) / "checks.html").read_text(encoding="utf-8")
    meaning = html.index(CHECK_MEANINGS["stored_scores"])
    assert meaning < html.index("Stored scores that differ") < html.index("check_stored_scores.sql")
    assert "notice: 1 row<" in html and "1 rows" not in html
