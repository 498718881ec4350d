"""In-process providers that misbehave on purpose, for the loop's budget and fault tests."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from recorder.providers.base import ModelRequest, ModelResponse, ProviderBase, ProviderError, ProviderTraits, Usage


def call(name: str, arguments: Any, call_id: str) -> dict[str, Any]:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"type": "function_call", "callId": call_id, "name": name, "arguments": text}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


class PolicyProvider(ProviderBase):
    """Answers each request with policy(request) -> output items (or raises what it returns)."""

    name = "fake"
    model = "fake-model"
    label = "fake provider for tests"
    traits = ProviderTraits(about="a policy a test plays", is_language_model=True, model="optional",
                            base_url="unused", api_key_env="unused", local_server=False, options={}, doctor=None,
                            pricing_vendor=None)

    def __init__(self, policy: Callable[[ModelRequest], Any], delay_s: float = 0.0,
                 usage: tuple[int | None, int | None, int | None] = (100, 10, None)) -> None:
        self.policy, self.delay_s, self.usage = policy, delay_s, usage
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        output = self.policy(request)
        if isinstance(output, ProviderError):
            raise output
        inp, out, cached = self.usage
        return ModelResponse(output_items=output, usage=Usage(inp, out, cached), model="fake-model-2026",
                             response_id=f"resp-{request.turn}", raw_output=output)

    async def aclose(self) -> None:
        pass
