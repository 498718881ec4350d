"""Review keys (shared with review.js), reading exported files, and folding verdicts into a build."""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.site import factories
from wismo.sitegen.errors import ReviewsError
from wismo.sitegen.reviews import ReviewEntry, csv_text, fold_reviews, load_reviews, review_key, summary_sha

# Texts the browser test hashes too: non-ASCII, an emoji (a surrogate pair in JS), a lone surrogate, NUL.
KEY_TEXTS = ["Your dock was delivered.", "Zustellung am 5. Oktober – Größe M, 東京へ配送中 ✓",
             "Good news 📦🚚!", "broken \ud800 surrogate", "nul \0 inside", ""]


def test_summary_sha_is_sha256_of_utf8():
    assert summary_sha("héllo") == hashlib.sha256("héllo".encode()).hexdigest()


def test_lone_surrogates_hash_like_the_browser_textencoder():
    # TextEncoder turns a lone surrogate into U+FFFD; Python must do the same instead of failing.
    assert summary_sha("a\ud800b") == hashlib.sha256("a\ufffdb".encode()).hexdigest()


def test_key_binds_run_conversation_and_summary():
    sha = summary_sha("text")
    key = review_key("run", "case.granular.r1", sha)
    assert key == hashlib.sha256(f"wismo-review-v1\0run\0case.granular.r1\0{sha}".encode()).hexdigest()
    assert key != review_key("run", "case.granular.r2", sha)
    assert key != review_key("run", "case.granular.r1", summary_sha("text!"))


def entry(run_id, conversation_id, summary, verdict="justified", reviewed_at="2026-11-30T10:00:00Z", **over):
    sha = summary_sha(summary)
    raw = {"key": review_key(run_id, conversation_id, sha), "runId": run_id, "conversationId": conversation_id,
           "design": conversation_id.split(".")[1], "summarySha": sha, "verdict": verdict, "note": "",
           "reviewedAt": reviewed_at}
    raw.update(over)
    return raw


def entry2(run_id, conversation_id, summary, verdict="justified", reviewed_at="2026-11-30T10:00:00Z", **over):
    """An entry as the page exports it today (version 2): a case, a reviewer, and a verdict that may be None."""
    return entry(run_id, conversation_id, summary, verdict, reviewed_at,
                 **{"caseId": conversation_id.split(".")[0], "reviewer": "Ada", **over})


def write(tmp_path, document, name="reviews.json"):
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


def test_load_reads_an_exported_file(tmp_path):
    path = write(tmp_path, {"version": 1, "exportedAt": "x", "reviews": [entry("r", "c.granular.r1", "s")]})
    [loaded] = load_reviews([path])
    assert isinstance(loaded, ReviewEntry) and loaded.verdict == "justified" and loaded.source == str(path)


@pytest.mark.parametrize(("document", "message"), [
    ("{not json", "not a JSON file exported by the review page"),
    ([], "expected an exported reviews file"),
    ({"version": 3, "reviews": []}, "\"version\": 1 or 2, found 3"),
    ({"version": 1}, "\"reviews\" must be a list"),
    ({"version": 1, "reviews": [42]}, r"reviews\[0\]: expected an object"),
    ({"version": 1, "reviews": [{"key": "k"}]}, r"reviews\[0\]: missing runId"),
    ({"version": 1, "reviews": [entry("r", "c.granular.r1", "s", verdict="great")]}, "'great' is not one of"),
    ({"version": 1, "reviews": [entry("r", "c.granular.r1", "s", note=3)]}, r"reviews\[0\]\.note: must be a string"),
    ({"version": 1, "reviews": [entry("r", "c.granular.r1", "s", key="0" * 64)]}, "edited by hand"),
    # Version 1 had no notes without a verdict; version 2 needs its reviewer and case fields.
    ({"version": 1, "reviews": [entry("r", "c.granular.r1", "s", verdict=None)]}, r"verdict: must be a string$"),
    ({"version": 2, "reviews": [entry("r", "c.granular.r1", "s")]}, r"reviews\[0\]: missing caseId, reviewer"),
    ({"version": 2, "reviews": [entry2("r", "c.granular.r1", "s", verdict="")]}, r"'' is not one of .* \(or null\)"),
])
def test_malformed_files_are_reported_with_file_and_entry(tmp_path, document, message):
    path = write(tmp_path, document)
    with pytest.raises(ReviewsError, match=message) as info:
        load_reviews([path])
    assert str(path) in str(info.value)


def test_a_missing_file_is_reported(tmp_path):
    with pytest.raises(ReviewsError, match="cannot read it"):
        load_reviews([tmp_path / "nope.json"])


def offline():
    site = factories.offline_site()
    return site["details_by_run"]


def test_fold_applies_matching_verdicts_and_counts_stale_and_unknown(tmp_path):
    details = offline()
    convs = {d.conversation_id: d for d in details["sample-offline"]}
    current = convs["carrier-delay.granular.r1"]
    document = {"version": 1, "reviews": [
        entry("sample-offline", current.conversation_id, current.customer_summary, "not_justified"),
        entry("sample-offline", "carrier-delay.focused.r1", "an older summary text"),
        entry("another-run", "carrier-delay.focused.r1", "whatever"),
    ]}
    tally = fold_reviews(load_reviews([write(tmp_path, document)]), details)
    assert tally.verdicts == {("sample-offline", "carrier-delay.granular.r1"): "not_justified"}
    assert tally.stale == {("sample-offline", "carrier-delay.focused.r1")}
    assert (tally.applied, tally.unknown, tally.duplicates) == (1, 1, 0)


