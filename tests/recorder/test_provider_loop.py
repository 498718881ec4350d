"""Each API adapter driven through the whole loop (`record`) against its loopback fake and real MCP servers.

One mixed run per provider plays a different scenario in each conversation (told apart by the order
ID in the question); a second run is stopped by a 401. No run folder may contain the API key.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core.runformat.read import read_event_lines
from recorder.agent.loop import Budgets
from recorder.run.options import RecordOptions
from recorder.run.record import RunAborted, record
from tests.helpers import default_cases
from tests.recorder.test_providers import APIS, KEYS, Api
from wismo.loopback import FakeServer, Received, Reply, Tokens

EXPECTED = {case["caseId"]: case["expected"] for case in default_cases()}
FAST_RETRY = {"retry-after-ms": "5"}  # the real backoff would make the 500 scenario take seconds


def answer(case_id: str) -> str:
    """The case's correct answer as the model's final JSON text."""
    return json.dumps({**EXPECTED[case_id], "customerSummary": "Here is what we know about your order."})


@dataclass(frozen=True)
class Wire:
    """How to read one API's request body: the customer's question and the tool results sent back."""

    question: Callable[[Any], str]
    tool_results: Callable[[Any], list[tuple[str, str]]]


WIRES = {
    "openai": Wire(lambda b: b["input"][0]["content"],
                   lambda b: [(i["call_id"], i["output"]) for i in b["input"]
                              if i.get("type") == "function_call_output"]),
    "openai-chat": Wire(lambda b: b["messages"][1]["content"],
                        lambda b: [(m["tool_call_id"], m["content"]) for m in b["messages"] if m["role"] == "tool"]),
    "anthropic": Wire(lambda b: b["messages"][0]["content"][0]["text"],
                      lambda b: [(c["tool_use_id"], c["content"]) for m in b["messages"] if m["role"] == "user"
                                 for c in m["content"] if c["type"] == "tool_result"]),
}


class ByOrder:
    """A responder that plays each conversation's own script, chosen by the order ID in its question."""

    def __init__(self, wire: Wire, scripts: dict[str, list[Reply]]) -> None:
        self.wire, self.scripts = wire, {order: list(replies) for order, replies in scripts.items()}
        self.received: dict[str, list[Received]] = defaultdict(list)

    def __call__(self, received: Received) -> Reply:
        order = re.search(r"ORD-\d+", self.wire.question(received.body)).group(0)
        self.received[order].append(received)
        if not self.scripts.get(order):
            return Reply(418, {"error": {"message": f"fake: nothing scripted for {order}"}})
        return self.scripts[order].pop(0)


@pytest.fixture(params=APIS, ids=[api.name for api in APIS])
def api(request, monkeypatch) -> Api:
    for env, value in KEYS.items():
        monkeypatch.setenv(env, value)
    return request.param


def options(api: Api, fake: FakeServer, tmp_path: Path, run_id: str, case_ids: tuple[str, ...],
            request_timeout_s: float = 30.0) -> RecordOptions:
    return RecordOptions(provider=api.name, model=api.settings["model"], base_url=fake.url + api.prefix,
                         api_key_env=api.settings.get("api_key_env"), designs=("granular",), repetitions=1,
                         case_ids=case_ids, concurrency=1, out_dir=tmp_path, run_id=run_id,
                         budgets=Budgets(max_turns=4, max_tool_calls=6, request_timeout_s=request_timeout_s))


def events_by_conversation(run_dir: Path) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for _, event in read_event_lines(run_dir / "events.jsonl").events:
        grouped[event.get("conversationId", "")].append(event)
    return grouped


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [event for event in events if event["type"] == kind]


def assert_no_key_in(run_dir: Path, key: str) -> None:
    files = [path for path in run_dir.rglob("*") if path.is_file()]
    assert files
    for path in files:
        assert key not in path.read_text(errors="replace"), path


