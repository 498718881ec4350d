"""`wismo doctor` against loopback endpoints: a llama-cpp-python-like server, a compliant one, the hosted APIs."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import subprocess
from typing import Any

import pytest

from recorder.agent.loop import DEFAULT_MAX_OUTPUT_TOKENS
from recorder.doctor.diagnose import diagnose, output_cap, timeout_flags
from recorder.doctor.report import Diagnosis
from recorder.doctor.trial import SHORT_INSTRUCTIONS, TrialSettings
from tests.helpers import ROOT, WISMO
from tests.recorder.test_local_server import EXPECTED, assert_valid, correct_answer, events
from wismo.loopback import (
    ChatServer,
    FakeServer,
    Received,
    Reply,
    anthropic_model_info,
    chat_reply,
    compliant,
    llama_cpp_python,
    llama_server_small_model,
    messages_reply,
    responses_reply,
)

MODEL = "local-fake:8b"


def run(fake: FakeServer, provider: str = "openai-chat", **kwargs: Any) -> Diagnosis:
    return asyncio.run(diagnose(provider, model=kwargs.pop("model", MODEL), base_url=fake.url + "/v1",
                                timeout_s=20.0, **kwargs))


def right_answer(body: dict[str, Any]) -> str:
    """The right answer in wismo's conversations; the fake's own answer to doctor's probes."""
    order = re.search(r"ORD-\d+", str(body["messages"][1].get("content") if len(body["messages"]) > 1 else ""))
    if order and order.group(0) in EXPECTED:
        return correct_answer(body)
    return '{"ok": true}' if body.get("response_format") else "ok"


def verdicts(diagnosis: Diagnosis) -> dict[str, bool | None]:
    return {check.label: check.ok for check in diagnosis.checks}


def test_a_llama_cpp_python_like_server_is_diagnosed_as_it_is():
    with llama_cpp_python().serve() as fake:
        diagnosis = run(fake)
    seen = verdicts(diagnosis)
    assert seen["reachable"] and seen["model listed"] and seen["usage reported"]
    assert seen["cached tokens reported"] is False
    assert seen["tool call with tools alone"] is False
    assert "the server left the tools out" in diagnosis.check("tool call with tools alone").detail
    assert seen['tool call with tool_choice "auto"'] and seen["parallel tool calls"]
    assert seen['tool call with tool_choice "required"'] is False and seen["tool call with a named tool_choice"]
    assert seen["tool results reach the model"] is False and seen["null content beside tool calls"] is False
    assert seen["response_format json_schema"] is False and seen["response_format json_object"]
    assert seen["request errors as 4xx"] is False
    assert len(diagnosis.notes) == 2
    # The probes and the first requests pass, but a whole conversation shows what they cannot: under
    # "auto" this server answers an empty message after the tool result, so no answer ever parses.
    assert [ok for label, ok in seen.items() if label.startswith("wismo's first request, focused")] == [True]
    whole = {label: check for label in ("granular", "focused")
             if (check := diagnosis.check(f"a whole conversation, {label}"))}
    assert set(whole) == {"granular", "focused"}
    assert all(check.ok is False and "no parseable answer (invalid_answer)" in check.detail for check in whole.values())
    assert not diagnosis.usable
    assert "no parseable answer in granular (invalid_answer), focused (invalid_answer)" in diagnosis.verdict


def test_a_compliant_server_needs_no_flag_but_the_local_concurrency():
    with compliant(answer=right_answer).serve() as fake:
        diagnosis = run(fake)
    assert all(ok for label, ok in verdicts(diagnosis).items()), diagnosis.checks
    # A local server: one slot, and a cap a runaway reply reaches in minutes, not an hour.
    assert diagnosis.usable and diagnosis.flags == ["--concurrency 1", "--max-output-tokens 1024"]
    assert not diagnosis.notes
    assert diagnosis.check("json_schema leaves room for a tool call").ok is True
    for design in ("granular", "focused"):
        detail = diagnosis.check(f"a whole conversation, {design}").detail
        assert "tool call(s)" in detail and "record(s) gathered" in detail and "answer parsed and right" in detail


