"""Tool calls a model wrote in its message text (`--text-tool-calls`), read back into calls.

Small local models often call their tools in text the server does not parse. Seen from
Qwen2.5-Coder-1.5B behind llama-server, and from other small models:

    ```json {"name": "get_order", "arguments": {"orderId": "ORD-1004"}} ```      fenced JSON
    <tool_call>{"name": "get_order", "arguments": {...}}</tool_call>             Hermes-style tags
    <tools><function name="get_order" arguments='{"orderId":"ORD-1004"}'/></tools>   elements
    {"name": "get_order", "parameters": {...}}                                   bare JSON

A fenced block or a tag is a call whatever name it gives (an unknown name or arguments that are not
JSON are the model's mistake, recorded as such by the loop, never dropped); a bare JSON object counts
only when its name is one of the listed tools, so an answer's JSON is never taken for a call. Several
calls in one message are several calls, in the order written.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Literal

Shape = Literal["fenced_json", "tool_call_tag", "function_element", "bare_json"]

_FENCE = re.compile(r"```[ \t]*([A-Za-z_-]*)[ \t]*\n?(.*?)```", re.S)
_TOOL_CALL_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.S)
# <function name="x" arguments='{...}'/>, <function name="x">{...}</function>, <function=x>{...}</function>
_FUNCTION_ELEMENT = re.compile(
    r"<function(?:\s+name\s*=\s*(?P<q>[\"'])(?P<name>.*?)(?P=q)|=(?P<bare>[\w.-]+))"
    r"(?:\s+arguments\s*=\s*(?P<aq>[\"'])(?P<args>.*?)(?P=aq))?\s*(?:/>|>(?P<body>.*?)</function>)", re.S)
_NAME = re.compile(r"\"name\"\s*:\s*\"([^\"]*)\"")
_ARGUMENT_KEYS = ("arguments", "parameters")


@dataclass(frozen=True)
class TextCall:
    """One call as written: the tool name, its arguments as JSON text (verbatim when not JSON), its shape."""

    name: str
    arguments: str
    shape: Shape


def _arguments_text(value: Any) -> str:
    """Arguments as JSON text: an object is serialized, a string (the model's own JSON text) kept verbatim."""
    if isinstance(value, str):
        return value
    return json.dumps({} if value is None else value, ensure_ascii=False, separators=(",", ":"))


def _call_objects(value: Any) -> list[dict[str, Any]]:
    """The objects of a parsed value that look like calls: a name and arguments (or parameters)."""
    found = value if isinstance(value, list) else [value]
    return [item for item in found if isinstance(item, dict) and isinstance(item.get("name"), str)
            and any(key in item for key in _ARGUMENT_KEYS)]


def _from_object(item: dict[str, Any], shape: Shape) -> TextCall:
    key = next(key for key in _ARGUMENT_KEYS if key in item)
    return TextCall(item["name"], _arguments_text(item[key]), shape)


def _from_tag(inner: str) -> list[TextCall]:
    """A <tool_call> body: JSON naming the call; when it does not parse, still the model's call (bad arguments)."""
    text = inner.strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        named = _NAME.search(text)
        return [TextCall(named.group(1) if named else "", text, "tool_call_tag")]
    calls = [_from_object(item, "tool_call_tag") for item in _call_objects(value)]
    if not calls and isinstance(value, dict):  # a name without arguments: a call without any
        name = value.get("name")
        calls = [TextCall(name if isinstance(name, str) else "", "{}", "tool_call_tag")]
    return calls


def _from_element(match: re.Match[str]) -> TextCall:
    name = match.group("name") if match.group("name") is not None else match.group("bare")
    raw = match.group("args") if match.group("args") is not None else (match.group("body") or "").strip()
    return TextCall(html.unescape(name), html.unescape(raw) or "{}", "function_element")


def _bare_objects(text: str, tool_names: Collection[str]) -> list[tuple[int, TextCall]]:
    """Every JSON object in `text` whose name is a listed tool and which carries arguments, with its place."""
    decoder = json.JSONDecoder()
    calls: list[tuple[int, TextCall]] = []
    index = text.find("{")
    while index != -1:
        try:
            value, end = decoder.raw_decode(text, index)
        except json.JSONDecodeError:
            index = text.find("{", index + 1)
            continue
        calls += [(index, _from_object(item, "bare_json")) for item in _call_objects(value)
                  if item["name"] in tool_names]
        index = text.find("{", end)
    return calls


def parse_text_calls(text: str, tool_names: Collection[str]) -> list[TextCall]:
    """The tool calls written in `text`, in the order written; none when it holds none."""
    if not text:
        return []
    found: list[tuple[int, TextCall]] = []
    covered: list[tuple[int, int]] = []
    for match in _TOOL_CALL_TAG.finditer(text):
        found += [(match.start(), call) for call in _from_tag(match.group(1))]
        covered.append(match.span())
    for match in _FUNCTION_ELEMENT.finditer(text):
        if not any(start <= match.start() < end for start, end in covered):
            found.append((match.start(), _from_element(match)))
            covered.append(match.span())
    for match in _FENCE.finditer(text):
        if any(start <= match.start() < end for start, end in covered):
            continue
        try:
            value = json.loads(match.group(2))
        except json.JSONDecodeError:
            continue  # a fence holding something other than JSON (code, prose): not a call
        calls = _call_objects(value)
        if calls:
            found += [(match.start(), _from_object(item, "fenced_json")) for item in calls]
            covered.append(match.span())
    found += _bare_objects(_blank(text, covered), tool_names)
    return [call for _, call in sorted(found, key=lambda pair: pair[0])]


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the given spans replaced by spaces, so a call already read is not read again as bare JSON."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def as_output_items(calls: list[TextCall], turn: int) -> list[dict[str, Any]]:
    """The calls as neutral function_call items, each marked fromText (with its shape) for the trace."""
    return [{"type": "function_call", "callId": f"text_{turn}_{index}", "name": call.name,
             "arguments": call.arguments, "fromText": True, "textShape": call.shape}
            for index, call in enumerate(calls, start=1)]
