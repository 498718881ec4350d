"""How a neutral request is serialized for the OpenAI Responses API (shared by the offline estimate)."""

from __future__ import annotations

from typing import Any

from core.domain.linking import ToolSpec
from recorder.providers._common import strict_schema
from recorder.providers.base import ModelRequest


def responses_tools(tools: list[ToolSpec], *, strict: bool = False) -> list[dict[str, Any]]:
    """Function tools: name and description verbatim, the MCP inputSchema as parameters.

    With `strict`, the schema gets what strict mode requires (`additionalProperties: false`, every
    property required, optional ones nullable); its `title` keys stay, as the SDK's own strict
    helper (openai.lib._pydantic.to_strict_json_schema) keeps them.
    """
    return [{"type": "function", "name": t.name, "description": t.description,
             "parameters": strict_schema(t.parameters) if strict else t.parameters, "strict": strict}
            for t in tools]


def responses_input(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Neutral history items as Responses API input items."""
    items: list[dict[str, Any]] = []
    for item in history:
        kind = item["type"]
        if kind == "message":
            items.append({"role": item["role"], "content": item["content"]})
        elif kind == "function_call":
            items.append({"type": "function_call", "call_id": item["callId"], "name": item["name"],
                          "arguments": item["arguments"]})
        elif kind == "function_call_output":
            items.append({"type": "function_call_output", "call_id": item["callId"], "output": item["output"]})
        elif kind == "reasoning":
            # The id stays: the encrypted content is bound to it, and the API refuses a mismatch.
            items.append({"type": "reasoning", "id": item["id"], "summary": item.get("summary", []),
                          "encrypted_content": item["encryptedContent"]})
        else:
            raise ValueError(f"unknown history item type {kind!r}")
    return items


def answer_format(schema: dict[str, Any]) -> dict[str, Any]:
    """Structured output: the answer contract as a strict JSON schema."""
    return {"format": {"type": "json_schema", "name": "order_assessment", "schema": schema, "strict": True}}


def responses_body(request: ModelRequest, model: str, *, strict_tools: bool = False) -> dict[str, Any]:
    """The conversation part of the body POSTed to /v1/responses (the adapter adds store, include, reasoning)."""
    return {"model": model, "instructions": request.instructions,
            "tools": responses_tools(request.tools, strict=strict_tools),
            "input": responses_input(request.history), "text": answer_format(request.answer_schema)}
