"""The answer's text as the answers check reads it, on hostile lines: the last response's items are parsed once
(views.sql's last_response_text), and an answer is trimmed only when it could have something to trim
(check_answers.sql). Both were made cheaper (docs/performance.md); what they read must not change, so the items
are held to the expression they replaced, and trimming to DuckDB's trim() (which removes Unicode space
separators, not newlines or tabs)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from analysis import validate_runs
from analysis.db import RunDatabase
from analysis.errors import RunFormatError
from tests.analysis.conftest import RunCopy, dumps

# What last_response_text was before the items were parsed once: each item taken apart with json_extract_string.
PREVIOUS_TEXT = """array_to_string(list_transform(
    list_filter(json_extract(g.last_response_items, '$[*]'), lambda item: json_extract_string(item, '$.type') = 'text'),
    lambda item: coalesce(json_extract_string(item, '$.text'), '')), '')"""

HOSTILE_ITEMS: list[Any] = [
    None, [], {}, "[]", 7, '"a JSON string in a string"', [1, "a", None], [None],
    [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
    [{"type": "text"}], [{"type": "text", "text": None}], [{"text": "no type"}],
    [{"type": "text", "text": 5}], [{"type": "text", "text": 1.0e-7}], [{"type": "text", "text": -1.5e300}],
    [{"type": "text", "text": 1.50}], [{"type": "text", "text": 12345678901234567890123}],
    [{"type": "text", "text": True}], [{"type": "text", "text": {"a": 1, "b": [1, 2.5, "x y"]}}],
    [{"type": "text", "text": [1, 2]}], [{"type": "text", "text": "a\u00e9\n\"q\u0000"}],
    [{"type": "function_call", "text": "x"}, {"type": "text", "text": "y"}],
    [{"type": 5, "text": "x"}], [{"type": ["text"], "text": "x"}], [{"type": "TEXT", "text": "x"}],
    [[{"type": "text", "text": "nested"}]], {"type": "text", "text": "an object, not a list"},
    [{"type": "text", "text": "a"}, 7, {"type": "text", "text": "b"}],
    [{"type": "text", "text": "x", "other": [1, {"z": 2}]}],
]


def _last_responses(run: RunCopy) -> list[int]:
    """The index of each conversation's last model_response line."""
    last: dict[str, int] = {}
    for index, event in enumerate(run.events()):
        if event["type"] == "model_response":
            last[event["conversationId"]] = index
    return sorted(last.values())


def _with_items(run: RunCopy, items: list[Any], raw: dict[int, str] | None = None) -> list[str]:
    """Give the last responses of the first len(items) conversations these outputItems; return their ids."""
    lines = run.lines()
    changed = []
    for index, value in zip(_last_responses(run), items, strict=False):
        event = json.loads(lines[index])
        event["outputItems"] = value
        lines[index] = dumps(event)
        changed.append(event["conversationId"])
    for index, line in (raw or {}).items():
        lines[_last_responses(run)[index]] = line
    run.write_lines(lines)
    return changed


def test_hostile_output_items_read_as_the_items_were_read_before(sample_copy):
    assert len(_last_responses(sample_copy)) >= len(HOSTILE_ITEMS)
    changed = _with_items(sample_copy, HOSTILE_ITEMS)
    with RunDatabase(sample_copy.path) as db:
        rows = db.con.execute(f"""
            SELECT t.conversation_id, t.last_response_text, {PREVIOUS_TEXT} AS previous, g.last_response_items
            FROM attempt_totals t JOIN event_groups g USING (conversation_id, attempt)
            WHERE g.readable AND NOT g.foreign_run""").fetchall()
    read = {conversation: (text, previous, items) for conversation, text, previous, items in rows}
    assert set(changed) <= set(read)
    for conversation in changed:
        text, previous, items = read[conversation]
        assert text == previous, (items, text, previous)
    # The edges that differed before the text was read as JSON, or before a non-list read as '':
    texts = {json.dumps(value): read[conversation][0] for conversation, value in zip(changed, HOSTILE_ITEMS,
                                                                                       strict=False)}
    assert texts[json.dumps([{"type": "text", "text": 1.0e-7}])] == "1e-7"
    assert texts[json.dumps([{"type": "text", "text": -1.5e300}])] == "-1.5e300"
    assert texts[json.dumps({})] == texts[json.dumps(7)] == texts[json.dumps('"a JSON string in a string"')] == ""
    assert texts[json.dumps([{"type": "text", "text": {"a": 1, "b": [1, 2.5, "x y"]}}])] == '{"a":1,"b":[1,2.5,"x y"]}'


def test_output_items_that_are_not_json_stop_the_load_with_the_same_message(sample_copy):
    # outputItems is a JSON string whose content is no JSON: DuckDB cannot take the items apart, as before.
    _with_items(sample_copy, ["not json"])
    with pytest.raises(RunFormatError) as raised:
        RunDatabase(sample_copy.path)
    assert 'Malformed JSON at byte 0 of input: invalid literal.  Input: "not json"' in str(raised.value)


def _answer_as(run: RunCopy, wrap: Any) -> str:
    """Rewrite the first answered conversation's finalText to wrap(finalText), its last response's text to
    match; return its id."""
    events = run.events()
    finished = next(e for e in events if e["type"] == "conversation_finished" and e["status"] == "answered")
    conversation, text = finished["conversationId"], wrap(finished["finalText"])
    last = max(i for i, e in enumerate(events) if e["type"] == "model_response" and e["conversationId"] == conversation)
    lines = run.lines()
    response = json.loads(lines[last])
    response["outputItems"] = [{"type": "text", "text": text}]
    lines[last] = dumps(response)
    index = events.index(finished)
    lines[index] = dumps({**finished, "finalText": text})
    run.write_lines(lines)
    return str(conversation)


def _answer_problems(run: RunCopy) -> list[tuple[str, str]]:
    [validation] = validate_runs([run.path])
    [check] = [c for c in validation.checks if c.name == "answers"]
    return [(row[0], row[-1]) for row in check.rows]


@pytest.mark.parametrize("wrap", [
    lambda text: "\u00a0" + text + "\u00a0",    # no-break spaces: trim() removes them
    lambda text: text + "\u3000",               # an ideographic space after the closing brace
    lambda text: "\u2003 " + text,              # an em space and a space before the opening brace
    lambda text: "  " + text + "\n",            # spaces before, a newline after (JSON allows it)
    lambda text: text + "\u00a0",               # begins with { but ends with a no-break space
    lambda text: "\u3000" + text,               # ends with } but begins with an ideographic space
], ids=["nbsp", "ideographic", "em-space", "newline", "brace-then-nbsp", "ideographic-then-brace"])
def test_an_answer_with_spaces_around_it_is_trimmed_as_before(sample_copy, wrap):
    _answer_as(sample_copy, wrap)
    assert _answer_problems(sample_copy) == []


@pytest.mark.parametrize("wrap", [
    lambda text: text + "\u200b",    # a zero-width space is no space to trim(): the JSON is not valid
    lambda text: "\ufeff" + text,    # nor is a byte-order mark
], ids=["zero-width-space", "byte-order-mark"])
def test_an_answer_with_characters_trim_keeps_is_not_its_assessment(sample_copy, wrap):
    conversation = _answer_as(sample_copy, wrap)
    problems = _answer_problems(sample_copy)
    assert problems and all(c == conversation and p.endswith("is not what finalText says") for c, p in problems)
