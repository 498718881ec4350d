"""The OpenAI Responses API (`POST /v1/responses`) behind the neutral provider contract.

The request body comes from `responses_wire`, the serializer the scripted model's offline token
estimate also uses, so the estimate counts exactly what this adapter sends. The final answer is
requested as strict structured output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from recorder.providers._common import classify_sdk_error, dump, read_key, require_parsed, strict_schema
from recorder.providers.base import ModelRequest, ModelResponse, ProviderSettings, Usage
from recorder.providers.responses_wire import answer_format, responses_body
from recorder.providers.retry import Failure, RetryPolicy, Sleep, call_with_retries

DEFAULT_MODEL = "gpt-5.4-mini"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"


class OpenAIResponsesProvider:
    """One stateless `responses.create` call per turn, with the whole history as input."""

    name = "openai"
    is_language_model = True

    def __init__(self, settings: ProviderSettings, *, sleep: Sleep | None = None,
                 rand: Callable[[], float] | None = None) -> None:
        import openai  # imported here so the offline path never loads the SDK

        self._sdk = openai
        self.model = settings.model or DEFAULT_MODEL
        self.label = f"OpenAI Responses API, {self.model}"
        self._key = read_key(settings.api_key_env or DEFAULT_KEY_ENV, vendor="OpenAI")
        self._policy = RetryPolicy.from_settings(settings, sleep=sleep, rand=rand)
        self._client = openai.AsyncOpenAI(api_key=self._key.value, base_url=settings.base_url, max_retries=0)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send the request (retrying 429/5xx) and translate the response to neutral items."""
        body = responses_body(request, self.model)
        # The contract's schema is already strict; a looser one is adapted rather than rejected.
        body["text"] = answer_format(strict_schema(request.answer_schema))

        model = body.pop("model")

        async def attempt() -> Any:
            # The body goes as extra_body: the SDK merges it unchanged, while passing it as typed
            # parameters makes the SDK walk the whole history through its TypedDict transform on every
            # request (about 9 ms of CPU per request here, most of the harness's own cost).
            return await self._client.responses.create(model=model, extra_body=body, timeout=request.timeout_s)

        outcome = await call_with_retries(attempt, self._classify, self._policy)
        response = require_parsed(outcome.value, who="OpenAI", key=self._key)
        output = getattr(response, "output", None) or []  # none at all: the loop calls it malformed_response
        return ModelResponse(
            output_items=from_output(output),
            usage=usage_of(getattr(response, "usage", None)),
            model=getattr(response, "model", None),
            response_id=getattr(response, "id", None),
            raw_output=[dump(item) for item in output],
            retries=outcome.retries,
            retry_waits_s=outcome.waits_s,
        )

    def _classify(self, err: BaseException) -> Failure | None:
        """Name an SDK failure for the retry loop."""
        return classify_sdk_error(err, self._sdk, who="OpenAI", key=self._key)

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        await self._client.close()


def from_output(output: list[Any]) -> list[dict[str, Any]]:
    """Responses output items as neutral items: one text item per message, one per function call."""
    items: list[dict[str, Any]] = []
    for entry in output:
        if entry.type == "message":
            # A refusal is kept as text so the loop sees (and scores) it rather than an empty answer.
            parts = [getattr(part, "text", None) or getattr(part, "refusal", None) or "" for part in entry.content]
            text = "".join(parts)
            if text:
                items.append({"type": "text", "text": text})
        elif entry.type == "function_call":
            items.append({"type": "function_call", "callId": entry.call_id, "name": entry.name,
                          "arguments": entry.arguments})
        # Reasoning and other item kinds stay only in raw_output.
    return items


def usage_of(usage: Any) -> Usage:
    """The token counts the Responses API reported; None where it reported nothing."""
    if usage is None:
        return Usage(None, None, None)
    details = getattr(usage, "input_tokens_details", None)
    return Usage(input_tokens=getattr(usage, "input_tokens", None),
                 output_tokens=getattr(usage, "output_tokens", None),
                 cached_tokens=getattr(details, "cached_tokens", None) if details is not None else None)