def test_a_mixed_run_through_the_whole_loop(api, tmp_path):
    wire = WIRES[api.name]
    if api.name == "anthropic":
        # Anthropic's API returns tool input as a parsed object: malformed JSON cannot come back from it,
        # so this conversation sends well-formed arguments the tool rejects instead.
        bad_call = ("get_order", '{"order": "ORD-1004"}', "bad_1")
        bad_kinds = ["tool", "unknown_tool"]
    else:
        bad_call = ("get_order", '{"orderId": "ORD-10', "bad_1")
        bad_kinds = ["invalid_arguments", "unknown_tool"]
    responder = ByOrder(wire, {
        "ORD-1001": [api.reply(text="Looking.", usage=Tokens(900, 40, 512),
                               function_calls=[("get_order", '{"orderId":"ORD-1001"}', "c_order"),
                                               ("get_payment", '{"paymentId":"PAY-1001"}', "c_pay")]),
                     api.reply(text=answer("delivered-on-time"), usage=Tokens(1400, 120, 896))],
        "ORD-1002": [api.error(429, "Rate limit reached", headers=FAST_RETRY),
                     api.reply(text=answer("carrier-delay"))],
        "ORD-1003": [api.error(500, f"upstream failed for key {api.key}", headers=FAST_RETRY)] * 5,
        "ORD-1004": [api.reply(function_calls=[bad_call, ("get_weather", '{"city":"Oslo"}', "bad_2")]),
                     api.reply(text=answer("partial-delivery"))],
        "ORD-1005": [Reply(delay_s=4.0, body=api.reply(text="{}").body)],
    })
    cases = ("delivered-on-time", "carrier-delay", "status-lags-carrier", "partial-delivery", "tracking-unavailable")
    with FakeServer(responder) as fake:
        result = asyncio.run(record(options(api, fake, tmp_path, "mixed", cases, request_timeout_s=1.0)))
    assert result.aborted is None and len(result.outcomes) == 5
    conversations = events_by_conversation(result.run_dir)
    status = {cid.split(".")[0]: of_type(events, "conversation_finished")[0]["status"]
              for cid, events in conversations.items() if cid}
    assert status == {"delivered-on-time": "answered", "carrier-delay": "answered",
                      "status-lags-carrier": "provider_error", "partial-delivery": "answered",
                      "tracking-unavailable": "timeout"}

    # Two tool calls in one response: both run, both results go back with the model's call ids.
    events = conversations["delivered-on-time.granular.r1"]
    assert [(e["callId"], e["name"]) for e in of_type(events, "tool_call")] == [("c_order", "get_order"),
                                                                                ("c_pay", "get_payment")]
    assert [e["isError"] for e in of_type(events, "tool_result")] == [False, False]
    first, second = responder.received["ORD-1001"]
    assert wire.tool_results(first.body) == []
    sent_back = wire.tool_results(second.body)
    assert [call_id for call_id, _ in sent_back] == ["c_order", "c_pay"]
    assert json.loads(sent_back[0][1])["orderId"] == "ORD-1001"
    responses = of_type(events, "model_response")
    assert [r["model"] for r in responses] == [api.returned_model] * 2
    input_tokens = [900 + 512, 1400 + 896] if api.name == "anthropic" else [900, 1400]
    assert [(r["usage"]["inputTokens"], r["usage"]["cachedTokens"]) for r in responses] == \
        list(zip(input_tokens, [512, 896], strict=True))
    finished = of_type(events, "conversation_finished")[0]
    assert finished["score"]["passed"] is True and finished["claimed"]["inputTokens"] == sum(input_tokens)

    # 429 then success: one retry, recorded on the response.
    [response] = of_type(conversations["carrier-delay.granular.r1"], "model_response")
    assert response["retries"] == 1 and response["error"] is None

    # 500 until the retries run out: this conversation is a provider error, and the run went on.
    [failed] = of_type(conversations["status-lags-carrier.granular.r1"], "model_response")
    assert failed["error"]["kind"] == "server_error" and failed["error"]["retries"] == 4
    # The waits before each retry are recorded on a response that failed for good too.
    assert failed["retries"] == 4 and failed["retryWaitsS"] == [0.005] * 4
    assert len(responder.received["ORD-1003"]) == 5

    # A malformed or rejected call and an unknown tool: tool errors go back, the conversation continues.
    events = conversations["partial-delivery.granular.r1"]
    # Tools run concurrently, so results are logged in the order they finish.
    results = {r["callId"]: r for r in of_type(events, "tool_result")}
    assert [results[c]["errorKind"] for c in ("bad_1", "bad_2")] == bad_kinds
    assert all(r["isError"] for r in results.values())
    if api.name != "anthropic":
        assert of_type(events, "tool_call")[0]["arguments"] == '{"orderId": "ORD-10'
    assert [call_id for call_id, _ in wire.tool_results(responder.received["ORD-1004"][1].body)] == \
        ["bad_1", "bad_2"]

    # A request that outlives its timeout ends the conversation as a timeout.
    events = conversations["tracking-unavailable.granular.r1"]
    assert of_type(events, "conversation_finished")[0]["budgetHit"] == "request_timeout"
    assert of_type(events, "model_response")[0]["error"]["kind"] == "timeout"

    [end] = of_type(conversations[""], "run_finished")
    assert end["errored"] == 2 and end["aborted"] is None
    assert_no_key_in(result.run_dir, api.key)


def test_a_401_stops_the_whole_run_with_a_clear_message(api, tmp_path):
    responder = ByOrder(WIRES[api.name], {
        "ORD-1001": [api.error(401, f"Incorrect API key provided: {api.key}")],
        "ORD-1002": [api.reply(text=answer("carrier-delay"))],
    })
    with FakeServer(responder) as fake, pytest.raises(RunAborted) as info:
        asyncio.run(record(options(api, fake, tmp_path, "auth", ("delivered-on-time", "carrier-delay"))))
    message = str(info.value)
    assert f"rejected the API key from {api.key_env} (401)" in message and "--resume" in message
    assert api.key not in message
    conversations = events_by_conversation(tmp_path / "auth")
    assert list(conversations) == ["", "delivered-on-time.granular.r1"]  # the second never started
    [end] = of_type(conversations[""], "run_finished")
    assert "401" in end["aborted"]
    assert "ORD-1002" not in responder.received
    assert_no_key_in(tmp_path / "auth", api.key)
