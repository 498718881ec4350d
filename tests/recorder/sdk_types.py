"""Hold a captured request body to the installed SDKs' request types (their TypedDicts), key by key.

pydantic validates a TypedDict and drops keys it does not define, so a body that comes back equal
after validation has no unknown key and no value of the wrong type. Content blocks and tools are
also held to their own param type, because the SDK's unions admit response models, which allow
extra keys.
"""

from __future__ import annotations

from typing import Any

from anthropic.types import TextBlockParam, ToolParam, ToolResultBlockParam, ToolUseBlockParam
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming
from pydantic import BaseModel, TypeAdapter

RESPONSES = TypeAdapter(ResponseCreateParamsNonStreaming)
MESSAGES = TypeAdapter(MessageCreateParamsNonStreaming)
ANTHROPIC_BLOCKS = {"text": TypeAdapter(TextBlockParam), "tool_use": TypeAdapter(ToolUseBlockParam),
                    "tool_result": TypeAdapter(ToolResultBlockParam)}
ANTHROPIC_TOOL = TypeAdapter(ToolParam)


def _plain(value: Any) -> Any:
    """A validated value as plain JSON data (iterables are validated lazily: reading them validates them)."""
    if isinstance(value, BaseModel):
        return _plain(value.model_dump(mode="json", exclude_unset=True))
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple) or type(value).__name__ == "ValidatorIterator":
        return [_plain(item) for item in value]
    return value


def _holds(adapter: TypeAdapter[Any], value: Any, where: str) -> None:
    assert _plain(adapter.validate_python(value)) == value, f"{where} has a key or value its SDK type lacks"


def assert_responses_body(body: dict[str, Any]) -> None:
    """The body is a valid openai ResponseCreateParams (openai 3.57)."""
    _holds(RESPONSES, body, "the Responses request")


def assert_messages_body(body: dict[str, Any]) -> None:
    """The body is a valid anthropic MessageCreateParams (anthropic 2.14), block by block."""
    _holds(MESSAGES, body, "the Messages request")
    for tool in body.get("tools", []):
        _holds(ANTHROPIC_TOOL, tool, f"tool {tool.get('name')}")
    system = body.get("system")
    for block in system if isinstance(system, list) else []:
        _holds(ANTHROPIC_BLOCKS["text"], block, "a system block")
    for number, message in enumerate(body["messages"]):
        for block in message["content"] if isinstance(message["content"], list) else []:
            _holds(ANTHROPIC_BLOCKS[block["type"]], block, f"a {block['type']} block of message {number}")
