"""The o200k vocabulary (about a second to load) is loaded only by the scripted policy, in the background.

Each test runs in a fresh interpreter: this one may have loaded the vocabulary for another test.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap


def python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=120)


def test_importing_the_recorder_and_every_provider_loads_no_vocabulary():
    done = python("""
        import sys
        import recorder.run.record, wismo.cli.record
        import recorder.providers.openai_chat, recorder.providers.openai_responses
        import recorder.providers.anthropic_messages, recorder.providers.scripted
        from recorder.providers.tokens import vocabulary_requested
        print(vocabulary_requested(), "bpe_openai" in sys.modules)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]


def test_recording_with_a_provider_that_reports_tokens_never_loads_the_vocabulary():
    done = python("""
        import asyncio, os, sys, tempfile
        from pathlib import Path
        from recorder.run.record import record
        from recorder.run.options import RecordOptions
        from recorder.providers.tokens import vocabulary_requested
        from wismo.loopback import FakeServer, responses_reply

        os.environ["WISMO_TEST_KEY"] = "test-key"
        answer = '{"deliveredSkus": [], "outstandingSkus": [], "delayReasons": [], "deliveryEstimate": null, ' \\
                 '"missingEvidence": [], "customerSummary": "We are checking."}'
        with FakeServer(lambda received: responses_reply(text=answer)) as server, \\
                tempfile.TemporaryDirectory() as folder:
            result = asyncio.run(record(RecordOptions(
                provider="openai", model="m", base_url=f"{server.url}/v1", api_key_env="WISMO_TEST_KEY",
                repetitions=1, case_ids=("partial-delivery",), out_dir=Path(folder), run_id="r")))
            finished = (result.run_dir / "events.jsonl").read_text().count('"type":"conversation_finished"')
        print(finished, vocabulary_requested(), "bpe_openai" in sys.modules)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "False", "False"]


def test_the_scripted_policy_counts_with_the_vocabulary_it_started_loading():
    done = python("""
        import asyncio, json
        from core.domain.linking import ToolSpec
        from recorder.providers.base import ModelRequest
        from recorder.providers.responses_wire import responses_body
        from recorder.providers.scripted import ScriptedProvider
        from recorder.providers.tokens import count_tokens, vocabulary_requested

        provider = ScriptedProvider()
        requested = vocabulary_requested()
        parameters = {"type": "object", "properties": {"orderId": {"type": "string"}}}
        tool = ToolSpec("get_order", "Get one order.", parameters)
        request = ModelRequest("Answer from the records.", [tool],
                               [{"type": "message", "role": "user", "content": "Where is ORD-1004?"}], {}, 1, 60)
        response = asyncio.run(provider.complete(request))
        body = json.dumps(responses_body(request, provider.model), ensure_ascii=False)
        print(requested, response.usage.estimated, response.usage.input_tokens == count_tokens(body) > 0)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True"]


def test_a_vocabulary_that_cannot_load_fails_the_first_request_with_its_error():
    done = python("""
        import asyncio, sys
        sys.modules["bpe_openai"] = None  # as if the package were missing
        from recorder.providers.base import ModelRequest
        from recorder.providers.scripted import ScriptedProvider

        request = ModelRequest("x", [], [{"type": "message", "role": "user", "content": "ORD-1004?"}], {}, 1, 60)
        try:
            asyncio.run(ScriptedProvider().complete(request))
        except ImportError as exc:
            print("ImportError", "bpe_openai" in str(exc))
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ImportError", "True"]


def test_no_conversation_starts_its_clock_while_the_vocabulary_is_still_loading():
    # A vocabulary that takes longer than the run's start-up: conversations must wait for it, not time it.
    done = python("""
        import asyncio, json, tempfile, time
        from datetime import datetime
        from pathlib import Path
        from recorder.providers import tokens
        from recorder.run.record import record
        from recorder.run.options import RecordOptions

        loaded_at = []
        original = tokens._load
        def slow_load(into):
            time.sleep(8)
            loaded_at.append(time.time())  # before the load signals readiness: a conversation may start at once
            original(into)
        tokens._load = slow_load
        with tempfile.TemporaryDirectory() as folder:
            result = asyncio.run(record(RecordOptions(repetitions=1, case_ids=("partial-delivery",),
                                                      out_dir=Path(folder), run_id="r")))
            events = [json.loads(line) for line in (result.run_dir / "events.jsonl").read_text().splitlines()]
        started = [datetime.fromisoformat(e["ts"]).timestamp() for e in events if e["type"] == "conversation_started"]
        print(len(started), min(started) >= loaded_at[0])
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "True"]
