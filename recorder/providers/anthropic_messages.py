"""The Anthropic Messages API (`POST /v1/messages`) behind the neutral provider contract.

Messages must alternate user/assistant, so the flat neutral history is grouped: an assistant's text
and tool_use blocks form one assistant message, and all tool results of a turn form one user message.
There is no structured-output option here; the instructions themselves ask for the JSON answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from recorder.linking import ToolSpec
from recorder.providers._common import classify_sdk_error, dump, read_key, to_json_text
from recorder.providers.base import ModelRequest, ModelResponse, ProviderSettings, Usage
from recorder.providers.retry import Failure, RetryPolicy, Sleep, call_with_retries

if TYPE_CHECKING:  # for the type checker only: at run time the SDK loads when a provider is built
    from anthropic.types import MessageParam

DEFAULT_MODEL = "claude-sonnet-4-6"
DEFAULT_KEY_ENV = "ANTHROPIC_API_KEY"
DEFAULT_MAX_TOKENS = 4096


class AnthropicMessagesProvider:
    """One stateless `messages.create` call per turn, with the whole history as messages."""

    name = "anthropic"
    is_language_model = True

    def __init__(self, settings: ProviderSettings, *, sleep: Sleep | None = None,
                 rand: Callable[[], float] | None = None) -> None:
        import anthropic  # imported here so the offline path never loads the SDK

        self._sdk = anthropic
        self.model = settings.model or DEFAULT_MODEL
        self.label = f"Anthropic Messages API, {self.model}"
        self._key = read_key(settings.api_key_env or DEFAULT_KEY_ENV, vendor="Anthropic")
        self._max_tokens = int(settings.extra.get("max_tokens", DEFAULT_MAX_TOKENS))
        self._policy = RetryPolicy.from_settings(settings, sleep=sleep, rand=rand)
        # base_url is the API root (the SDK adds /v1/messages), unlike the OpenAI SDK's .../v1.
        self._client = anthropic.AsyncAnthropic(api_key=self._key.value, base_url=settings.base_url, max_retries=0)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send the request (retrying 429/5xx) and translate the content blocks to neutral items."""

        body = {"system": request.instructions, "tools": [to_tool(tool) for tool in request.tools]}
        # Plain dicts in the shape of the SDK's MessageParam (the API, not the SDK, validates them).
        messages = cast("list[MessageParam]", to_messages(request.history))

        async def attempt() -> Any:
            # extra_body skips the SDK's per-request TypedDict transform of the tools and system text; the
            # bytes sent are the same. (messages must stay a typed parameter: the SDK requires it.)
            return await self._client.messages.create(model=self.model, max_tokens=self._max_tokens,
                                                      messages=messages, extra_body=body,
                                                      timeout=request.timeout_s)

        outcome = await call_with_retries(attempt, self._classify, self._policy)
        message = outcome.value
        content = list(getattr(message, "content", None) or [])
        return ModelResponse(
            output_items=from_content(content),
            usage=usage_of(getattr(message, "usage", None)),
            model=getattr(message, "model", None),
            response_id=getattr(message, "id", None),
            raw_output=[dump(block) for block in content],
            retries=outcome.retries,
            retry_waits_s=outcome.waits_s,
        )

    def _classify(self, err: BaseException) -> Failure | None:
        """Name an SDK failure for the retry loop."""
        return classify_sdk_error(err, self._sdk, who="Anthropic", key=self._key)

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        await self._client.close()


def to_tool(tool: ToolSpec) -> dict[str, Any]:
    """A client tool: name and description verbatim, the MCP inputSchema as input_schema."""
    return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}


def to_messages(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Neutral history as alternating user/assistant messages of content blocks."""
    messages: list[dict[str, Any]] = []
    for item in history:
        role, block = _block(item)
        if block is None:
            continue
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].append(block)
        else:
            messages.append({"role": role, "content": [block]})
    for message in messages:
        # The API wants a user message's tool_result blocks before any text in it; sort is stable.
        message["content"].sort(key=lambda block: block["type"] != "tool_result")
    return messages


def _block(item: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """The role an item belongs to and its content block (None for empty text, which the API refuses)."""
    kind = item["type"]
    if kind == "message":
        text = item["content"]
        return item["role"], ({"type": "text", "text": text} if text else None)
    if kind == "function_call":
        return "assistant", {"type": "tool_use", "id": item["callId"], "name": item["name"],
                             "input": _tool_input(item["arguments"])}
    if kind == "function_call_output":
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": item["callId"], "content": item["output"]}
        if item.get("isError"):
            block["is_error"] = True
        return "user", block
    raise ValueError(f"unknown history item type {kind!r}")


def _tool_input(arguments: str) -> dict[str, Any]:
    """The arguments as the object tool_use needs.

    Text that is not a JSON object (from a history another provider produced) is kept under a key
    instead of being dropped, so the model still sees what was sent.
    """
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return {"unparsed_arguments": arguments}
    return value if isinstance(value, dict) else {"unparsed_arguments": arguments}


def from_content(content: list[Any]) -> list[dict[str, Any]]:
    """Content blocks as neutral items: text blocks, and tool_use blocks as function calls.

    The API returns tool input already parsed, so `arguments` is that object serialized back to
    JSON text; there is no malformed text to keep verbatim.
    """
    items: list[dict[str, Any]] = []
    for block in content:
        if block.type == "text" and block.text:
            items.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            items.append({"type": "function_call", "callId": block.id, "name": block.name,
                          "arguments": to_json_text(block.input)})
        # Thinking and server-tool blocks stay only in raw_output.
    return items


def usage_of(usage: Any) -> Usage:
    """The token counts Anthropic reported; None where it reported nothing.

    Anthropic's `input_tokens` counts only the input after the last cache breakpoint; cache reads and
    cache writes are reported separately. Input here is their sum, the total input the model
    processed, so it compares with OpenAI's `input_tokens` (which includes cached tokens).
    """
    if usage is None:
        return Usage(None, None, None)
    fresh = getattr(usage, "input_tokens", None)
    read = getattr(usage, "cache_read_input_tokens", None)
    written = getattr(usage, "cache_creation_input_tokens", None)
    total = None if fresh is None else fresh + (read or 0) + (written or 0)
    return Usage(input_tokens=total, output_tokens=getattr(usage, "output_tokens", None), cached_tokens=read)
