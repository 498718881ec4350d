"""scores.jsonl (re-scoring) and claims.jsonl (claim findings on the summaries), when a run has them."""

from __future__ import annotations

import json

import pytest

from analysis import claim_findings, summarize_runs, validate_runs
from analysis.errors import RunValidationError
from core.domain.scorer import score
from tests.analysis.conftest import dumps
from tests.analysis.runbuilder import expected_for, write_run
from tests.analysis.test_metrics import HAND_RUN
from tests.helpers import ROOT

TS = "2026-10-09T00:00:00.000000+00:00"


def score_line(conversation: str, case: str, expected: dict, ts: str = TS, **overrides) -> str:
    answer = dict(expected_for(case))
    if conversation == "B.granular.r1":  # the one answer HAND_RUN records as wrong
        answer["deliveredSkus"] = ["WRONG"]
    line = {"v": 1, "type": "score", "runId": "hand", "ts": ts, "conversationId": conversation, "attempt": 1,
            "caseId": case, "expected": expected, "score": score(answer, expected), "scorerVersion": 1,
            "datasetHash": "sha256:1"}
    line.update(overrides)
    return dumps(line)


@pytest.fixture
def hand_run(tmp_path):
    return write_run(tmp_path, HAND_RUN)


def test_the_latest_score_line_replaces_the_stored_score(hand_run):
    stricter = {**expected_for("A"), "delayReasons": ["carrier_delay"]}  # A's answers now fail
    lines = [score_line("A.granular.r1", "A", expected_for("A"), ts="2026-10-08T23:00:00.000000+00:00"),
             score_line("A.granular.r1", "A", stricter),
             score_line("B.granular.r1", "B", expected_for("B"))]
    (hand_run / "scores.jsonl").write_text("\n".join(lines) + "\n")
    [validation] = validate_runs([hand_run])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if c.row_count]
    [summary] = summarize_runs([hand_run])
    granular = summary.designs[0]
    assert granular.passed == 2  # A.granular.r1 now fails, B.granular.r1 still fails
    assert granular.field_pass_rates["delayReasons"] == 0.75


def test_a_tampered_score_line_fails_and_summarize_refuses(hand_run):
    tampered = json.loads(score_line("A.focused.r1", "A", expected_for("A")))
    tampered["score"]["fields"]["missingEvidence"] = False
    lines = [dumps(tampered), "{broken", score_line("A.focused.r9", "A", expected_for("A")),
             score_line("A.focused.r2", "A", expected_for("A"), runId="other")]
    (hand_run / "scores.jsonl").write_text("\n".join(lines) + "\n")
    [validation] = validate_runs([hand_run])
    failing = [c for c in validation.checks if not c.passed]
    assert [c.name for c in failing] == ["score_lines"]
    problems = [dict(zip(failing[0].columns, row, strict=True))["problem"] for row in failing[0].rows]
    assert problems == ["missingEvidence stored false, recomputed true", "unreadable line",
                        "not a finished live conversation attempt", "another run: other"]
    with pytest.raises(RunValidationError, match=r"score_lines \(4 rows\)"):
        summarize_runs([hand_run])


def claims(*lines: dict) -> str:
    base = {"v": 1, "runId": "hand", "ts": TS, "attempt": 1, "checkerVersion": "2"}
    return "".join(dumps({**base, **line}) + "\n" for line in lines)


def finding(conversation: str, kind: str, start: int, **extra) -> dict:
    return {"type": "claim_finding", "conversationId": conversation, "kind": kind, "severity": "error",
            "sentence": "It arrives tomorrow.", "claim": "tomorrow", "evidence": None, "sku": None,
            "start": start, "end": start + 8, **extra}


def test_claim_findings_per_design_and_per_conversation(hand_run):
    (hand_run / "claims.jsonl").write_text(claims(
        {"type": "summary_checked", "conversationId": "A.granular.r1", "findings": 2},
        finding("A.granular.r1", "unsupported_date", 3),
        finding("A.granular.r1", "unsupported_date", 30),
        finding("A.granular.r1", "unsupported_date", 3),  # the same finding twice counts once
        {"type": "summary_checked", "conversationId": "B.granular.r2", "findings": 1},
        finding("B.granular.r2", "unknown_sku", 0, sku="SKU-X"),
        {"type": "summary_checked", "conversationId": "A.focused.r1", "findings": 0,
         "ts": "2026-10-10T00:00:00.000000+00:00"},
        finding("A.focused.r1", "unknown_sku", 0, checkerVersion="1"),  # from an older checker: superseded
        {"type": "summary_checked", "conversationId": "A.focused.r1", "findings": 1, "checkerVersion": "1"},
    ))
    [validation] = validate_runs([hand_run])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if c.row_count]
    [summary] = summarize_runs([hand_run])
    assert summary.claim_findings == {"granular": {"any": 2, "checked": 2, "unknown_sku": 1, "unsupported_date": 1},
                                      "focused": {"checked": 1}}
    found = claim_findings(hand_run)
    assert set(found) == {"A.granular.r1", "B.granular.r2"}
    assert [f["start"] for f in found["A.granular.r1"]] == [3, 30]
    assert found["B.granular.r2"][0]["sku"] == "SKU-X" and found["B.granular.r2"][0]["kind"] == "unknown_sku"


def test_every_claim_kind_is_counted_and_no_sql_names_one(hand_run):
    from analysis.model import CLAIM_KINDS
    lines = [{"type": "summary_checked", "conversationId": "A.granular.r1", "findings": len(CLAIM_KINDS)}]
    lines += [finding("A.granular.r1", kind, 4 * n) for n, kind in enumerate(CLAIM_KINDS)]
    (hand_run / "claims.jsonl").write_text(claims(*lines))
    [summary] = summarize_runs([hand_run])
    assert summary.claim_findings["granular"] == {**dict.fromkeys(CLAIM_KINDS, 1), "any": 1, "checked": 1}
    sql = " ".join(path.read_text() for path in (ROOT / "analysis" / "sql").glob("*.sql"))
    assert not [kind for kind in CLAIM_KINDS if kind in sql]  # a new kind needs no SQL change


def test_claim_lines_are_checked(hand_run):
    (hand_run / "claims.jsonl").write_text(claims(finding("Z.granular.r1", "unknown_sku", 0)) + "nope\n")
    [validation] = validate_runs([hand_run])
    failing = [c for c in validation.checks if not c.passed]
    assert [(c.name, c.row_count) for c in failing] == [("claim_lines", 2)]


def test_no_claims_file_means_no_findings(hand_run):
    assert claim_findings(hand_run) == {}
    assert summarize_runs([hand_run])[0].claim_findings == {}


def test_the_committed_sample_run_passes_with_its_claims_file():
    from tests.analysis.conftest import SAMPLE_PAIRS, SAMPLE_RUN
    assert (SAMPLE_RUN / "claims.jsonl").exists()
    [validation] = validate_runs([SAMPLE_RUN])
    assert validation.passed, [(c.name, c.rows[:3]) for c in validation.checks if not c.passed]
    [summary] = summarize_runs([SAMPLE_RUN])
    assert {design: counts["checked"] for design, counts in summary.claim_findings.items()} == \
        {"granular": SAMPLE_PAIRS, "focused": SAMPLE_PAIRS}
