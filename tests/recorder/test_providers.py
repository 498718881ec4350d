"""The three API adapters against loopback servers speaking each real wire format: replies, usage, errors.

What each adapter puts on the wire (instructions, tools, history) is tested in test_provider_wire.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

import pytest

from core.domain.linking import ToolSpec
from core.errors import WismoError
from recorder.providers import create_provider
from recorder.providers.anthropic_messages import AnthropicMessagesProvider
from recorder.providers.base import ModelRequest, ModelResponse, ProviderError, ProviderSettings
from recorder.providers.openai_chat import OpenAIChatProvider
from recorder.providers.openai_responses import OpenAIResponsesProvider
from wismo.loopback import (
    ANTHROPIC_MODEL,
    CHAT_MODEL,
    OPENAI_MODEL,
    FakeServer,
    Reply,
    Tokens,
    anthropic_error,
    chat_reply,
    messages_reply,
    openai_error,
    responses_reply,
)

KEYS = {"OPENAI_API_KEY": "sk-test-openai-7f3a9c", "ANTHROPIC_API_KEY": "sk-ant-test-b41d2e",
        "WISMO_TEST_CHAT_KEY": "sk-local-test-99e0aa"}


@dataclass(frozen=True)
class Api:
    """One provider and the fake that speaks its wire format."""

    name: str
    cls: type
    key_env: str
    settings: dict[str, Any]
    prefix: str  # what the SDK's base_url ends with before it adds the endpoint path
    endpoint: str
    reply: Callable[..., Reply]
    error: Callable[..., Reply]
    returned_model: str

    @property
    def key(self) -> str:
        return KEYS[self.key_env]


APIS = [
    Api("openai", OpenAIResponsesProvider, "OPENAI_API_KEY", {"model": "gpt-requested"}, "/v1", "/v1/responses",
        responses_reply, openai_error, OPENAI_MODEL),
    Api("anthropic", AnthropicMessagesProvider, "ANTHROPIC_API_KEY", {"model": "claude-requested"}, "",
        "/v1/messages", messages_reply, anthropic_error, ANTHROPIC_MODEL),
    # openai-chat reads a key only from a variable named explicitly; the tests name one. json_schema is
    # named: under auto a reply without a tool call is sent once more without it (the schema-grammar
    # check, test_schema_grammar.py), and these tests count the requests a scripted reply answers.
    Api("openai-chat", OpenAIChatProvider, "WISMO_TEST_CHAT_KEY",
        {"model": "local-requested", "api_key_env": "WISMO_TEST_CHAT_KEY",
         "extra": {"structured_output": "json_schema"}}, "/v1", "/v1/chat/completions",
        chat_reply, openai_error, CHAT_MODEL),
]

TOOLS = [ToolSpec("get_order", "Look up one order by its ID.",
                  {"type": "object", "properties": {"orderId": {"type": "string"}}, "required": ["orderId"]}),
         ToolSpec("get_payment", "Look up one payment.",
                  {"type": "object", "properties": {"paymentId": {"type": "string"}}, "required": ["paymentId"]})]
ANSWER_SCHEMA = {"type": "object", "properties": {"customerSummary": {"type": "string"}},
                 "required": ["customerSummary"], "additionalProperties": False}
QUESTION = [{"type": "message", "role": "user", "content": "Where is my order ORD-1002?"}]


def run(coro):
    return asyncio.run(coro)


def request(history: list[dict[str, Any]] | None = None, timeout_s: float = 10.0) -> ModelRequest:
    return ModelRequest("You answer order questions.", TOOLS, history or QUESTION, ANSWER_SCHEMA, 1, timeout_s)


class Sleeps:
    """An injected sleep that records the waits instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture(params=APIS, ids=[api.name for api in APIS])
def api(request, monkeypatch) -> Api:
    for env, value in KEYS.items():
        monkeypatch.setenv(env, value)
    return request.param


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


def provider(api: Api, fake: FakeServer, sleeps: Sleeps | None = None, **settings: Any):
    """The adapter pointed at the fake; jitter fixed at its maximum so waits are exact."""
    merged = {**api.settings, "base_url": fake.url + api.prefix, **settings}
    return api.cls(ProviderSettings(**merged), sleep=sleeps or Sleeps(), rand=lambda: 1.0)


def complete(api: Api, fake: FakeServer, req: ModelRequest | None = None, **settings: Any) -> ModelResponse:
    async def go():
        adapter = provider(api, fake, **settings)
        try:
            return await adapter.complete(req or request())
        finally:
            await adapter.aclose()
    return run(go())


def failure(api: Api, fake: FakeServer, req: ModelRequest | None = None, sleeps: Sleeps | None = None,
            **settings: Any) -> ProviderError:
    async def go():
        adapter = provider(api, fake, sleeps, **settings)
        try:
            await adapter.complete(req or request())
        finally:
            await adapter.aclose()
    with pytest.raises(ProviderError) as caught:
        run(go())
    return caught.value