def test_llama_server_s_grammar_and_text_calls_are_found_and_the_printed_command_records_tool_calls(tmp_path):
    # llama-server --jinja with a small model: json_schema becomes a grammar for the whole reply, and
    # the model writes its calls as fenced JSON the server does not parse.
    with llama_server_small_model(answer=right_answer).serve() as fake:
        done = subprocess.run([*WISMO, "doctor", "--base-url", fake.url + "/v1", "--model", MODEL],
                              capture_output=True, text=True, timeout=240, env=dict(os.environ), cwd=ROOT)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "NO   json_schema leaves room for a tool call" in done.stdout
        assert "that the server did not parse (--text-tool-calls reads them)" in done.stdout
        command = done.stdout.split("record with:\n", 1)[1].strip().splitlines()[0]
        assert "--text-tool-calls" in command and "--concurrency 1" in command
        # Found by a probe, not left to auto: auto keeps the grammar for the whole run when the first
        # conversation's model happens to answer at once without the schema too.
        assert "--structured-output off" in command
        assert "where without it the model called get_order: the server's grammar constrains every reply" in done.stdout
        # The printed command as a user would paste it (wismo is run the way the tests run it).
        recorded = subprocess.run([*WISMO, *shlex.split(command)[1:], "--out", str(tmp_path), "--run-id", "printed",
                                   "--repetitions", "1", "--cases", "delivered-on-time,partial-delivery"],
                                  capture_output=True, text=True, timeout=240, env=dict(os.environ), cwd=ROOT)
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    calls = [e for e in events(tmp_path / "printed") if e["type"] == "tool_call"]
    assert {c["conversationId"].split(".")[1] for c in calls} == {"granular", "focused"}
    assert_valid(tmp_path / "printed")


def test_a_model_that_calls_only_under_short_instructions_gets_the_instructions_flag():
    server = compliant(answer=right_answer)

    def responder(received: Received) -> Reply:
        # Under wismo's long instructions this model answers at once; under a short prompt it looks up.
        if SHORT_INSTRUCTIONS.read_text().strip() not in received.body["messages"][0]["content"]:
            return chat_reply(text=right_answer(received.body))
        return server(received)

    with FakeServer(responder, get=lambda r: Reply(200, server.models())) as fake:
        diagnosis = run(fake)
    assert diagnosis.check("cause: the model called no tool under wismo's own instructions").detail == \
        "trying again with --instructions examples/instructions/small-model.txt"
    assert diagnosis.usable
    assert "--instructions examples/instructions/small-model.txt" in diagnosis.flags
    assert "(with --instructions examples/instructions/small-model.txt)" in diagnosis.verdict


def test_when_auto_calls_no_tool_on_wismo_s_request_doctor_finds_the_choice_that_does():
    # The real llama.cpp server calls a tool under "auto" for a short prompt but answers an empty
    # message to wismo's long instructions; a named tool_choice makes it call. (Its template here lets
    # the model answer after the result, so the whole conversations succeed.)
    server = llama_cpp_python(empty_message_under_auto=False, drop_tool_results=False, answer=right_answer)

    def responder(received: Received) -> Reply:
        body = received.body
        if body.get("tool_choice") == "auto" and "customer support assistant" in body["messages"][0]["content"]:
            body = {**body, "tool_choice": "none"}
            return server(Received(received.method, received.path, received.headers, json.dumps(body).encode()))
        return server(received)

    with FakeServer(responder, get=lambda r: Reply(200, server.models())) as fake:
        diagnosis = run(fake)
    labels = [check.label for check in diagnosis.checks if check.label.startswith("wismo's first request")]
    assert labels == ["wismo's first request, granular (auto)", "wismo's first request, granular (first-tool)",
                      "wismo's first request, focused (first-tool)"]
    assert diagnosis.flags == ["--structured-output json_object", "--tool-choice first-tool", "--concurrency 1",
                               "--max-output-tokens 1024"]


def test_a_slow_server_gets_longer_budgets():
    assert timeout_flags([1.0, 30.0]) == []
    assert timeout_flags([10.0, 189.2]) == ["--request-timeout 600", "--deadline 2400"]
    assert timeout_flags([61.0]) == ["--request-timeout 240", "--deadline 960"]


def test_a_model_that_never_calls_a_tool_makes_doctor_exit_1():
    models = ChatServer().models()
    with FakeServer(lambda received: chat_reply(text='{"status": "ok"}'), get=lambda r: Reply(200, models)) as fake:
        done = subprocess.run([*WISMO, "doctor", "--base-url", fake.url + "/v1", "--model", MODEL],
                              capture_output=True, text=True, timeout=240, env=dict(os.environ))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cause: the model called no tool under wismo's own instructions" in done.stdout
    assert ("in a whole conversation the model called no tool in granular, focused (even with --instructions "
            "examples/instructions/small-model.txt)") in done.stdout
    assert "record with:" not in done.stdout


def test_doctor_prints_the_record_command_and_exits_0():
    # llama-cpp-python's refusals, but a template that lets the model answer in text beside tools.
    server = llama_cpp_python(empty_message_under_auto=False, drop_tool_results=False, answer=right_answer)
    with server.serve() as fake:
        done = subprocess.run([*WISMO, "doctor", "--base-url", fake.url + "/v1", "--model", MODEL],
                              capture_output=True, text=True, timeout=240, env=dict(os.environ))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "NO   response_format json_schema" in done.stdout
    assert (f"wismo record --provider openai-chat --base-url {fake.url}/v1 --model {MODEL} "
            "--structured-output json_object --concurrency 1") in done.stdout


