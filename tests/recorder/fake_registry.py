"""Providers registered under test names so that `record` and `resume` can build them by name."""

from __future__ import annotations

import json

from recorder.providers.base import ProviderError, ProviderSettings
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