def test_identity_of_each_adapter(api, fake):
    adapter = provider(api, fake)
    assert adapter.name == api.name and adapter.is_language_model is True
    assert adapter.model == api.settings["model"]
    assert adapter.model in adapter.label and api.key not in adapter.label
    assert type(create_provider(api.name, ProviderSettings(**api.settings, base_url=fake.url))) is api.cls


def test_function_call_becomes_a_neutral_item_with_verbatim_arguments(api, fake):
    fake.script(api.reply(function_calls=[("get_order", '{"orderId": "ORD-1002"}', "call_abc")]))
    response = complete(api, fake)
    [item] = response.output_items
    assert item["type"] == "function_call" and item["callId"] == "call_abc" and item["name"] == "get_order"
    if api.name == "anthropic":
        # Anthropic returns the input parsed; the adapter serializes the same object back.
        assert json.loads(item["arguments"]) == {"orderId": "ORD-1002"}
    else:
        assert item["arguments"] == '{"orderId": "ORD-1002"}'


@pytest.mark.parametrize("api_name", ["openai", "openai-chat"])
def test_malformed_arguments_are_kept_verbatim(api_name, fake, monkeypatch):
    api = next(a for a in APIS if a.name == api_name)
    monkeypatch.setenv(api.key_env, api.key)
    fake.script(api.reply(function_calls=[("get_order", '{"orderId": "ORD-10', "call_bad")]))
    [item] = complete(api, fake).output_items
    assert item["arguments"] == '{"orderId": "ORD-10'


def test_two_tool_calls_in_one_response_keep_their_order_and_ids(api, fake):
    fake.script(api.reply(text="Checking both.", function_calls=[("get_order", '{"orderId":"ORD-1"}', "call_1"),
                                                                  ("get_payment", '{"paymentId":"PAY-1"}', "call_2")]))
    items = complete(api, fake).output_items
    assert items[0] == {"type": "text", "text": "Checking both."}
    calls = [(i["callId"], i["name"], json.loads(i["arguments"])) for i in items[1:]]
    assert calls == [("call_1", "get_order", {"orderId": "ORD-1"}), ("call_2", "get_payment", {"paymentId": "PAY-1"})]


def test_final_text_answer(api, fake):
    answer = json.dumps({"customerSummary": "Your webcam arrives Oct 10."})
    fake.script(api.reply(text=answer))
    assert complete(api, fake).output_items == [{"type": "text", "text": answer}]


def test_usage_is_what_the_provider_reported(api, fake):
    fake.script(api.reply(text="{}", usage=Tokens(input=1200, output=85, cached=1024, cache_write=40)))
    usage = complete(api, fake).usage
    assert usage.output_tokens == 85 and usage.cached_tokens == 1024 and usage.estimated is False
    # Anthropic reports cache reads and writes beside input_tokens; the adapter adds them up.
    assert usage.input_tokens == (1200 + 1024 + 40 if api.name == "anthropic" else 1200)


