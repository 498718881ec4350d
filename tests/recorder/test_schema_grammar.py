"""`--structured-output auto` notices a server whose json_schema grammar leaves no room for a tool call.

llama-server turns `response_format: json_schema` into a grammar for the whole reply: the model can
only write the answer, never call a tool. auto sends the first request with tools again without the
format when its reply called nothing, and when only that one calls a tool it sends no format from then
on (recorded in the manifest with the reason and the discarded reply's tokens). A model that answers
either way, or a server that lets it call, keeps json_schema; `json_schema` named is never second-guessed.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from core.domain.answer import ANSWER_SCHEMA
from core.domain.linking import ToolSpec
from recorder.providers.base import ModelRequest, ProviderSettings
from recorder.providers.openai_chat import OpenAIChatProvider
from recorder.run.record import record
from tests.recorder.test_local_server import assert_valid, correct_answer, events, finished
from tests.recorder.test_text_calls import options
from wismo.loopback import compliant, llama_server_small_model
from wismo.loopback.server import FakeServer


def _formats(fake: FakeServer) -> list[str | None]:
    """The response_format type of every chat request the fake received, in order."""
    return [(r.body.get("response_format") or {}).get("type") for r in fake.requests]


def _record_auto(server: Any, tmp_path: Path, run_id: str, **overrides: Any) -> tuple[Path, list[str | None]]:
    with server.serve() as fake:
        settings = {"structured_output": "auto", **overrides}
        result = asyncio.run(record(options(fake, tmp_path, run_id, **settings)))
        return result.run_dir, _formats(fake)


def test_a_schema_grammar_is_found_and_tools_get_called_in_both_designs(tmp_path):
    run_dir, formats = _record_auto(llama_server_small_model(answer=correct_answer), tmp_path, "grammar",
                                    text_tool_calls=True)
    # The first request went with the schema, then again without; none carried it after that.
    assert formats[:2] == ["json_schema", None] and set(formats[2:]) == {None}
    manifest = json.loads((run_dir / "manifest.json").read_text())
    answer_format = manifest["structuredOutput"]
    assert (answer_format["requested"], answer_format["used"]) == ("auto", "off")
    [fallback] = answer_format["fallbacks"]
    assert (fallback["rejected"], fallback["cause"]) == ("json_schema", "schema_grammar")
    assert "no tool call" in fallback["reason"] and "1 tool call(s)" in fallback["reason"]
    assert fallback["discardedTokens"]["input"] > 0 and fallback["discardedTokens"]["output"] == 12
    calls = [e for e in events(run_dir) if e["type"] == "tool_call"]
    assert {c["conversationId"].split(".")[1] for c in calls} == {"granular", "focused"}
    formats_recorded = [e["answerFormat"] for e in events(run_dir) if e["type"] == "model_response"]
    assert set(formats_recorded) == {"instructions"}  # the reply kept was the one sent without the schema
    assert all(done["status"] == "answered" and done["score"]["passed"] for done in finished(run_dir).values())
    assert_valid(run_dir)


def test_native_calls_under_a_grammar_are_found_without_text_tool_calls(tmp_path):
    run_dir, formats = _record_auto(llama_server_small_model(calls_as_text=None, answer=correct_answer),
                                    tmp_path, "native")
    assert formats.count("json_schema") == 1
    assert json.loads((run_dir / "manifest.json").read_text())["structuredOutput"]["used"] == "off"
    assert [e for e in events(run_dir) if e["type"] == "tool_call"]


def test_calls_written_as_text_do_not_count_without_the_flag(tmp_path):
    # The reply without the schema holds a fenced call, but the loop would not read it: no grammar is
    # claimed and the run stays on json_schema (doctor names --text-tool-calls for this).
    run_dir, formats = _record_auto(llama_server_small_model(answer=correct_answer), tmp_path, "unread",
                                    designs=("granular",))
    assert formats == ["json_schema", None]
    answer_format = json.loads((run_dir / "manifest.json").read_text())["structuredOutput"]
    assert (answer_format["used"], answer_format["fallbacks"]) == ("json_schema", [])


def test_a_server_that_lets_the_model_call_is_never_asked_twice(tmp_path):
    run_dir, formats = _record_auto(compliant(answer=correct_answer), tmp_path, "compliant")
    # Every request carried the schema, once each: the first reply called a tool, which settled it, so
    # the final answers (no call) were not sent again.
    assert set(formats) == {"json_schema"}
    assert len(formats) == len([e for e in events(run_dir) if e["type"] == "model_request"])
    assert json.loads((run_dir / "manifest.json").read_text())["structuredOutput"]["fallbacks"] == []


def test_json_schema_named_by_the_user_is_kept_even_under_a_grammar(tmp_path):
    run_dir, formats = _record_auto(llama_server_small_model(answer=correct_answer), tmp_path, "named",
                                    designs=("granular",), structured_output="json_schema", text_tool_calls=True)
    assert set(formats) == {"json_schema"} and len(formats) == 1
    assert not [e for e in events(run_dir) if e["type"] == "tool_call"]


def test_a_model_that_answers_either_way_keeps_the_schema_and_is_asked_once(tmp_path):
    tool = ToolSpec("get_order", "Look up an order.", {"type": "object", "properties": {"orderId": {"type": "string"}},
                                                       "required": ["orderId"]})
    question = [{"type": "message", "role": "user", "content": "Hello, what can you do?"}]  # no ID: no call
    with compliant().serve() as fake:
        async def go() -> list[str | None]:
            provider = OpenAIChatProvider(ProviderSettings(model="m", base_url=fake.url + "/v1"))
            try:
                for turn in (1, 1, 1):
                    response = await provider.complete(ModelRequest("be brief", [tool], question, ANSWER_SCHEMA,
                                                                    turn, 10.0))
                    assert response.answer_format == "json_schema"
                assert provider.structured_output.to_json()["used"] == "json_schema"
            finally:
                await provider.aclose()
            return _formats(fake)
        formats = asyncio.run(go())
    assert formats == ["json_schema", None, "json_schema", "json_schema"]


def test_concurrent_first_requests_ask_once_and_all_follow_what_was_found(tmp_path):
    run_dir, formats = _record_auto(llama_server_small_model(answer=correct_answer), tmp_path, "together",
                                    text_tool_calls=True, concurrency=4,
                                    case_ids=("delivered-on-time", "partial-delivery"))
    answer_format = json.loads((run_dir / "manifest.json").read_text())["structuredOutput"]
    assert len(answer_format["fallbacks"]) == 1 and answer_format["used"] == "off"
    # Four first requests may have gone with the schema at once; only one was sent again as the check,
    # the others again after it (each once), so no more than 2 x 4 schema-less first requests exist.
    assert formats.count("json_schema") <= 4
    assert all(done["status"] == "answered" for done in finished(run_dir).values())
    assert_valid(run_dir)
