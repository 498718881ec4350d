"""openai-chat against a loopback server with each quirk of llama-cpp-python's server, one at a time.

Each quirk was first seen against the real server (see docs/recording.md, "Local model"): it refuses
json_schema and null content with 500, leaves the tools out without tool_choice, and its validation
errors must not be retried.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from openai import OpenAI

from recorder.providers.base import ModelRequest, ModelResponse, ProviderError, ProviderSettings
from recorder.providers.chat_compat import AnswerFormat, looks_like_validation_error
from recorder.providers.openai_chat import OpenAIChatProvider
from tests.recorder.test_providers import ANSWER_SCHEMA, TOOLS, Sleeps
from wismo.loopback import ChatServer, FakeServer, llama_cpp_python, openai_error

QUESTION = [{"type": "message", "role": "user", "content": "Where is my order ORD-1002?"}]
AFTER_A_CALL = [*QUESTION,
                {"type": "function_call", "callId": "c1", "name": "get_order", "arguments": '{"orderId":"ORD-1002"}'},
                {"type": "function_call_output", "callId": "c1", "output": '{"orderId":"ORD-1002"}', "isError": False}]


def complete_all(fake: FakeServer, histories: list[list[dict[str, Any]]], sleeps: Sleeps | None = None,
                 **extra: Any) -> tuple[OpenAIChatProvider, list[ModelResponse | ProviderError]]:
    """Send one request per history (turn = its position) through one adapter; errors are returned, not raised."""
    adapter = OpenAIChatProvider(ProviderSettings(model="m", base_url=fake.url + "/v1", extra=extra),
                                 sleep=sleeps or Sleeps(), rand=lambda: 1.0)

    async def go() -> list[ModelResponse | ProviderError]:
        results: list[ModelResponse | ProviderError] = []
        try:
            for turn, history in enumerate(histories, start=1):
                try:
                    results.append(await adapter.complete(
                        ModelRequest("Answer order questions.", TOOLS, history, ANSWER_SCHEMA, turn, 10.0)))
                except ProviderError as error:
                    results.append(error)
        finally:
            await adapter.aclose()
        return results

    return adapter, asyncio.run(go())


def answer_formats(fake: FakeServer) -> list[str | None]:
    return [(r.body.get("response_format") or {}).get("type") for r in fake.requests]


def test_auto_falls_back_from_a_refused_json_schema_once_per_run():
    with llama_cpp_python().serve() as fake:
        adapter, [first, second] = complete_all(fake, [QUESTION, AFTER_A_CALL])
    assert isinstance(first, ModelResponse) and isinstance(second, ModelResponse)
    # The refusal is a 500 the server sends for every such request: not retried, the format moves on,
    # and the next request starts from the format that worked.
    assert answer_formats(fake) == ["json_schema", "json_object", "json_object"]
    assert first.retries == 0
    state = adapter.structured_output.to_json()
    assert (state["requested"], state["used"]) == ("auto", "json_object")
    [fallback] = state["fallbacks"]
    assert fallback["rejected"] == "json_schema" and "Input should be 'text' or 'json_object'" in fallback["reason"]


def test_auto_ends_with_no_answer_format_when_json_object_is_refused_too():
    def refuse_any_format(received):
        if received.body.get("response_format"):
            return openai_error(400, "response_format is not supported by this model")
        return ChatServer()(received)

    with FakeServer(refuse_any_format) as fake:
        adapter, [response] = complete_all(fake, [QUESTION])
    assert isinstance(response, ModelResponse)
    assert answer_formats(fake) == ["json_schema", "json_object", None]
    assert adapter.structured_output.used == "off"


def test_a_fixed_answer_format_that_the_server_refuses_fails_at_once():
    with llama_cpp_python().serve() as fake:
        _, [error] = complete_all(fake, [QUESTION], structured_output="json_schema")
    assert isinstance(error, ProviderError) and error.kind == "bad_request" and error.status == 500
    assert "request-validation error" in str(error)
    assert len(fake.requests) == 1  # not retried 4 times


def test_a_validation_error_sent_as_500_is_not_retried_but_a_plain_500_is():
    sleeps = Sleeps()
    with llama_cpp_python(reject_json_schema=False).serve() as fake:
        _, [error] = complete_all(fake, [QUESTION], sleeps, tool_choice="required")
    # llama-cpp-python crashes on "required" with an empty 500: that may be transient, so it is retried.
    assert isinstance(error, ProviderError) and error.kind == "server_error" and error.retries == 4
    assert error.retry_waits_s == sleeps.waits and len(fake.requests) == 5
    assert looks_like_validation_error("1 validation error: {'msg': \"Input should be 'text' or 'json_object'\"}")
    assert not looks_like_validation_error("CUDA out of memory")


def test_assistant_content_beside_tool_calls_is_an_empty_string_not_null():
    with llama_cpp_python().serve() as fake:
        _, results = complete_all(fake, [AFTER_A_CALL], structured_output="json_object")
    assert all(isinstance(r, ModelResponse) for r in results)
    assistant = fake.requests[-1].body["messages"][2]
    assert assistant["role"] == "assistant" and assistant["content"] == ""


def test_tools_reach_a_server_that_needs_tool_choice():
    with llama_cpp_python().serve() as fake:
        _, [response] = complete_all(fake, [QUESTION], structured_output="json_object")
    assert [item["name"] for item in response.output_items if item["type"] == "function_call"] == ["get_order"]


def test_the_fake_leaves_the_tools_out_without_tool_choice_like_the_real_server():
    # The quirk itself, so the test above means something: no tool_choice, no tools in the prompt.
    server = llama_cpp_python()
    with server.serve() as fake:
        client = OpenAI(base_url=fake.url + "/v1", api_key="x", max_retries=0)
        tools = [{"type": "function", "function": {"name": "get_order", "parameters": TOOLS[0].parameters}}]
        messages = [{"role": "user", "content": "Where is ORD-1?"}]
        alone = client.chat.completions.create(model="m", messages=messages, tools=tools)
        without = client.chat.completions.create(model="m", messages=messages)
        forced = client.chat.completions.create(model="m", messages=messages, tools=tools, tool_choice="auto")
    assert not alone.choices[0].message.tool_calls
    assert alone.usage.prompt_tokens == without.usage.prompt_tokens < forced.usage.prompt_tokens
    assert forced.choices[0].message.tool_calls


def test_a_resumed_run_starts_from_the_format_it_settled_on():
    answer_format = AnswerFormat.create("auto", "json_object", [{"rejected": "json_schema", "reason": "r", "at": "t"}])
    assert answer_format.used == "json_object" and len(answer_format.fallbacks) == 1
    with pytest.raises(ValueError, match="unknown structured output mode"):
        AnswerFormat.create("xml")
