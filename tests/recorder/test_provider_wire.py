"""What each adapter puts on the wire: instructions, tools with their inputSchema, the translated history."""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
from typing import Any

import pytest

from recorder.providers.anthropic_messages import AnthropicMessagesProvider
from recorder.providers.base import ModelRequest, ProviderSettings
from recorder.providers.openai_chat import OpenAIChatProvider
from recorder.providers.openai_responses import OpenAIResponsesProvider
from recorder.providers.responses_wire import responses_body
from tests.recorder.test_providers import ANSWER_SCHEMA, TOOLS
from wismo.loopback import FakeServer, chat_reply, messages_reply, responses_reply

INSTRUCTIONS = "You answer order questions. Reply with one JSON object."
# One conversation after two turns: the model called two tools at once (one failed), then one more.
HISTORY: list[dict[str, Any]] = [
    {"type": "message", "role": "user", "content": "Where is my order ORD-1002?"},
    {"type": "message", "role": "assistant", "content": "Let me check."},
    {"type": "function_call", "callId": "call_A", "name": "get_order", "arguments": '{"orderId": "ORD-1002"}'},
    {"type": "function_call", "callId": "call_B", "name": "get_payment", "arguments": '{"paymentId":"PAY-9"}'},
    {"type": "function_call_output", "callId": "call_A", "output": '{"orderId":"ORD-1002"}', "isError": False},
    {"type": "function_call_output", "callId": "call_B", "output": "payment PAY-9 not found", "isError": True},
    {"type": "function_call", "callId": "call_C", "name": "get_order", "arguments": '{"orderId":"ORD-1003"}'},
    {"type": "function_call_output", "callId": "call_C", "output": '{"orderId":"ORD-1003"}', "isError": False},
]


