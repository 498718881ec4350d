"""The output-token cap on every request, a reply cut by it, and a request timeout that frees the server.

Loopback fakes play the quirks seen against llama-server: a model that never stops generating (it
stops only at the cap), and a server that keeps generating for a request until its client leaves.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from recorder.agent.loop import DEFAULT_MAX_OUTPUT_TOKENS, Budgets
from recorder.providers.anthropic_messages import AnthropicMessagesProvider
from recorder.providers.base import ModelRequest, ProviderSettings
from recorder.providers.openai_chat import OpenAIChatProvider
from recorder.providers.openai_responses import OpenAIResponsesProvider
from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.recorder.test_local_server import assert_valid, finished
from tests.recorder.test_providers import ANSWER_SCHEMA, TOOLS
from wismo.loopback import FakeServer, Received, Reply, chat_reply, messages_reply, responses_reply
from wismo.sitegen.run_names import BUDGET_WORDS


def one_request(cls: type, prefix: str, reply: Reply, monkeypatch, cap: int | None) -> dict[str, Any]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-cap-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-cap-test")
    with FakeServer() as fake:
        fake.script(reply)

        async def go() -> None:
            adapter = cls(ProviderSettings(model="m", base_url=fake.url + prefix))
            try:
                history = [{"type": "message", "role": "user", "content": "Where is ORD-1?"}]
                await adapter.complete(ModelRequest("answer", TOOLS, history, ANSWER_SCHEMA, 1, 10.0, cap))
            finally:
                await adapter.aclose()
        asyncio.run(go())
    # openai-chat under auto sends a reply without a tool call once more, without response_format (its
    # schema-grammar check): that request carries the same cap.
    bodies = [received.body for received in fake.requests]
    assert len(bodies) == (2 if cls is OpenAIChatProvider else 1)
    assert all(body.get("max_tokens") == bodies[0].get("max_tokens") for body in bodies)
    body: dict[str, Any] = bodies[0]
    return body


@pytest.mark.parametrize(("cls", "prefix", "reply", "field"), [
    (OpenAIChatProvider, "/v1", chat_reply(text="{}"), "max_tokens"),
    (OpenAIResponsesProvider, "/v1", responses_reply(text="{}"), "max_output_tokens"),
    (AnthropicMessagesProvider, "", messages_reply(text="{}"), "max_tokens"),
])
def test_every_api_gets_the_cap_under_its_own_name(cls, prefix, reply, field, monkeypatch):
    body = one_request(cls, prefix, reply, monkeypatch, 777)
    assert body[field] == 777
    others = {"max_tokens", "max_output_tokens", "max_completion_tokens"} - {field}
    assert not others & set(body), f"{cls.__name__} sent a second cap: {others & set(body)}"


def test_chat_completions_sends_no_cap_only_when_the_request_has_none(monkeypatch):
    # A run recorded before the cap existed resumes without one: nothing is invented for it.
    body = one_request(OpenAIChatProvider, "/v1", chat_reply(text="{}"), monkeypatch, None)
    assert "max_tokens" not in body


def never_ending(received: Received) -> Reply:
    """A small model that never stops on its own: it writes until the cap, which the server reports as length."""
    body = received.body or {}
    cap = body.get("max_tokens")
    if cap is None:  # no cap: it generates for as long as the client waits
        return Reply(200, {}, delay_s=30.0, stop_on_disconnect=True)
    reply = chat_reply(text="SKU-001 " * cap)
    reply.body["choices"][0]["finish_reason"] = "length"
    return reply


def chat_options(fake: FakeServer, tmp_path: Path, run_id: str, budgets: Budgets) -> RecordOptions:
    return RecordOptions(provider="openai-chat", model="small", base_url=fake.url + "/v1", designs=("granular",),
                         repetitions=1, case_ids=("delivered-on-time",), concurrency=1, out_dir=tmp_path,
                         run_id=run_id, budgets=budgets)


def test_a_reply_cut_by_the_cap_is_the_provider_s_limit_not_the_model_s_answer(tmp_path):
    with FakeServer(never_ending) as fake:
        result = asyncio.run(record(chat_options(fake, tmp_path, "capped", Budgets(max_output_tokens=64))))
    manifest = json.loads((result.run_dir / "manifest.json").read_text())
    assert manifest["budgets"]["maxOutputTokens"] == 64
    [sent] = [r.body for r in fake.requests]
    assert sent["max_tokens"] == 64
    [done] = finished(result.run_dir).values()
    assert done["status"] == "provider_limit"  # not invalid_answer: the model did not choose to stop
    assert "length" in done["error"]
    assert done["score"]["passed"] is False
    events = [json.loads(line) for line in (result.run_dir / "events.jsonl").read_text().splitlines()]
    [response] = [e for e in events if e["type"] == "model_response"]
    assert response["stopReason"] == "length"
    assert_valid(result.run_dir)


def test_the_default_cap_is_recorded_and_named_on_the_run_card():
    assert Budgets().to_json()["maxOutputTokens"] == DEFAULT_MAX_OUTPUT_TOKENS == 4096
    assert BUDGET_WORDS["maxOutputTokens"](4096) == "max 4,096 output tokens per reply"


def test_a_request_timeout_closes_the_connection_so_the_server_stops_generating(tmp_path):
    # No cap (a run from before it), so the model would generate for 30 s: the 0.5 s timeout must
    # close the connection, and a server that watches its client (llama-server) then frees its slot.
    budgets = Budgets(request_timeout_s=0.5, max_output_tokens=None)
    with FakeServer(never_ending) as fake:
        started = time.monotonic()
        result = asyncio.run(record(chat_options(fake, tmp_path, "timeout", budgets)))
        took = time.monotonic() - started
        deadline = time.monotonic() + 5
        while not fake.disconnects and time.monotonic() < deadline:
            time.sleep(0.02)
    [done] = finished(result.run_dir).values()
    assert done["status"] == "timeout" and done["budgetHit"] == "request_timeout"
    [(request, into_generation)] = fake.disconnects
    assert "max_tokens" not in request.body
    assert 0.4 <= into_generation < 3.0, into_generation  # left at the timeout, not at the 30 s end
    assert not fake.generated  # the server never finished the abandoned generation
    assert took < 20