def test_usage_is_none_when_not_reported(api, fake):
    fake.script(api.reply(text="{}", usage=None))
    usage = complete(api, fake).usage
    assert (usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (None, None, None)


def test_model_and_response_id_are_the_returned_ones(api, fake):
    fake.script(api.reply(text="{}", response_id="resp-from-server-42"))
    response = complete(api, fake)
    assert response.model == api.returned_model != api.settings["model"]
    assert response.response_id == "resp-from-server-42"
    assert response.retries == 0 and response.retry_waits_s == []
    assert json.dumps(response.raw_output)  # the raw items are plain JSON


def test_429_with_retry_after_waits_what_the_server_asked(api, fake):
    fake.script(api.error(429, "Rate limit reached", headers={"Retry-After": "7"}), api.reply(text="{}"))
    sleeps = Sleeps()

    async def go():
        adapter = provider(api, fake, sleeps)
        try:
            return await adapter.complete(request())
        finally:
            await adapter.aclose()
    response = run(go())
    assert response.retries == 1 and response.retry_waits_s == [7.0] and sleeps.waits == [7.0]
    assert len(fake.requests) == 2 and fake.requests[0].body == fake.requests[1].body


def test_500_twice_then_success_backs_off_exponentially(api, fake):
    fake.script(api.error(500, "boom"), api.error(503, "busy"), api.reply(text="{}"))
    response = complete(api, fake, backoff_base_s=0.5, backoff_max_s=20.0)
    assert response.retries == 2 and response.retry_waits_s == [0.5, 1.0]
    assert len(fake.requests) == 3


def test_backoff_is_capped(api, fake):
    fake.script(*[api.error(500, "boom")] * 4, api.reply(text="{}"))
    response = complete(api, fake, backoff_base_s=1.0, backoff_max_s=3.0, max_retries=4)
    assert response.retry_waits_s == [1.0, 2.0, 3.0, 3.0]


def test_500_until_retries_run_out_is_a_server_error(api, fake):
    fake.script(*[api.error(500, "still broken")] * 3)
    error = failure(api, fake, max_retries=2)
    assert (error.kind, error.status, error.retries, error.fatal) == ("server_error", 500, 2, False)
    assert "still broken" in str(error)
    # The SDK's own retries are off: exactly max_retries + 1 requests reached the server.
    assert len(fake.requests) == 3 and fake.remaining == 0


def test_timeout_is_final_for_the_request(api, fake):
    fake.script(Reply(delay_s=1.5, body=api.reply(text="{}").body))
    error = failure(api, fake, request(timeout_s=0.2))
    assert error.kind == "timeout" and not error.fatal and error.retries == 0
    assert len(fake.requests) == 1


def test_401_is_fatal_and_never_shows_the_key(api, fake):
    # Real APIs echo (part of) the rejected key; this fake echoes all of it.
    fake.script(api.error(401, f"Incorrect API key provided: {api.key}."))
    error = failure(api, fake)
    assert (error.kind, error.status, error.fatal, error.retries) == ("auth", 401, True, 0)
    assert api.key_env in str(error) and "401" in str(error)
    assert api.key not in str(error) and api.key not in json.dumps(error.to_json())
    assert len(fake.requests) == 1


def test_403_is_fatal_too(api, fake):
    fake.script(api.error(403, "This key may not use this model"))
    error = failure(api, fake)
    assert (error.kind, error.fatal) == ("auth", True)


def test_400_is_a_bad_request_and_not_retried(api, fake):
    fake.script(api.error(400, "tools[0].parameters is not a valid schema"))
    error = failure(api, fake)
    assert (error.kind, error.status, error.fatal) == ("bad_request", 400, False)
    assert "not a valid schema" in str(error) and len(fake.requests) == 1


def test_unreachable_server_is_retried_then_a_connection_error(api):
    closed = FakeServer()
    closed.stop()  # the port was bound and released: nothing listens there now
    sleeps = Sleeps()
    error = failure(api, closed, sleeps=sleeps, max_retries=2)
    assert (error.kind, error.retries) == ("connection", 2) and len(sleeps.waits) == 2


def test_the_key_goes_in_the_authorization_header_only(api, fake):
    fake.script(api.reply(function_calls=[("get_order", '{"orderId":"ORD-1"}')]))
    response = complete(api, fake)
    [received] = fake.requests
    assert received.path == api.endpoint
    assert received.header("Authorization") == f"Bearer {api.key}"
    assert [k.lower() for k, v in received.headers.items() if api.key in v] == ["authorization"]
    assert api.key.encode() not in received.raw
    assert api.key not in json.dumps(asdict(response)) and api.key not in repr(response)


def test_the_key_is_in_no_response_field_or_error(api, fake):
    fake.script(api.reply(text="{}"), api.error(500, f"echo {api.key}"), api.error(429, f"echo {api.key}"))
    response = complete(api, fake)
    error = failure(api, fake, max_retries=1)
    adapter = provider(api, fake)
    for text in (json.dumps(asdict(response)), repr(response), str(error), json.dumps(error.to_json()),
                 repr(adapter), repr(vars(adapter).get("_key"))):
        assert api.key not in text
    run(adapter.aclose())


def test_a_custom_key_variable_is_used(api, fake, monkeypatch):
    monkeypatch.setenv("WISMO_OTHER_KEY", "sk-other-31337")
    fake.script(api.reply(text="{}"))
    complete(api, fake, api_key_env="WISMO_OTHER_KEY")
    assert fake.requests[0].header("Authorization") == "Bearer sk-other-31337"


def test_a_missing_key_is_a_wismo_error_naming_the_variable(api, fake, monkeypatch):
    monkeypatch.delenv(api.key_env)
    with pytest.raises(WismoError, match=api.key_env):
        provider(api, fake)


def test_openai_chat_needs_a_base_url_but_no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(WismoError, match="base URL"):
        OpenAIChatProvider(ProviderSettings(model="m"))
    with FakeServer() as fake:
        fake.script(chat_reply(text="{}"))

        async def go():
            adapter = OpenAIChatProvider(ProviderSettings(model="m", base_url=fake.url + "/v1"))
            try:
                return await adapter.complete(request())
            finally:
                await adapter.aclose()
        assert run(go()).output_items == [{"type": "text", "text": "{}"}]
    assert fake.requests[0].header("Authorization") == "Bearer not-needed"


def test_openai_chat_never_sends_the_openai_key_to_a_local_server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEYS["OPENAI_API_KEY"])
    with FakeServer() as fake:
        fake.script(chat_reply(text="{}"))

        async def go():
            adapter = OpenAIChatProvider(ProviderSettings(model="m", base_url=fake.url + "/v1"))
            try:
                await adapter.complete(request())
            finally:
                await adapter.aclose()
        run(go())
    assert KEYS["OPENAI_API_KEY"] not in json.dumps(fake.requests[0].headers)