def sent(cls: type, prefix: str, reply: Any, history: list[dict[str, Any]], monkeypatch,
         schema: dict[str, Any] = ANSWER_SCHEMA, **settings: Any) -> list[Any]:
    """Send one request per history through the adapter; return the bodies the fake received."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wire-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wire-test")
    with FakeServer() as fake:
        for _ in range(2):
            fake.script(reply)

        async def go():
            adapter = cls(ProviderSettings(model="requested-model", base_url=fake.url + prefix, **settings))
            try:
                for turn, items in enumerate((history[:1], history), start=1):
                    await adapter.complete(ModelRequest(INSTRUCTIONS, TOOLS, items, schema, turn, 10.0))
            finally:
                await adapter.aclose()
        asyncio.run(go())
    return [received.body for received in fake.requests]


def test_openai_responses_request(monkeypatch):
    first, second = sent(OpenAIResponsesProvider, "/v1", responses_reply(text="{}"), HISTORY, monkeypatch)
    assert second["model"] == "requested-model" and second["instructions"] == INSTRUCTIONS
    assert second["tools"] == [{"type": "function", "name": t.name, "description": t.description,
                                "parameters": t.parameters, "strict": False} for t in TOOLS]
    assert second["text"]["format"] == {"type": "json_schema", "name": "order_assessment",
                                        "schema": ANSWER_SCHEMA, "strict": True}
    assert first["input"] == [{"role": "user", "content": "Where is my order ORD-1002?"}]
    assert second["input"] == [
        {"role": "user", "content": "Where is my order ORD-1002?"},
        {"role": "assistant", "content": "Let me check."},
        {"type": "function_call", "call_id": "call_A", "name": "get_order", "arguments": '{"orderId": "ORD-1002"}'},
        {"type": "function_call", "call_id": "call_B", "name": "get_payment", "arguments": '{"paymentId":"PAY-9"}'},
        {"type": "function_call_output", "call_id": "call_A", "output": '{"orderId":"ORD-1002"}'},
        {"type": "function_call_output", "call_id": "call_B", "output": "payment PAY-9 not found"},
        {"type": "function_call", "call_id": "call_C", "name": "get_order", "arguments": '{"orderId":"ORD-1003"}'},
        {"type": "function_call_output", "call_id": "call_C", "output": '{"orderId":"ORD-1003"}'},
    ]
    # The body on the wire is what the offline token estimate serializes, plus the stateless options.
    estimated = responses_body(ModelRequest(INSTRUCTIONS, TOOLS, HISTORY, ANSWER_SCHEMA, 2, 10.0), "requested-model")
    assert second == {**json.loads(json.dumps(estimated)), "store": False, "include": ["reasoning.encrypted_content"]}


def test_openai_responses_makes_a_loose_answer_schema_strict(monkeypatch):
    loose = {"type": "object", "properties": {"customerSummary": {"type": "string"},
                                              "deliveryEstimate": {"type": "string"}},
             "required": ["customerSummary"]}
    body, _ = sent(OpenAIResponsesProvider, "/v1", responses_reply(text="{}"), HISTORY, monkeypatch, schema=loose)
    schema = body["text"]["format"]["schema"]
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["customerSummary", "deliveryEstimate"]
    assert schema["properties"]["deliveryEstimate"]["type"] == ["string", "null"]


def test_chat_completions_request(monkeypatch):
    # json_schema named: under auto, a reply without a tool call is sent again without the format (a
    # schema-grammar check, tests/recorder/test_schema_grammar.py) and this fake scripts one reply per turn.
    first, second = sent(OpenAIChatProvider, "/v1", chat_reply(text="{}"), HISTORY, monkeypatch,
                         extra={"structured_output": "json_schema"})
    assert second["model"] == "requested-model"
    assert second["tools"] == [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                                 "parameters": t.parameters}} for t in TOOLS]
    assert second["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "order_support_answer", "schema": ANSWER_SCHEMA, "strict": True}}
    # Explicit: some servers leave the tools out of the prompt when no tool_choice is sent.
    assert first["tool_choice"] == second["tool_choice"] == "auto"
    system = {"role": "system", "content": INSTRUCTIONS}
    assert first["messages"] == [system, {"role": "user", "content": "Where is my order ORD-1002?"}]
    assert second["messages"] == [
        system,
        {"role": "user", "content": "Where is my order ORD-1002?"},
        {"role": "assistant", "content": "Let me check.", "tool_calls": [
            {"id": "call_A", "type": "function",
             "function": {"name": "get_order", "arguments": '{"orderId": "ORD-1002"}'}},
            {"id": "call_B", "type": "function",
             "function": {"name": "get_payment", "arguments": '{"paymentId":"PAY-9"}'}}]},
        {"role": "tool", "tool_call_id": "call_A", "content": '{"orderId":"ORD-1002"}'},
        {"role": "tool", "tool_call_id": "call_B", "content": "payment PAY-9 not found"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_C", "type": "function",
             "function": {"name": "get_order", "arguments": '{"orderId":"ORD-1003"}'}}]},
        {"role": "tool", "tool_call_id": "call_C", "content": '{"orderId":"ORD-1003"}'},
    ]


@pytest.mark.parametrize(("mode", "expected"), [("json_object", {"type": "json_object"}), ("off", None)])
def test_chat_completions_structured_output_modes(mode, expected, monkeypatch):
    [body, _] = sent(OpenAIChatProvider, "/v1", chat_reply(text="{}"), HISTORY, monkeypatch,
                     extra={"structured_output": mode})
    assert body.get("response_format") == expected


@pytest.mark.parametrize(("choice", "first_turn"), [
    ("required", "required"), ("first-tool", {"type": "function", "function": {"name": "get_order"}})])
def test_chat_completions_forces_a_tool_on_the_first_request_only(choice, first_turn, monkeypatch):
    first, second = sent(OpenAIChatProvider, "/v1", chat_reply(text="{}"), HISTORY, monkeypatch,
                         extra={"tool_choice": choice, "structured_output": "json_schema"})
    # Forced on every turn, the model could never answer.
    assert (first["tool_choice"], second["tool_choice"]) == (first_turn, "auto")


def test_anthropic_request_groups_the_history_into_alternating_messages(monkeypatch):
    first, second = sent(AnthropicMessagesProvider, "", messages_reply(text="{}"), HISTORY, monkeypatch,
                         extra={"max_tokens": 1234, "structured_output": "instructions"}, prompt_cache=False)
    assert second["model"] == "requested-model" and second["system"] == INSTRUCTIONS
    assert second["max_tokens"] == 1234
    assert second["tools"] == [{"name": t.name, "description": t.description, "input_schema": t.parameters}
                               for t in TOOLS]
    assert "output_config" not in second and "response_format" not in second
    question = {"role": "user", "content": [{"type": "text", "text": "Where is my order ORD-1002?"}]}
    assert first["messages"] == [question]
    assert second["messages"] == [
        question,
        {"role": "assistant", "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "call_A", "name": "get_order", "input": {"orderId": "ORD-1002"}},
            {"type": "tool_use", "id": "call_B", "name": "get_payment", "input": {"paymentId": "PAY-9"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_A", "content": '{"orderId":"ORD-1002"}'},
            {"type": "tool_result", "tool_use_id": "call_B", "content": "payment PAY-9 not found",
             "is_error": True}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "call_C", "name": "get_order", "input": {"orderId": "ORD-1003"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_C", "content": '{"orderId":"ORD-1003"}'}]},
    ]
    roles = [message["role"] for message in second["messages"]]
    assert all(a != b for a, b in itertools.pairwise(roles))


def test_anthropic_puts_tool_results_before_a_following_user_nudge(monkeypatch):
    history = [*copy.deepcopy(HISTORY[:5]),
               {"type": "function_call_output", "callId": "call_B", "output": "{}", "isError": False},
               {"type": "message", "role": "user", "content": "Answer with the JSON object now."}]
    _, body = sent(AnthropicMessagesProvider, "", messages_reply(text="{}"), history, monkeypatch)
    last = body["messages"][-1]
    assert last["role"] == "user"
    assert [block["type"] for block in last["content"]] == ["tool_result", "tool_result", "text"]


def test_anthropic_default_max_tokens(monkeypatch):
    [body, _] = sent(AnthropicMessagesProvider, "", messages_reply(text="{}"), HISTORY, monkeypatch)
    assert body["max_tokens"] == 4096


@pytest.mark.parametrize("arguments", ['{"orderId": "ORD-1', "[1, 2]"])
def test_anthropic_keeps_arguments_that_are_not_an_object(arguments, monkeypatch):
    history = [HISTORY[0], {"type": "function_call", "callId": "c1", "name": "get_order", "arguments": arguments},
               {"type": "function_call_output", "callId": "c1", "output": "invalid arguments", "isError": True}]
    _, body = sent(AnthropicMessagesProvider, "", messages_reply(text="{}"), history, monkeypatch)
    assert body["messages"][1]["content"][0]["input"] == {"unparsed_arguments": arguments}
