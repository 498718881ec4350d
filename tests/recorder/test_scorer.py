"""The scorer's rules, the answer parser, and the offline token counts."""

from __future__ import annotations

import json

import pytest

from core.domain.answer import ANSWER_SCHEMA, parse_answer
from core.domain.scorer import score, score_field
from recorder.agent.instructions import build_instructions
from recorder.providers.tokens import count_tokens

EXPECTED = {"deliveredSkus": ["LAPTOP-14"], "outstandingSkus": ["MONITOR-27"], "delayReasons": ["stock_shortage"],
            "deliveryEstimate": None, "missingEvidence": []}


def answer(**changes):
    return {**EXPECTED, "customerSummary": "…", **changes}


def test_a_matching_answer_passes_every_field():
    assert score(answer(), EXPECTED) == {"fields": dict.fromkeys(EXPECTED, True), "passed": True}


def test_arrays_compare_as_sets_but_a_duplicate_fails_the_field():
    assert score_field("deliveredSkus", ["B", "A"], ["A", "B"])
    assert not score_field("deliveredSkus", ["A", "A", "B"], ["A", "B"])
    assert not score_field("deliveredSkus", ["A"], ["A", "B"])
    assert not score_field("delayReasons", "stock_shortage", ["stock_shortage"])


@pytest.mark.parametrize(("given", "expected", "ok"), [
    ("2026-10-10", "2026-10-10", True),
    (None, None, True),
    ("2026-10-10", None, False),
    (None, "2026-10-10", False),
    ("2026-10-10T00:00:00Z", "2026-10-10", False),
    ("10/10/2026", "2026-10-10", False),
    ("2026-02-30", "2026-02-30", False),
])
def test_the_estimate_compares_as_a_date_or_null(given, expected, ok):
    assert score_field("deliveryEstimate", given, expected) is ok


def test_one_wrong_field_fails_the_conversation_and_is_named():
    result = score(answer(delayReasons=["carrier_delay"]), EXPECTED)
    assert result["passed"] is False
    assert [f for f, ok in result["fields"].items() if not ok] == ["delayReasons"]


def test_no_answer_fails_every_field():
    assert score(None, EXPECTED) == {"fields": dict.fromkeys(EXPECTED, False), "passed": False}


def test_parse_accepts_a_plain_or_fenced_object():
    text = json.dumps(answer())
    assert parse_answer(text) == (answer(), None)
    assert parse_answer(f"```json\n{text}\n```") == (answer(), None)


@pytest.mark.parametrize(("text", "why"), [
    ("", "empty"),
    ("The monitor is backordered.", "not a JSON object"),
    ("Here you go: " + json.dumps(answer()), "not a JSON object"),
    ("[1, 2]", "expected a JSON object, got list"),
    (json.dumps({k: v for k, v in answer().items() if k != "missingEvidence"}), "missing field(s): missingEvidence"),
    (json.dumps(answer(deliveredSkus="LAPTOP-14")), "deliveredSkus must be a list of strings"),
    (json.dumps(answer(deliveryEstimate=20261010)), "deliveryEstimate must be"),
    (json.dumps(answer(customerSummary=None)), "customerSummary must be a string"),
])
def test_parse_rejects_with_a_reason(text, why):
    parsed, reason = parse_answer(text)
    assert parsed is None
    assert why in reason


def test_answer_schema_is_strict_compatible():
    assert ANSWER_SCHEMA["additionalProperties"] is False
    assert set(ANSWER_SCHEMA["required"]) == set(ANSWER_SCHEMA["properties"])
    assert "customerSummary" in ANSWER_SCHEMA["required"]


def test_instructions_carry_the_clock_the_precedence_rule_and_the_contract():
    text = build_instructions("2026-10-08T12:00:00+00:00")
    assert "2026-10-08T12:00:00+00:00" in text
    assert "An available carrier delivery observation takes precedence over an older order status" in text
    assert "stock_shortage | carrier_delay | payment_issue | address_issue | customs_hold | other" in text


@pytest.mark.parametrize(("text", "tokens"), [
    ("hello world", [24912, 2375]),
    ("Hello, world!", [13225, 11, 2375, 0]),
    ("The quick brown fox jumps over the lazy dog.", [976, 4853, 19705, 68347, 65613, 1072, 290, 29082, 6446, 13]),
])
def test_token_counts_match_o200k_base(text, tokens):
    # Reference ids are tiktoken's o200k_base encodings of these strings.
    from recorder.providers.tokens import _encoding
    assert _encoding().encode(text) == tokens
    assert count_tokens(text) == len(tokens)


def test_token_counts_cover_non_ascii():
    assert count_tokens("Größe – 2 × HEADSET-USB") > 5
    assert count_tokens("") == 0
