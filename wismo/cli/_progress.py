"""The progress line `record` draws: conversations done, and each model request's tokens as it happens."""

from __future__ import annotations

import shutil
import sys
import time
from typing import Any, TextIO

from recorder.agent.loop import ConversationPlan, Outcome
from wismo.cli._tables import WIDTH


def _tokens(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


class ProgressLine:
    """Redraws one line on a terminal; prints one line per finished conversation otherwise."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.total = self.done = self.failed = 0
        self.started = time.perf_counter()
        self._last = ""

    def start(self, total: int, skipped: int) -> None:
        """Show how much there is to do."""
        self.total, self.done = total, skipped
        note = f" ({skipped} already complete)" if skipped else ""
        self.stream.write(f"recording {total} conversations{note}\n")
        self.stream.flush()

    def warn(self, message: str) -> None:
        """A problem that does not stop the run (e.g. a case no model can pass)."""
        self.stream.write(f"warning: {message}\n")
        self.stream.flush()

    def _bar(self) -> str:
        width = 24
        filled = int(width * self.done / self.total) if self.total else width
        return f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}"

    def _draw(self, text: str) -> None:
        if not self.tty:
            return
        # A line longer than the terminal wraps, and "\r" then redraws only its last row: cut it to fit.
        columns = shutil.get_terminal_size((WIDTH, 24)).columns
        line = f"\r{self._bar()} {text}"[:max(columns, 40)]
        self.stream.write(line + " " * max(0, len(self._last) - len(line)))
        self.stream.flush()
        self._last = line

    def response(self, plan: ConversationPlan, turn: int, usage: dict[str, Any]) -> None:
        """A model request came back: show its tokens."""
        estimated = " (est.)" if usage.get("estimated") else ""
        self._draw(f"{plan.conversation_id} turn {turn}: {_tokens(usage.get('inputTokens'))} in / "
                   f"{_tokens(usage.get('outputTokens'))} out{estimated}")

    def finished(self, plan: ConversationPlan, outcome: Outcome) -> None:
        """A conversation ended: count it, and say how."""
        self.done += 1
        verdict = "pass" if outcome.passed else outcome.status if outcome.status != "answered" else "fail"
        self.failed += verdict != "pass"
        text = (f"{plan.conversation_id}: {verdict}, {outcome.turns} turns, {outcome.tool_calls} tool calls, "
                f"{_tokens(outcome.input_tokens)} in / {_tokens(outcome.output_tokens)} out, "
                f"{outcome.elapsed_ms / 1000:.2f} s")
        if self.tty:
            self._draw(text)
        else:
            self.stream.write(f"{self._bar()} {text}\n")
            self.stream.flush()

    def close(self) -> None:
        """End the progress line."""
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
