"""One short request per provider against the real API; run with `pytest --live` and the keys set.

Models come from WISMO_LIVE_OPENAI_MODEL / WISMO_LIVE_ANTHROPIC_MODEL (small defaults below); the
Chat Completions test needs WISMO_LIVE_CHAT_BASE_URL and WISMO_LIVE_CHAT_MODEL (e.g. a local Ollama).
"""

from __future__ import annotations

import asyncio
import os

import pytest

from recorder.providers import create_provider
from recorder.providers.base import ModelRequest, ProviderSettings
from tests.recorder.test_provider_retry import ANSWER
from tests.recorder.test_providers import TOOLS

pytestmark = pytest.mark.live

INSTRUCTIONS = ("You are testing an API connection. Do not call any tool. Reply with exactly one JSON object "
                "with empty lists, deliveryEstimate null and customerSummary \"ok\".")


def live_settings(provider: str) -> tuple[ProviderSettings, str]:
    """Settings for one provider and the variable that must be set, or skip the test."""
    if provider == "openai":
        return ProviderSettings(model=os.environ.get("WISMO_LIVE_OPENAI_MODEL", "gpt-5.4-mini"),
                                max_retries=2), "OPENAI_API_KEY"
    if provider == "anthropic":
        return ProviderSettings(model=os.environ.get("WISMO_LIVE_ANTHROPIC_MODEL", "claude-haiku-4-5"),
                                max_retries=2, extra={"max_tokens": 512}), "ANTHROPIC_API_KEY"
    return ProviderSettings(model=os.environ.get("WISMO_LIVE_CHAT_MODEL"),
                            base_url=os.environ.get("WISMO_LIVE_CHAT_BASE_URL"),
                            api_key_env=os.environ.get("WISMO_LIVE_CHAT_KEY_ENV"), max_retries=2), \
        "WISMO_LIVE_CHAT_BASE_URL"


@pytest.mark.parametrize("provider", ["openai", "anthropic", "openai-chat"])
def test_one_short_request_reports_usage(provider):
    settings, required = live_settings(provider)
    if not os.environ.get(required) or (provider == "openai-chat" and not settings.model):
        pytest.skip(f"{required} is not set")

    async def go():
        adapter = create_provider(provider, settings)
        try:
            return await adapter.complete(ModelRequest(
                INSTRUCTIONS, TOOLS, [{"type": "message", "role": "user", "content": "Connection check."}],
                ANSWER, 1, 60.0))
        finally:
            await adapter.aclose()

    response = asyncio.run(go())
    assert response.output_items, "the model returned nothing"
    assert response.model and response.response_id
    assert response.usage.input_tokens and response.usage.input_tokens > 0
    assert response.usage.output_tokens and response.usage.output_tokens > 0
    assert response.usage.estimated is False