def test_an_unreachable_server_is_one_line_and_exit_1():
    with FakeServer() as fake:
        url = fake.url
    done = subprocess.run([*WISMO, "doctor", "--base-url", url + "/v1", "--model", MODEL], capture_output=True,
                          text=True, timeout=240, env=dict(os.environ))
    assert done.returncode == 1 and "cannot be reached" in done.stdout and "Traceback" not in done.stderr


def hosted_responder(reply: Any, question: Any) -> Any:
    """A hosted API's fake: one call per order ID in the question when tools are offered, else JSON text.

    Once a tool result is in the conversation, the right answer for the order (doctor's whole
    conversations through record).
    """
    def respond(received: Received) -> Reply:
        body = received.body
        raw = json.dumps(body)
        if '"function_call_output"' in raw or '"tool_result"' in raw:
            order = next(word for word in re.findall(r"ORD-\d+", raw) if word in EXPECTED)
            return reply(text=json.dumps({**EXPECTED[order], "customerSummary": "Here is what we know."}))
        text = question(body)
        orders = [word.strip(".,?") for word in text.split() if word.startswith("ORD-")]
        if body.get("tools") and orders:
            name = body["tools"][0].get("name") or body["tools"][0]["function"]["name"]
            return reply(function_calls=[(name, json.dumps({"orderId": order})) for order in orders])
        return reply(text='{"status": "ok"}')
    return respond


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_doctor_works_for_the_hosted_apis_with_a_key(provider, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-doctor-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-doctor-anthropic")
    if provider == "openai":
        respond = hosted_responder(responses_reply, lambda b: b["input"][-1]["content"])
        model_id = "gpt-5.1-requested"  # OpenAI's Models API lists no features: they follow from the name
        listed = Reply(200, {"id": model_id, "object": "model", "created": 0, "owned_by": "openai"})
    else:
        respond = hosted_responder(messages_reply, lambda b: b["messages"][-1]["content"][0]["text"])
        model_id = "claude-requested"  # Anthropic's Models API lists them: this one cannot think
        listed = anthropic_model_info(model_id, thinking=False)
    with FakeServer(respond, get=lambda received: listed) as fake:
        base = fake.url + "/v1" if provider == "openai" else fake.url
        diagnosis = asyncio.run(diagnose(provider, model=model_id, base_url=base, timeout_s=20.0))
        paths = {r.path for r in fake.gets}
    assert paths == {f"/v1/models/{model_id}"}
    seen = verdicts(diagnosis)
    assert seen["model listed"] and seen["usage reported"] and seen["tool call with tools alone"]
    assert seen["parallel tool calls"] and seen["structured output"] and seen["tool_choice"] is None
    # What the vendor states beside what the probes saw, each with where it comes from.
    assert seen["prompt caching (stated)"] and seen["structured output (stated)"]
    assert seen["reasoning (stated)"] is (provider == "openai")
    sources = {check.label: check.detail for check in diagnosis.checks}
    assert "Models API capabilities" in sources["reasoning (stated)"] if provider == "anthropic" else \
        "by model name" in sources["reasoning (stated)"]
    assert diagnosis.usable and diagnosis.flags == []


def test_a_refused_key_stops_doctor(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-doctor-openai")
    refused = Reply(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})
    with FakeServer(lambda r: refused, get=lambda r: refused) as fake:
        diagnosis = asyncio.run(diagnose("openai", model="gpt-x", base_url=fake.url + "/v1", timeout_s=20.0))
    assert not diagnosis.usable and "refused the key" in diagnosis.verdict


def test_on_a_local_server_the_trial_conversations_are_capped_and_the_cap_is_printed():
    # A 1.5B model behind llama-server once wrote 3,800 tokens in one reply of doctor's trial under
    # record's default cap (4096): ten minutes at this machine's speed. Doctor caps a local server lower.
    with compliant(answer=right_answer).serve() as fake:
        diagnosis = run(fake)
        trial_caps = {r.body.get("max_tokens") for r in fake.requests
                      if "customerSummary" in r.body["messages"][0]["content"]}
    assert trial_caps == {1024}
    assert "--max-output-tokens 1024" in diagnosis.record_command()
    with compliant(answer=right_answer).serve() as fake:
        mine = run(fake, trial=TrialSettings(max_output_tokens=300))
        trial_caps = {r.body.get("max_tokens") for r in fake.requests
                      if "customerSummary" in r.body["messages"][0]["content"]}
    assert trial_caps == {300} and "--max-output-tokens 300" in mine.record_command()
    assert output_cap(None, local=False) == DEFAULT_MAX_OUTPUT_TOKENS  # a hosted API keeps record's default


def _calls_but_answers_prose_unless(short_prompt_fixes: bool):
    """A model that looks every record up, then answers in prose (the real 1.5B model did) — in wismo's JSON
    only under the short prompt when `short_prompt_fixes`."""
    server = compliant(answer=right_answer)

    def responder(received: Received) -> Reply:
        reply = server(received)
        short = SHORT_INSTRUCTIONS.read_text().strip() in received.body["messages"][0]["content"]
        if reply.body["choices"][0]["message"].get("tool_calls") or (short and short_prompt_fixes):
            return reply
        if "customerSummary" in received.body["messages"][0]["content"]:
            return chat_reply(text="Your order has been delivered. Let me know if you need anything else.")
        return reply

    return FakeServer(responder, get=lambda r: Reply(200, server.models()))


def test_answers_that_do_not_parse_under_wismo_s_instructions_are_tried_with_the_short_prompt():
    with _calls_but_answers_prose_unless(short_prompt_fixes=True) as fake:
        diagnosis = run(fake)
    assert diagnosis.check("cause: the model gave no answer wismo could read under wismo's own instructions"
                           ).detail == "trying again with --instructions examples/instructions/small-model.txt"
    assert diagnosis.usable and "--instructions examples/instructions/small-model.txt" in diagnosis.flags


def test_when_answers_never_parse_doctor_exits_1_and_prints_the_closest_command_that_gets_tool_calls():
    with _calls_but_answers_prose_unless(short_prompt_fixes=False) as fake:
        done = subprocess.run([*WISMO, "doctor", "--base-url", fake.url + "/v1", "--model", MODEL],
                              capture_output=True, text=True, timeout=240, env=dict(os.environ), cwd=ROOT)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the model gave no parseable answer in granular (invalid_answer), focused (invalid_answer)" in done.stdout
    assert "record with:" not in done.stdout
    command = done.stdout.split("closest record command", 1)[1].splitlines()[1].strip()
    assert command.startswith(f"wismo record --provider openai-chat --base-url {fake.url}/v1 --model {MODEL}")
    assert "--instructions examples/instructions/small-model.txt" in command and "--concurrency 1" in command


def test_keep_trials_leaves_each_trial_s_run_whose_trace_is_what_doctor_printed(tmp_path):
    server = compliant(answer=right_answer)

    def responder(received: Received) -> Reply:
        # Under wismo's long instructions this model answers at once; under a short prompt it looks up: two trials.
        if SHORT_INSTRUCTIONS.read_text().strip() not in received.body["messages"][0]["content"]:
            return chat_reply(text=right_answer(received.body))
        return server(received)

    kept = tmp_path / "trials"
    with FakeServer(responder, get=lambda r: Reply(200, server.models())) as fake:
        done = subprocess.run([*WISMO, "doctor", "--base-url", fake.url + "/v1", "--model", MODEL,
                               "--keep-trials", str(kept)],
                              capture_output=True, text=True, timeout=240, env=dict(os.environ), cwd=ROOT)
        assert done.returncode == 0, done.stdout + done.stderr
        again = subprocess.run([*WISMO, "doctor", "--base-url", fake.url + "/v1", "--model", MODEL,
                                "--keep-trials", str(kept)],
                               capture_output=True, text=True, timeout=240, env=dict(os.environ), cwd=ROOT)
    assert sorted(p.name for p in kept.iterdir()) == ["trial-1", "trial-2"]
    printed = re.findall(r"a whole conversation, (\w+) +(\d+) turn\(s\), (\d+) tool call", done.stdout)
    assert len(printed) == 4  # two designs, twice
    for number, (design, turns, calls) in enumerate(printed):
        trace = events(kept / f"trial-{number // 2 + 1}")
        finished = next(e for e in trace if e["type"] == "conversation_finished"
                        and e["conversationId"].split(".")[1] == design)
        assert (finished["claimed"]["turns"], finished["claimed"]["toolCalls"]) == (int(turns), int(calls))
        assert_valid(kept / f"trial-{number // 2 + 1}")
    # A second doctor into the same folder does not overwrite the first one's trials: one line, exit 1.
    assert again.returncode == 2 and "Traceback" not in again.stderr  # a usage error, as every wismo error
    assert "doctor's trial conversation could not be recorded" in again.stdout + again.stderr
    assert sorted(p.name for p in kept.iterdir()) == ["trial-1", "trial-2"]
