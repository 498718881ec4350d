"""Follow the IDs a tool result links to, by parameter name, without knowing any tool or dataset.

A result field `paymentId` links to the tool whose parameter is `paymentId`; a list field
`reservationIds` links, one call per element, to the tool whose parameter is `reservationId`; when
several tools take the same parameter, the ID links to each of them. Both the scripted model and
`wismo check` use this, so neither hard-codes a tool name or an ID.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it: name, description and the JSON schema of its parameters."""

    name: str
    description: str
    parameters: dict[str, Any]

    @property
    def required(self) -> tuple[str, ...]:
        """The parameters the tool cannot be called without."""
        return tuple(self.parameters.get("required", ()))

    def single_parameter(self) -> str | None:
        """The parameter name when the tool takes exactly one required string, else None."""
        props = self.parameters.get("properties", {})
        if len(self.required) == 1 and props.get(self.required[0], {}).get("type") == "string":
            return self.required[0]
        return None


@dataclass(frozen=True)
class Link:
    """One tool call implied by an ID: the tool, its parameter, and the ID value."""

    tool: str
    parameter: str
    value: str

    @property
    def kind(self) -> str:
        """The record kind the parameter names: `reservationId` → `reservation`."""
        return kind_of_parameter(self.parameter)


def kind_of_parameter(parameter: str) -> str:
    """`trackingId` → `tracking`; a name without the Id suffix is returned unchanged."""
    return parameter[:-2] if parameter.endswith("Id") else parameter


def tools_by_parameter(tools: Sequence[ToolSpec]) -> dict[str, str]:
    """Map each single-ID parameter name to the first tool that takes it (the tool a question starts with)."""
    return {parameter: names[0] for parameter, names in tools_taking(tools).items()}


def tools_taking(tools: Sequence[ToolSpec]) -> dict[str, list[str]]:
    """Map each single-ID parameter name to every tool that takes it, in the order the server lists them."""
    mapping: dict[str, list[str]] = {}
    for tool in tools:
        parameter = tool.single_parameter()
        if parameter:
            mapping.setdefault(parameter, []).append(tool.name)
    return mapping


def id_fields(value: Any) -> Iterator[tuple[str, str]]:
    """Yield (parameter name, ID) for every `xId` string and every element of an `xIds` list."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key.endswith("Id") and isinstance(item, str):
                yield key, item
            elif key.endswith("Ids") and isinstance(item, list):
                yield from ((key[:-1], element) for element in item if isinstance(element, str))
            else:
                yield from id_fields(item)
    elif isinstance(value, list):
        for item in value:
            yield from id_fields(item)


def next_links(tools: Sequence[ToolSpec], results: Sequence[Any],
               already: set[tuple[str, str, str]]) -> list[Link]:
    """The calls the results link to that have not been made yet, in the order they appear.

    An ID leads to every tool taking its parameter: a design may split one order's records over several
    tools that all take the `orderId` (the order's own ID in a result then leads to the others). `already`
    holds the (tool, parameter, value) calls made so far.
    """
    by_parameter = tools_taking(tools)
    links: list[Link] = []
    seen = set(already)
    for result in results:
        for parameter, value in id_fields(result):
            for tool in by_parameter.get(parameter, ()):
                if (tool, parameter, value) not in seen:
                    seen.add((tool, parameter, value))
                    links.append(Link(tool, parameter, value))
    return links