def test_the_newest_verdict_wins_across_files(tmp_path):
    details = offline()
    conv = details["sample-offline"][0]
    def exported(verdict, at):
        return {"version": 1, "reviews": [entry("sample-offline", conv.conversation_id, conv.customer_summary,
                                                verdict, at)]}

    old = write(tmp_path, exported("unsure", "2026-11-01T00:00:00Z"), "a.json")
    new = write(tmp_path, exported("justified", "2026-11-02T00:00:00Z"), "b.json")
    for order in ([old, new], [new, old]):
        tally = fold_reviews(load_reviews(order), details)
        assert tally.verdicts == {("sample-offline", conv.conversation_id): "justified"}
        assert tally.duplicates == 1


def test_a_note_without_a_verdict_is_read_and_applied(tmp_path):
    details = offline()
    conv = details["sample-offline"][0]
    path = write(tmp_path, {"version": 2, "reviews": [
        entry2("sample-offline", conv.conversation_id, conv.customer_summary, None, note="check the carrier")]})
    [loaded] = load_reviews([path])
    assert loaded.verdict is None and loaded.note == "check the carrier" and loaded.reviewer == "Ada"
    tally = fold_reviews([loaded], details)
    assert (tally.applied, tally.notes_only) == (0, 1) and tally.verdicts == {}
    assert tally.entries[("sample-offline", conv.conversation_id)].note == "check the carrier"


def test_a_cleared_review_overrides_an_older_one(tmp_path):
    details = offline()
    conv = details["sample-offline"][0]
    old = entry2("sample-offline", conv.conversation_id, conv.customer_summary, "justified", "2026-11-01T00:00:00Z")
    cleared = entry2("sample-offline", conv.conversation_id, conv.customer_summary, None, "2026-11-02T00:00:00Z")
    tally = fold_reviews(load_reviews([write(tmp_path, {"version": 2, "reviews": [old, cleared]})]), details)
    assert tally.entries == {} and tally.duplicates == 1 and not tally.carried


def test_stale_and_unknown_reviews_are_carried_for_the_next_export(tmp_path):
    details = offline()
    document = {"version": 2, "reviews": [
        entry2("sample-offline", "carrier-delay.focused.r1", "an older text", note="keep me"),
        entry2("another-run", "carrier-delay.focused.r1", "whatever")]}
    tally = fold_reviews(load_reviews([write(tmp_path, document)]), details)
    assert sorted(e.note or e.run_id for e in tally.carried) == ["another-run", "keep me"]


def test_conflicting_verdicts_on_one_text_are_found(tmp_path):
    details = offline()
    convs = [d for d in details["sample-offline"] if d.case_id == "carrier-delay"]
    raw = [entry2("sample-offline", d.conversation_id, d.customer_summary, v)
           for d, v in zip(convs, ["justified", "justified", "not_justified"], strict=False)]
    tally = fold_reviews(load_reviews([write(tmp_path, {"version": 2, "reviews": raw})]), details)
    key = ("sample-offline", "carrier-delay", summary_sha(convs[0].customer_summary))
    assert tally.conflicts == {key: {"justified": 2, "not_justified": 1}}


def test_csv_export_reads_back_like_json(tmp_path):
    details = offline()
    convs = details["sample-offline"][:3]
    raw = [entry2("sample-offline", convs[0].conversation_id, convs[0].customer_summary, "not_justified",
                  note='says "today", the carrier says otherwise,\nsee r2'),
           entry2("sample-offline", convs[1].conversation_id, convs[1].customer_summary, None, note="été ✓")]
    from_json = load_reviews([write(tmp_path, {"version": 2, "reviews": raw})])
    csv_path = tmp_path / "reviews.csv"
    csv_path.write_text("\ufeff" + csv_text(from_json), encoding="utf-8")
    from_csv = load_reviews([csv_path])
    assert [e.to_json() for e in from_csv] == [e.to_json() for e in from_json]
    # A spreadsheet user may type the verdict's label.
    edited = csv_path.read_text(encoding="utf-8-sig").replace("not_justified", "Not justified")
    csv_path.write_text(edited, encoding="utf-8")
    assert load_reviews([csv_path])[0].verdict == "not_justified"


@pytest.mark.parametrize(("text", "message"), [
    ("a,b\n1,2\n", "missing columns: version, key"),
    (None, "line 2: expected version 2, found '1'"),
    (None, "line 2.verdict: 'great' is not one of"),
])
def test_malformed_csv_files_are_reported_with_file_and_line(tmp_path, text, message):
    conv = offline()["sample-offline"][0]
    entries = load_reviews([write(tmp_path, {"version": 2, "reviews": [
        entry2("sample-offline", conv.conversation_id, conv.customer_summary)]})])
    good = csv_text(entries)
    if text is None:
        text = good.replace("\r\n2,", "\r\n1,") if "version" in message else good.replace("justified", "great")
    path = tmp_path / "reviews.csv"
    path.write_text(text)
    with pytest.raises(ReviewsError, match=message) as info:
        load_reviews([path])
    assert str(path) in str(info.value)
