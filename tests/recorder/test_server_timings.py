"""llama-server's `timings` and cached-token details, recorded on every model_response that carries them."""

from __future__ import annotations

import asyncio

import pytest

from recorder.providers.openai_chat import timings_of
from recorder.run.record import record
from tests.recorder.test_local_server import assert_valid, correct_answer, events
from tests.recorder.test_text_calls import options
from wismo.loopback import llama_server_small_model


def test_a_llama_server_run_records_where_each_request_s_time_went(tmp_path):
    server = llama_server_small_model(answer=correct_answer)
    with server.serve() as fake:
        result = asyncio.run(record(options(fake, tmp_path, "timed", text_tool_calls=True)))
    responses = [e for e in events(result.run_dir) if e["type"] == "model_response"]
    assert len(responses) >= 4
    for response in responses:
        timings, usage = response["serverTimings"], response["usage"]
        # What the server said, in the run format's names: processed + cached is the whole prompt.
        assert timings["promptTokens"] + timings["cachedTokens"] == usage["inputTokens"]
        assert timings["cachedTokens"] == usage["cachedTokens"]
        assert timings["generatedTokens"] == usage["outputTokens"]
        assert timings["promptMs"] == pytest.approx(timings["promptTokens"] * 33.3)
        assert set(timings) == {"promptTokens", "cachedTokens", "promptMs", "generatedTokens", "generatedMs"}
    assert_valid(result.run_dir)


def test_a_server_without_timings_records_none(tmp_path):
    server = llama_server_small_model(answer=correct_answer, report_timings=False)
    with server.serve() as fake:
        result = asyncio.run(record(options(fake, tmp_path, "untimed", designs=("granular",), text_tool_calls=True)))
    assert not any("serverTimings" in e for e in events(result.run_dir) if e["type"] == "model_response")


def test_timings_that_are_not_numbers_are_left_out_not_guessed():
    assert timings_of({"prompt_n": 10, "cache_n": "lots", "prompt_ms": True, "predicted_ms": 12.5}) == {
        "promptTokens": 10, "generatedMs": 12.5}
    assert timings_of("fast") is None and timings_of({"other": 1}) is None
