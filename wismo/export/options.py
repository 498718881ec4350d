"""What every export is asked for, whatever its format."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExportOptions:
    include_content: bool = False  # OTLP: messages, tool arguments and results, claim quotes (the convention's opt-in)
    validated: bool = True  # false when exported with --unvalidated: the output says so
