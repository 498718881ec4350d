"""The two hosted APIs as a user's key meets them, through the real loop and the loopback fakes.

OpenAI Responses: stateless requests that carry encrypted reasoning, reasoning tokens and effort,
incomplete and refused responses. Anthropic Messages: no whitespace-only text sent back, cache
markers, structured output and its fallback, stop reasons. Every captured body is held to the
installed SDKs' request types (tests/recorder/sdk_types.py).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from core.domain.answer import ANSWER_SCHEMA
from core.errors import WismoError
from recorder.providers import create_provider
from recorder.providers._common import strict_schema
from recorder.providers.anthropic_messages import AnthropicMessagesProvider
from recorder.providers.base import ModelRequest, ProviderSettings
from recorder.providers.openai_responses import OpenAIResponsesProvider
from tests.recorder.sdk_types import assert_messages_body, assert_responses_body
from tests.recorder.test_loop import GOOD_ANSWER, converse, finished
from tests.recorder.test_providers import QUESTION, TOOLS
from wismo.loopback import (
    FakeServer,
    Tokens,
    anthropic_error,
    anthropic_model_info,
    messages_reply,
    openai_error,
    responses_reply,
)

GET_ORDER = ("get_order", '{"orderId": "ORD-1004"}', "call_1")
GET_PAYMENT = ("get_payment", '{"paymentId": "PAY-1004"}', "call_2")
INCLUDE = ["reasoning.encrypted_content"]


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-hosted-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-hosted-test")


def openai(fake: FakeServer, model: str = "gpt-5.4-mini", **settings: Any) -> OpenAIResponsesProvider:
    return OpenAIResponsesProvider(ProviderSettings(model=model, base_url=fake.url + "/v1", **settings))


def anthropic(fake: FakeServer, model: str = "claude-requested", **settings: Any) -> AnthropicMessagesProvider:
    return AnthropicMessagesProvider(ProviderSettings(model=model, base_url=fake.url, **settings))


def conversation(tmp_path, adapter) -> tuple[Any, list[dict[str, Any]]]:
    """One conversation of the partial-delivery case (granular design) through the real loop."""
    async def go():
        try:
            return await converse(tmp_path, adapter)
        finally:
            await adapter.aclose()
    outcome, events, _ = asyncio.run(go())
    return outcome, events


def completed(adapter, *requests: ModelRequest) -> list[Any]:
    """Send the requests one after the other through the adapter; return its responses."""
    async def go():
        try:
            return [await adapter.complete(request) for request in requests]
        finally:
            await adapter.aclose()
    return asyncio.run(go())


def request(turn: int = 1, history: list[dict[str, Any]] | None = None) -> ModelRequest:
    return ModelRequest("You answer order questions.", TOOLS, history or QUESTION, ANSWER_SCHEMA, turn, 10.0)


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


# --- OpenAI Responses ---------------------------------------------------------------------------------------

def test_responses_are_stateless_and_carry_encrypted_reasoning_in_order(tmp_path):
    first = responses_reply(reasoning=[None, "gAAAA-encrypted-1"], function_calls=[GET_ORDER],
                            usage=Tokens(input=1500, output=180, cached=0, reasoning=150))
    with FakeServer() as fake:
        fake.script(first, responses_reply(text=GOOD_ANSWER, usage=Tokens(input=2200, output=260, cached=1408,
                                                                            reasoning=200)))
        outcome, events = conversation(tmp_path, openai(fake))
        bodies = [r.body for r in fake.requests]
    assert outcome.status == "answered"
    for body in bodies:
        assert body["store"] is False and body["include"] == INCLUDE
        assert_responses_body(body)
    carried = first.body["output"][1]
    # The reasoning item sent without encrypted content cannot be carried statelessly; the other goes
    # back just before the function call it led to, with its id, summary and encrypted content.
    assert bodies[1]["input"][1:] == [
        {"type": "reasoning", "id": carried["id"], "summary": carried["summary"],
         "encrypted_content": "gAAAA-encrypted-1"},
        {"type": "function_call", "call_id": "call_1", "name": "get_order", "arguments": '{"orderId": "ORD-1004"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": bodies[1]["input"][3]["output"]},
    ]
    request_two = of_type(events, "model_request")[1]
    assert [item["type"] for item in request_two["newItems"]] == ["reasoning", "function_call",
                                                                  "function_call_output"]
    responses = of_type(events, "model_response")
    assert [r["usage"]["reasoningTokens"] for r in responses] == [150, 200]
    assert [r["stopReason"] for r in responses] == ["completed", "completed"]
    assert finished(events)["claimed"]["reasoningTokens"] == 350


def test_a_known_chat_model_is_not_asked_for_encrypted_reasoning():
    with FakeServer() as fake:
        fake.script(responses_reply(text="{}"))
        completed(openai(fake, model="gpt-4.1-mini"), request())
        [body] = [r.body for r in fake.requests]
    assert body["store"] is False and "include" not in body


def test_a_model_that_refuses_the_include_is_asked_again_without_it():
    with FakeServer() as fake:
        fake.script(openai_error(400, "Encrypted content is not supported with this model."),
                    responses_reply(text="{}"), responses_reply(text="{}"))
        first, second = completed(openai(fake, model="acme-large"), request(1), request(2))
        bodies = [r.body for r in fake.requests]
    assert [("include" in body) for body in bodies] == [True, False, False]
    assert first.output_items == second.output_items == [{"type": "text", "text": "{}"}]
    assert (first.retries, first.retry_waits_s, second.retries) == (1, [0.0], 0)  # the refused attempt counts


def test_encrypted_content_that_cannot_be_verified_is_an_error_not_a_model_without_reasoning():
    with FakeServer() as fake:
        fake.script(openai_error(400, "The encrypted content for item rs_1 could not be verified."))
        with pytest.raises(Exception, match="could not be verified"):
            completed(openai(fake, model="acme-large"), request())
        assert len(fake.requests) == 1


def test_the_reasoning_effort_asked_for_is_sent():
    with FakeServer() as fake:
        fake.script(responses_reply(text="{}"))
        adapter = openai(fake, reasoning_effort="low")
        completed(adapter, request())
        [body] = [r.body for r in fake.requests]
    assert body["reasoning"] == {"effort": "low"}
    assert adapter.request_options()["reasoningEffort"] == "low"
    assert_responses_body(body)


def test_strict_function_tools_get_the_strict_schema():
    with FakeServer() as fake:
        fake.script(responses_reply(text="{}"))
        completed(openai(fake, strict_tools=True), request())
        [body] = [r.body for r in fake.requests]
    assert [tool["strict"] for tool in body["tools"]] == [True, True]
    assert body["tools"][0]["parameters"] == {"type": "object", "properties": {"orderId": {"type": "string"}},
                                              "required": ["orderId"], "additionalProperties": False}
    assert_responses_body(body)


@pytest.mark.parametrize(("reply", "status", "stop_reason"), [
    (responses_reply(text='{"deliveredSkus": ["LAP', incomplete="max_output_tokens"), "provider_limit",
     "max_output_tokens"),
    (responses_reply(text="", incomplete="content_filter"), "refused", "content_filter"),
    (responses_reply(refusal="I can't help with that request."), "refused", "refusal"),
], ids=["max_output_tokens", "content_filter", "refusal"])
def test_a_response_the_provider_cut_short_ends_the_conversation_with_its_own_status(tmp_path, reply, status,
                                                                                     stop_reason):
    with FakeServer() as fake:
        fake.script(reply)
        outcome, events = conversation(tmp_path, openai(fake))
    [response] = of_type(events, "model_response")
    done = finished(events)
    assert response["stopReason"] == stop_reason
    assert (outcome.status, done["status"], done["score"]["passed"]) == (status, status, False)
    assert stop_reason in done["error"]
    expected_text = {"refusal": "I can't help with that request.", "max_output_tokens": '{"deliveredSkus": ["LAP'}
    assert done["finalText"] == expected_text.get(stop_reason)


# --- Anthropic Messages -------------------------------------------------------------------------------------

def _text_blocks(body: dict[str, Any]) -> list[str]:
    return [block["text"] for message in body["messages"] for block in message["content"]
            if block["type"] == "text"]


def test_a_whitespace_only_text_block_is_never_sent_back(tmp_path):
    with FakeServer() as fake:
        fake.script(messages_reply(text="\n\n", function_calls=[GET_ORDER]), messages_reply(text=GOOD_ANSWER))
        outcome, events = conversation(tmp_path, anthropic(fake))
        bodies = [r.body for r in fake.requests]
    assert outcome.status == "answered"
    assert all(text.strip() for body in bodies for text in _text_blocks(body)), _text_blocks(bodies[1])
    first = of_type(events, "model_response")[0]
    assert first["rawOutput"][0] == {"type": "text", "text": "\n\n"}  # kept as the API sent it
    assert [item["type"] for item in first["outputItems"]] == ["function_call"]
    for body in bodies:
        assert_messages_body(body)


def _marked(body: dict[str, Any]) -> list[str]:
    """Where the body carries cache_control: system, tools, or message index."""
    marks = [f"system[{i}]" for i, block in enumerate(body["system"]) if "cache_control" in block] \
        if isinstance(body["system"], list) else []
    marks += [f"tool {tool['name']}" for tool in body["tools"] if "cache_control" in tool]
    marks += [f"message {i} block {j}" for i, message in enumerate(body["messages"])
              for j, block in enumerate(message["content"]) if "cache_control" in block]
    return marks


def test_cache_markers_are_sent_by_default_and_the_cache_counts_recorded(tmp_path):
    # granular: get_order, then get_payment, then the answer: three requests over a growing history
    cache = Tokens(input=40, output=30, cached=1800, cache_write=250)
    with FakeServer() as fake:
        fake.script(messages_reply(function_calls=[GET_ORDER], usage=Tokens(input=40, output=30, cache_write=1500)),
                    messages_reply(function_calls=[GET_PAYMENT], usage=cache),
                    messages_reply(text=GOOD_ANSWER, usage=cache))
        outcome, events = conversation(tmp_path, anthropic(fake))
        bodies = [r.body for r in fake.requests]
    assert outcome.status == "answered"
    assert [_marked(body) for body in bodies] == [
        ["system[0]", "message 0 block 0"],
        ["system[0]", "message 0 block 0", "message 2 block 0"],  # where request 1 ended, and the end
        ["system[0]", "message 2 block 0", "message 4 block 0"],
    ]
    assert bodies[0]["system"][0]["cache_control"] == {"type": "ephemeral"}
    for body in bodies:
        assert_messages_body(body)
    usage = [r["usage"] for r in of_type(events, "model_response")]
    assert [(u["inputTokens"], u["cachedTokens"]) for u in usage] == [(1540, 0), (2090, 1800), (2090, 1800)]


def test_no_cache_sends_no_marker():
    with FakeServer() as fake:
        fake.script(messages_reply(text="{}"))
        adapter = anthropic(fake, prompt_cache=False)
        completed(adapter, request())
        [body] = [r.body for r in fake.requests]
    assert isinstance(body["system"], str) and _marked(body) == []
    assert adapter.request_options()["promptCaching"] == "off"


def test_structured_output_is_asked_for_when_the_models_api_says_the_model_supports_it():
    with FakeServer() as fake:
        fake.on_get("/v1/models/claude-requested", anthropic_model_info("claude-requested"))
        fake.script(messages_reply(text="{}"), messages_reply(text="{}"))
        responses = completed(anthropic(fake), request(1), request(2))
        bodies = [r.body for r in fake.requests]
        asked = [r.path for r in fake.gets]
    assert asked == ["/v1/models/claude-requested"]  # once per run, not per request
    for body in bodies:
        assert body["output_config"] == {"format": {"type": "json_schema", "schema": strict_schema(ANSWER_SCHEMA)}}
        assert_messages_body(body)
    assert [r.answer_format for r in responses] == ["json_schema", "json_schema"]


def test_a_model_without_structured_output_gets_the_instructions_only():
    with FakeServer() as fake:
        fake.on_get("/v1/models/claude-requested", anthropic_model_info("claude-requested", structured_outputs=False))
        fake.script(messages_reply(text="{}"))
        [response] = completed(anthropic(fake), request())
        [body] = [r.body for r in fake.requests]
    assert "output_config" not in body
    assert response.answer_format == "instructions"


def test_when_nothing_says_the_first_refusal_of_output_config_falls_back_to_instructions(tmp_path):
    with FakeServer() as fake:  # the Models API answers 404: wismo cannot tell, so it tries
        fake.script(anthropic_error(400, "output_config.format: structured outputs are not supported by this model"),
                    messages_reply(function_calls=[GET_ORDER]), messages_reply(text=GOOD_ANSWER))
        outcome, events = conversation(tmp_path, anthropic(fake))
        bodies = [r.body for r in fake.requests]
    assert ["output_config" in body for body in bodies] == [True, False, False]
    assert outcome.status == "answered"
    responses = of_type(events, "model_response")
    assert [r["answerFormat"] for r in responses] == ["instructions", "instructions"]
    assert [r["retries"] for r in responses] == [1, 0]  # the refused attempt is on the record


def test_when_nothing_says_and_the_api_takes_it_structured_output_stays_on():
    with FakeServer() as fake:
        fake.script(messages_reply(text="{}"), messages_reply(text="{}"))
        responses = completed(anthropic(fake), request(1), request(2))
        bodies = [r.body for r in fake.requests]
    assert all("format" in body["output_config"] for body in bodies)
    assert [r.answer_format for r in responses] == ["json_schema", "json_schema"]


def test_another_bad_request_is_not_taken_for_a_missing_feature():
    with FakeServer() as fake:
        fake.script(anthropic_error(400, "messages.0.content: text content blocks must contain non-whitespace text"))
        adapter = anthropic(fake)
        with pytest.raises(Exception, match="non-whitespace"):
            completed(adapter, request())
        assert len(fake.requests) == 1


def test_effort_and_strict_tools_are_sent():
    with FakeServer() as fake:
        fake.script(messages_reply(text="{}"))
        adapter = anthropic(fake, reasoning_effort="high", strict_tools=True,
                            extra={"structured_output": "instructions"})
        completed(adapter, request())
        [body] = [r.body for r in fake.requests]
    assert body["output_config"] == {"effort": "high"}
    assert [tool["strict"] for tool in body["tools"]] == [True, True]
    assert body["tools"][0]["input_schema"]["additionalProperties"] is False
    assert_messages_body(body)


def test_thinking_tokens_are_recorded_as_reasoning_tokens():
    with FakeServer() as fake:
        fake.script(messages_reply(text="{}", usage=Tokens(output=90, reasoning=70)))
        [response] = completed(anthropic(fake), request())
    assert (response.usage.output_tokens, response.usage.reasoning_tokens) == (90, 70)


@pytest.mark.parametrize(("stop_reason", "status"), [
    ("max_tokens", "provider_limit"), ("model_context_window_exceeded", "provider_limit"),
    ("pause_turn", "provider_limit"), ("refusal", "refused")])
def test_a_stop_reason_that_cuts_the_answer_short_ends_the_conversation(tmp_path, stop_reason, status):
    with FakeServer() as fake:
        fake.script(messages_reply(text='{"deliveredSkus": ["LAPTOP-14"], "outst', stop_reason=stop_reason))
        outcome, events = conversation(tmp_path, anthropic(fake))
    [response] = of_type(events, "model_response")
    done = finished(events)
    assert response["stopReason"] == stop_reason
    assert (outcome.status, done["status"], done["assessment"]) == (status, status, None)
    assert done["finalText"] == '{"deliveredSkus": ["LAPTOP-14"], "outst'


def test_a_normal_end_is_recorded_and_scored(tmp_path):
    with FakeServer() as fake:
        fake.script(messages_reply(function_calls=[GET_ORDER]), messages_reply(text=GOOD_ANSWER))
        outcome, events = conversation(tmp_path, anthropic(fake))
    assert [r["stopReason"] for r in of_type(events, "model_response")] == ["tool_use", "end_turn"]
    assert outcome.status == "answered" and outcome.passed


# --- options and capabilities -------------------------------------------------------------------------------

@pytest.mark.parametrize(("provider", "settings", "message"), [
    ("openai", {"prompt_cache": False}, "caches long prompts automatically"),
    ("scripted", {"reasoning_effort": "low"}, "--reasoning-effort is not supported by the scripted provider"),
    ("scripted", {"strict_tools": True}, "--strict-tools is not supported"),
    ("anthropic", {"reasoning_effort": "minimal"}, "not one the Messages API knows"),
    ("openai", {"reasoning_effort": "huge"}, "not one the Responses API knows"),
])
def test_an_option_a_provider_cannot_honour_is_refused(provider, settings, message):
    with pytest.raises(WismoError, match=message):
        create_provider(provider, ProviderSettings(**settings))


def capabilities(adapter) -> Any:
    async def go():
        try:
            return await adapter.capabilities()
        finally:
            await adapter.aclose()
    return asyncio.run(go())


def test_the_models_api_tells_what_an_anthropic_model_supports():
    with FakeServer() as fake:
        fake.on_get("/v1/models/claude-requested",
                    anthropic_model_info("claude-requested", structured_outputs=False, thinking=True))
        found = capabilities(anthropic(fake))
    assert (found.caching.supported, found.structured_output.supported, found.reasoning.supported) == \
        (True, False, True)
    assert "capabilities.structured_outputs" in found.structured_output.source


def test_an_unknown_anthropic_model_s_capabilities_are_unknown_not_guessed():
    with FakeServer() as fake:
        found = capabilities(anthropic(fake))
    assert (found.structured_output.supported, found.reasoning.supported) == (None, None)
    assert "404" in found.structured_output.source


@pytest.mark.parametrize(("model", "reasoning", "structured"), [
    ("gpt-5.4-mini", True, True), ("o4-mini", True, True), ("gpt-5-chat-latest", False, True),
    ("gpt-4.1", False, True), ("gpt-3.5-turbo", False, False), ("acme-large", None, None)])
def test_openai_capabilities_come_from_the_model_name(model, reasoning, structured):
    found = capabilities(OpenAIResponsesProvider(ProviderSettings(model=model)))
    assert (found.reasoning.supported, found.structured_output.supported, found.caching.supported) == \
        (reasoning, structured, True)


def test_the_request_bodies_are_held_to_the_sdk_types_strictly():
    """The checker itself: a key the SDK type does not define is caught."""
    body = {"model": "m", "input": [{"role": "user", "content": "q"}], "stoer": False}
    with pytest.raises(AssertionError, match="lacks"):
        assert_responses_body(body)
    blocks = {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "q", "cache_contrl": {"type": "ephemeral"}}]}]}
    with pytest.raises(AssertionError, match="lacks"):
        assert_messages_body(blocks)



# --- the options from the command line to the wire and the manifest ------------------------------------------

def _answered(body: dict[str, Any]) -> bool:
    """Whether the request already carries a tool result (then the fake answers)."""
    items = body.get("input") or [block for message in body.get("messages", []) for block in message["content"]
                                  if isinstance(message["content"], list)]
    return any(item.get("type") in ("function_call_output", "tool_result") for item in items)


@pytest.mark.parametrize(("provider", "prefix", "flags", "options"), [
    ("openai", "/v1", ["--reasoning-effort", "low", "--strict-tools"],
     {"reasoningEffort": "low", "promptCaching": "automatic", "structuredOutput": "json_schema",
      "strictTools": True}),
    ("anthropic", "", ["--reasoning-effort", "high", "--no-cache"],
     {"reasoningEffort": "high", "promptCaching": "off", "structuredOutput": "auto", "strictTools": False}),
])
def test_record_passes_the_options_through_and_the_manifest_records_them(tmp_path, provider, prefix, flags, options):
    from click.testing import CliRunner

    from core.runformat.read import read_manifest
    from recorder.run.manifest import settings_of_run
    from tests.recorder.test_provider_loop import answer
    from wismo.cli import cli

    reply = responses_reply if provider == "openai" else messages_reply
    call = ("get_order_support_context", '{"orderId": "ORD-1004"}', "call_ctx")

    def respond(received):
        if _answered(received.body):
            return reply(text=answer("partial-delivery"))
        return reply(function_calls=[call])

    with FakeServer(respond) as fake:
        result = CliRunner().invoke(cli, [
            "record", "--provider", provider, "--model", "model-x", "--base-url", fake.url + prefix,
            "--designs", "focused", "--cases", "partial-delivery", "--repetitions", "1", "--out", str(tmp_path),
            "--run-id", "opts", *flags])
        bodies = [r.body for r in fake.requests]
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "opts" / "manifest.json").read_text())
    assert manifest["provider"]["options"] == options
    assert len(bodies) == 2
    for body in bodies:
        if provider == "openai":
            assert body["reasoning"] == {"effort": "low"} and all(t["strict"] for t in body["tools"])
            assert_responses_body(body)
        else:
            assert body["output_config"]["effort"] == "high" and _marked(body) == []
            assert_messages_body(body)
    # A resume sends what the run sent.
    settings = settings_of_run(read_manifest(tmp_path / "opts"), manifest["baseUrl"])
    assert (settings.reasoning_effort, settings.prompt_cache, settings.strict_tools) == \
        (options["reasoningEffort"], options["promptCaching"] != "off", options["strictTools"])
