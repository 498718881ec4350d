"""A run is priced under the pricing vendor its manifest records, not under its provider's name.

The analysis never asks which provider a run came from: a provider wismo has never heard of is priced
as its manifest says, and a run recorded before `provider.pricingVendor` existed prices as it did
(the run format's table of the vendors provider names had then).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from analysis.costs import costs_of_run
from analysis.prices import PriceBook, TokenUsage, library_lookup
from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.analysis.conftest import RunCopy
from wismo.loopback import FakeServer
from wismo.loopback.policy import PolicyModel


def _as_reported(sample_copy: RunCopy, provider: dict[str, Any]) -> None:
    """The sample run, as if a provider had reported its tokens for gpt-5-mini."""
    lines = []
    for event in sample_copy.events():
        if event["type"] == "model_response":
            event["usage"]["estimated"] = False
            event["model"] = "gpt-5-mini-2025-08-07"
        lines.append(json.dumps(event))
    sample_copy.write_lines(lines)
    manifest = json.loads((sample_copy.path / "manifest.json").read_text())
    manifest["provider"] = {"label": "a provider", "isLanguageModel": True, **provider}
    manifest["baseUrl"] = None
    (sample_copy.path / "manifest.json").write_text(json.dumps(manifest))


def test_a_provider_wismo_never_heard_of_is_priced_under_the_vendor_its_run_recorded(sample_copy):
    _as_reported(sample_copy, {"name": "gateway-of-tomorrow", "pricingVendor": "openai"})
    costs = costs_of_run(sample_copy.path, PriceBook())
    assert costs and all(c.cost.known and c.cost.model == "gpt-5-mini" for c in costs)


def test_the_same_run_without_a_vendor_is_unknown_not_guessed_from_its_name(sample_copy):
    _as_reported(sample_copy, {"name": "gateway-of-tomorrow"})
    costs = costs_of_run(sample_copy.path, PriceBook())
    assert costs and all(not c.cost.known for c in costs)
    assert "provider gateway-of-tomorrow has no base URL genai-prices knows" in costs[0].cost.unknown_reason


def test_a_recorded_vendor_wins_over_the_old_runs_table():
    assert library_lookup("m", "openai", "anthropic", None) == {"provider_id": "anthropic"}
    assert library_lookup("m", "openai", None, None) == {"provider_id": "openai"}  # a run from before the field
    assert library_lookup("m", "openai-chat", None, "http://127.0.0.1:8089/v1") == \
        {"provider_api_url": "http://127.0.0.1:8089/v1"}
    assert library_lookup("m", None, None, None) == {}  # --price-as: by the model's name alone
    usage = TokenUsage(1000, 100, 0)
    assert PriceBook().price(usage, "claude-sonnet-4-6", provider="openai", vendor="anthropic").known


def test_a_run_recorded_now_names_its_vendor_in_the_manifest(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-vendor")
    with FakeServer(PolicyModel("responses", [])) as fake:
        result = asyncio.run(record(RecordOptions(
            provider="openai", model="gpt-5-mini", base_url=fake.url + "/v1", repetitions=1,
            case_ids=("carrier-delay",), out_dir=tmp_path / "runs", run_id="now")))
    manifest = json.loads((result.run_dir / "manifest.json").read_text())
    assert manifest["provider"]["pricingVendor"] == "openai"
    # The loopback names a model no price list has: looked up under the vendor the run recorded.
    costs = costs_of_run(result.run_dir, PriceBook())
    assert len(costs) == 2 and all(c.cost.unknown_reason.endswith("' in openai") for c in costs), costs
