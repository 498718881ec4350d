"""The shared retry policy (Retry-After, backoff, jitter), the strict answer schema, and lazy SDK imports."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from email.utils import formatdate

import pytest

from recorder.providers import REGISTRY, create_provider
from recorder.providers._common import strict_schema
from recorder.providers.base import ProviderError, ProviderSettings
from recorder.providers.retry import RETRY_AFTER_CEILING_S, Failure, RetryPolicy, call_with_retries, retry_after_s

NOW = 1_800_000_000.0


def test_retry_after_in_seconds_milliseconds_and_http_date():
    assert retry_after_s({"Retry-After": "3"}) == 3.0
    assert retry_after_s({"retry-after": "1.5"}) == 1.5
    assert retry_after_s({"retry-after-ms": "250", "retry-after": "9"}) == 0.25  # the finer one wins
    assert retry_after_s({"Retry-After": formatdate(NOW + 30, usegmt=True)}, clock=lambda: NOW) == 30.0
    assert retry_after_s({"Retry-After": formatdate(NOW - 30, usegmt=True)}, clock=lambda: NOW) == 0.0
    assert retry_after_s({"Retry-After": "soon"}) is None
    assert retry_after_s({}) is None


def test_backoff_doubles_with_jitter_and_is_capped():
    high = RetryPolicy(backoff_base_s=0.5, backoff_max_s=3.0, random=lambda: 1.0)
    low = RetryPolicy(backoff_base_s=0.5, backoff_max_s=3.0, random=lambda: 0.0)
    assert [high.wait_s(n, {}) for n in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert [low.wait_s(n, {}) for n in range(5)] == [0.25, 0.5, 1.0, 1.5, 1.5]


def test_retry_after_wins_over_backoff_up_to_a_ceiling():
    policy = RetryPolicy(backoff_base_s=0.5, backoff_max_s=3.0, random=lambda: 1.0)
    assert policy.wait_s(0, {"Retry-After": "12"}) == 12.0
    assert policy.wait_s(0, {"Retry-After": "100000"}) == RETRY_AFTER_CEILING_S


def test_policy_from_settings():
    policy = RetryPolicy.from_settings(ProviderSettings(max_retries=2, backoff_base_s=0.1, backoff_max_s=0.4))
    assert (policy.max_retries, policy.backoff_base_s, policy.backoff_max_s) == (2, 0.1, 0.4)


def test_call_with_retries_counts_attempts_and_stops_on_final_kinds():
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    policy = RetryPolicy(max_retries=3, backoff_base_s=1.0, sleep=sleep, random=lambda: 1.0)
    failures = [Failure("rate_limited", "slow down", 429, {"retry-after": "2"}), Failure("connection", "reset")]

    async def flaky() -> str:
        if failures:
            raise RuntimeError(failures.pop(0))
        return "ok"

    def classify(err: BaseException) -> Failure | None:
        return err.args[0] if isinstance(err.args[0], Failure) else None

    outcome = asyncio.run(call_with_retries(flaky, classify, policy))
    assert (outcome.value, outcome.retries, outcome.waits_s, waits) == ("ok", 2, [2.0, 2.0], [2.0, 2.0])

    async def refused() -> str:
        raise RuntimeError(Failure("bad_request", "no", 400))

    with pytest.raises(ProviderError) as caught:
        asyncio.run(call_with_retries(refused, classify, policy))
    assert (caught.value.kind, caught.value.retries, caught.value.fatal) == ("bad_request", 0, False)

    async def buggy() -> str:
        raise RuntimeError("a bug, not an API failure")

    with pytest.raises(RuntimeError, match="a bug"):
        asyncio.run(call_with_retries(buggy, lambda err: None, policy))


ANSWER = {
    "type": "object",
    "properties": {
        "deliveredSkus": {"type": "array", "items": {"type": "string"}},
        "outstandingSkus": {"type": "array", "items": {"type": "string"}},
        "delayReasons": {"type": "array", "items": {"enum": ["stock_shortage", "carrier_delay", "payment_issue"]}},
        "deliveryEstimate": {"anyOf": [{"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}, {"type": "null"}]},
        "missingEvidence": {"type": "array", "items": {"type": "string"}},
        "customerSummary": {"type": "string"},
    },
    "required": ["deliveredSkus", "outstandingSkus", "delayReasons", "deliveryEstimate", "missingEvidence",
                 "customerSummary"],
    "additionalProperties": False,
}


def test_a_strict_schema_is_left_as_it_is():
    from core.domain.answer import ANSWER_SCHEMA

    assert strict_schema(ANSWER) == ANSWER
    assert strict_schema(ANSWER_SCHEMA) == ANSWER_SCHEMA  # the contract `wismo record` sends


def test_a_loose_schema_is_made_strict_without_losing_meaning():
    loose = {"type": "object", "properties": {
        "summary": {"type": "string"},
        "estimate": {"type": "string"},
        "reason": {"enum": ["a", "b"]},
        "evidence": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}},
        "ref": {"$ref": "#/$defs/Thing"},
    }, "required": ["summary"], "$defs": {"Thing": {"type": "object", "properties": {"x": {"type": "integer"}}}}}
    strict = strict_schema(loose)
    assert strict["additionalProperties"] is False
    assert strict["required"] == ["summary", "estimate", "reason", "evidence", "ref"]
    props = strict["properties"]
    assert props["summary"] == {"type": "string"}  # required: unchanged
    assert props["estimate"] == {"type": ["string", "null"]}
    assert props["reason"] == {"enum": ["a", "b", None]}
    assert props["ref"] == {"anyOf": [{"$ref": "#/$defs/Thing"}, {"type": "null"}]}
    item = props["evidence"]["items"]
    assert item["additionalProperties"] is False and item["required"] == ["id"]
    assert item["properties"]["id"] == {"type": ["string", "null"]}
    thing = strict["$defs"]["Thing"]
    assert thing["additionalProperties"] is False and thing["required"] == ["x"]
    assert "additionalProperties" not in loose and loose["required"] == ["summary"]  # the input is not mutated


def test_importing_the_registry_loads_no_vendor_sdk():
    code = ("import sys, recorder.providers, recorder.providers.base, recorder.providers.retry, "
            "recorder.providers._common; "
            "print(sorted(m for m in ('openai', 'anthropic') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_building_the_scripted_provider_loads_no_vendor_sdk():
    code = ("import sys; from recorder.providers import create_provider; "
            "from recorder.providers.base import ProviderSettings; "
            "print(create_provider('scripted', ProviderSettings()).name, "
            "sorted(m for m in ('openai', 'anthropic') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "scripted []"


def test_every_registered_provider_builds_its_own_kind(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    settings = ProviderSettings(model="some-model", base_url="http://127.0.0.1:9/v1")
    assert {name: create_provider(name, settings).name for name in REGISTRY} == {name: name for name in REGISTRY}
