"""Tool calls written as text (--text-tool-calls): every shape read, nothing the model wrote dropped, all marked."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from recorder.agent.loop import Budgets
from recorder.providers.text_calls import TextCall, as_output_items, parse_text_calls
from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.recorder.test_local_server import assert_valid, correct_answer, events, finished
from wismo.loopback import FakeServer, chat_reply, llama_server_small_model
from wismo.loopback.chat_servers import TEXT_CALL_SHAPES

TOOLS = {"get_order", "get_payment", "get_order_support_context"}


def test_a_fenced_json_block_as_qwen_wrote_it():
    text = 'I need the order.\n```json\n{"name": "get_order", "arguments": {"orderId": "ORD-1004"}}\n```'
    assert parse_text_calls(text, TOOLS) == [TextCall("get_order", '{"orderId":"ORD-1004"}', "fenced_json")]


def test_a_function_element_as_qwen_wrote_it():
    text = """<tools><function name="get_order_support_context" arguments='{"orderId":"ORD-1004"}'/></tools>"""
    assert parse_text_calls(text, TOOLS) == [
        TextCall("get_order_support_context", '{"orderId":"ORD-1004"}', "function_element")]


def test_hermes_tags_and_a_function_body():
    text = ('<tool_call>\n{"name": "get_order", "arguments": {"orderId": "ORD-1"}}\n</tool_call>\n'
            '<function=get_payment>{"paymentId": "PAY-1"}</function>')
    assert parse_text_calls(text, TOOLS) == [TextCall("get_order", '{"orderId":"ORD-1"}', "tool_call_tag"),
                                             TextCall("get_payment", '{"paymentId": "PAY-1"}', "function_element")]


def test_several_calls_in_one_message_are_several_calls_in_the_order_written():
    text = ('{"name": "get_payment", "parameters": {"paymentId": "PAY-2"}} then\n'
            '```json\n[{"name": "get_order", "arguments": {"orderId": "ORD-2"}},'
            ' {"name": "get_order", "arguments": {"orderId": "ORD-3"}}]\n```')
    calls = parse_text_calls(text, TOOLS)
    assert [(c.name, json.loads(c.arguments), c.shape) for c in calls] == [
        ("get_payment", {"paymentId": "PAY-2"}, "bare_json"),
        ("get_order", {"orderId": "ORD-2"}, "fenced_json"), ("get_order", {"orderId": "ORD-3"}, "fenced_json")]


def test_the_answer_and_unlisted_bare_json_are_not_calls():
    answer = '```json\n{"deliveredSkus": [], "outstandingSkus": ["SKU-1"], "customerSummary": "..."}\n```'
    assert parse_text_calls(answer, TOOLS) == []
    assert parse_text_calls('{"name": "Alice", "arguments": {"x": 1}}', TOOLS) == []  # not a listed tool
    assert parse_text_calls("```python\nprint({'name': 1})\n```", TOOLS) == []


def test_unknown_names_and_bad_arguments_are_kept_as_the_model_wrote_them():
    text = ('```json\n{"name": "lookup_order", "arguments": {"orderId": "ORD-1"}}\n```\n'
            '<tool_call>{"name": "get_order", "arguments": {orderId: ORD-1}}</tool_call>\n'
            """<function name="get_payment" arguments='{"paymentId": '/>""")
    # An unknown name stays the model's call; arguments that are not JSON are kept verbatim.
    assert parse_text_calls(text, TOOLS) == [
        TextCall("lookup_order", '{"orderId":"ORD-1"}', "fenced_json"),
        TextCall("get_order", '{"name": "get_order", "arguments": {orderId: ORD-1}}', "tool_call_tag"),
        TextCall("get_payment", '{"paymentId": ', "function_element")]


def test_items_are_marked_from_text_with_their_shape():
    [item] = as_output_items([TextCall("get_order", "{}", "bare_json")], turn=3)
    assert item == {"type": "function_call", "callId": "text_3_1", "name": "get_order", "arguments": "{}",
                    "fromText": True, "textShape": "bare_json"}


def options(fake: FakeServer, tmp_path: Path, run_id: str, **overrides: Any) -> RecordOptions:
    settings: dict[str, Any] = {
        "provider": "openai-chat", "model": "qwen", "base_url": fake.url + "/v1", "designs": ("granular", "focused"),
        "repetitions": 1, "case_ids": ("delivered-on-time",), "concurrency": 1, "out_dir": tmp_path,
        "run_id": run_id, "structured_output": "off", "budgets": Budgets(max_turns=4, request_timeout_s=20.0)}
    return RecordOptions(**{**settings, **overrides})


@pytest.mark.parametrize("shape", TEXT_CALL_SHAPES)
def test_a_run_with_text_tool_calls_gathers_evidence_in_both_designs(tmp_path, shape):
    server = llama_server_small_model(calls_as_text=shape, answer=correct_answer)
    with server.serve() as fake:
        result = asyncio.run(record(options(fake, tmp_path, shape, text_tool_calls=True)))
    manifest = json.loads((result.run_dir / "manifest.json").read_text())
    assert manifest["textToolCalls"] is True
    lines = events(result.run_dir)
    calls = [e for e in lines if e["type"] == "tool_call"]
    assert {c["conversationId"].split(".")[1] for c in calls} == {"granular", "focused"}
    assert all(c["fromText"] is True for c in calls)
    results = [e for e in lines if e["type"] == "tool_result"]
    assert results and not any(r["isError"] for r in results)
    responses = [e for e in lines if e["type"] == "model_response"]
    marked = [i for r in responses for i in r["outputItems"] if i["type"] == "function_call"]
    assert marked and all(i["fromText"] for i in marked)
    assert all(done["status"] == "answered" and done["score"]["passed"] for done in finished(result.run_dir).values())
    assert_valid(result.run_dir)


def test_without_the_flag_text_calls_are_the_answer_and_the_manifest_says_nothing(tmp_path):
    server = llama_server_small_model(answer=correct_answer)
    with server.serve() as fake:
        result = asyncio.run(record(options(fake, tmp_path, "off", designs=("granular",))))
    assert "textToolCalls" not in json.loads((result.run_dir / "manifest.json").read_text())
    assert not [e for e in events(result.run_dir) if e["type"] == "tool_call"]
    [done] = finished(result.run_dir).values()
    assert done["status"] == "invalid_answer"  # the fenced call was taken as its (unparseable) answer


def test_an_unknown_tool_written_as_text_is_recorded_as_the_model_s_mistake(tmp_path):
    replies = [chat_reply(text='```json\n{"name": "lookup", "arguments": {"orderId": "ORD-1001"}}\n```'),
               chat_reply(text="<tool_call>{not json}</tool_call>"), chat_reply(text="sorry")]
    with FakeServer() as fake:
        fake.script(*replies)
        result = asyncio.run(record(options(fake, tmp_path, "unknown", designs=("granular",), text_tool_calls=True)))
    lines = events(result.run_dir)
    calls = [e for e in lines if e["type"] == "tool_call"]
    assert [(c["name"], c["fromText"]) for c in calls] == [("lookup", True), ("", True)]
    kinds = [r["errorKind"] for r in lines if r["type"] == "tool_result"]
    assert kinds == ["unknown_tool", "unknown_tool"]
    assert_valid(result.run_dir)


def test_summarize_says_the_calls_were_read_from_text_and_whose_instructions_were_sent(tmp_path):
    from recorder.run.options import Guidance
    from tests.helpers import run_wismo

    guidance_file = tmp_path / "mine.txt"
    guidance_file.write_text("Always look up the order with the tools before answering.\n")
    server = llama_server_small_model(answer=correct_answer)
    with server.serve() as fake:
        result = asyncio.run(record(options(fake, tmp_path, "said", designs=("granular",), text_tool_calls=True,
                                            guidance=Guidance.read(guidance_file))))
    done = run_wismo("summarize", str(result.run_dir), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    requests = " ".join(" ".join(done.stdout.splitlines()[:6]).split())  # the lines are wrapped to the terminal
    assert "tool calls read from the model's text (--text-tool-calls), not native tool calling" in requests
    assert f"the user's own instructions ({guidance_file}" in requests
    text = " ".join(done.stdout.split())
    calls = sum(1 for e in events(result.run_dir) if e["type"] == "tool_call")
    assert calls and f"tool calls read from the model's text (--text-tool-calls; not native tool calls): " \
                     f"granular {calls}" in text
