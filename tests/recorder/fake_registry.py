"""Providers registered under test names so that `record` and `resume` can build them by name."""

from __future__ import annotations

import json

from recorder.providers.base import ProviderError, ProviderSettings
from recorder.providers.scripted import ScriptedProvider
from tests.recorder.fakes import PolicyProvider, text

ANSWER = {"deliveredSkus": [], "outstandingSkus": [], "delayReasons": [], "deliveryEstimate": None,
          "missingEvidence": [], "customerSummary": "…"}
STATE = {"reject": True}


class RejectingProvider(PolicyProvider):
    """401 on every request while STATE["reject"] is true, then a (failing) answer."""

    name = "rejecting"

    def __init__(self, settings: ProviderSettings) -> None:
        def policy(request):
            if STATE["reject"]:
                return ProviderError("auth", "FakeAI rejected the API key from FAKE_API_KEY (401)", status=401,
                                     fatal=True)
            return [text(json.dumps(ANSWER))]
        super().__init__(policy, delay_s=0.01)


SEED_SUMMARY = ("Your headsets have shipped, but tracking information is currently unavailable, "
                "so the reason for the delay is unknown.")


class SeedWordingProvider(ScriptedProvider):
    """The scripted policy, but with the seed run's weak ORD-1005 wording."""

    name = "seed-wording"

    async def complete(self, request):
        response = await super().complete(request)
        for item in response.output_items:
            if item["type"] == "text" and "HEADSET-USB" in item["text"]:
                answer = json.loads(item["text"])
                answer["customerSummary"] = SEED_SUMMARY
                item["text"] = json.dumps(answer)
        return response


class SlowToolCaller(PolicyProvider):
    """Asks for a tool every turn after 150 ms, so a short conversation deadline cuts it mid-turn."""

    name = "slow-tool-caller"

    def __init__(self, settings: ProviderSettings) -> None:
        from tests.recorder.fakes import call

        def policy(request):
            return [call("get_order", {"orderId": "ORD-1004"}, f"c{request.turn}a"),
                    call("get_order", {"orderId": "ORD-1001"}, f"c{request.turn}b")]
        super().__init__(policy, delay_s=0.15)


class BuggyProvider(ScriptedProvider):
    """The scripted policy, except that reading ORD-1004's first response raises (an adapter bug)."""

    name = "buggy"

    async def complete(self, request):
        question = next(item["content"] for item in request.history if item["type"] == "message")
        if "ORD-1004" in question and request.turn == 1:
            raise RuntimeError("boom while reading the response")
        return await super().complete(request)
