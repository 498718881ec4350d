"""When to stop a run early: a fault that every further conversation would repeat.

Recording on after such a fault only fills the run with identical errors (and, against a paid API,
costs money). Three cases stop the run: a fatal error (401/403: no later request can succeed), a
first request the server refuses as a request-validation error (every conversation's first request
has the same shape, so every one would be refused; a plain 400 may be about one conversation's
content, so it only counts toward the next rule), and the same provider error ending several
conversations in a row. The run is left as `--resume` continues it, once the cause is fixed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.runformat.redact import strip_url_secrets
from recorder.agent.loop import Outcome
from recorder.providers.base import Provider
from recorder.providers.chat_compat import looks_like_validation_error

REPEATS_TO_STOP = 3


def doctor_command(provider: Provider) -> str:
    """The `wismo doctor` command line that checks this provider's endpoint."""
    parts = ["wismo doctor", f"--provider {provider.name}"]
    if provider.traits.base_url == "required" and provider.base_url:
        parts.append(f"--base-url {strip_url_secrets(provider.base_url)}")
    parts.append(f"--model {provider.model}")
    return " ".join(parts)


def fault_shape(outcome: Outcome) -> str | None:
    """What a failed conversation's error looks like with its particulars (numbers, IDs) left out."""
    error = outcome.provider_error
    if error is None:
        return None
    message = re.sub(r"\d+", "#", str(error).lower())
    message = re.sub(r"(call|chatcmpl|req|msg|resp)[-_][\w-]+", r"\1-…", message)
    return f"{error.kind}/{error.status}/{' '.join(message.split())[:160]}"


@dataclass
class FaultWatch:
    """Watches conversations as they finish and says when the run should stop, and why."""

    doctor: str
    repeats: int = REPEATS_TO_STOP
    _shape: str | None = None
    _count: int = 0

    @classmethod
    def for_provider(cls, provider: Provider, repeats: int = REPEATS_TO_STOP) -> FaultWatch:
        """A watch whose stop message points at `wismo doctor` for this provider."""
        return cls(doctor_command(provider), repeats)

    def observe(self, outcome: Outcome) -> str | None:
        """The reason to stop the run after this conversation, or None to go on."""
        if outcome.fatal_error is not None:
            return str(outcome.fatal_error)
        error = outcome.provider_error
        if error is not None and error.kind == "bad_request" and outcome.turns == 1 \
                and (error.status == 422 or looks_like_validation_error(str(error))):
            return (f"the first request was refused as malformed, and every conversation's first request has the "
                    f"same shape: {error}. Check what the endpoint accepts with `{self.doctor}`")
        shape = fault_shape(outcome)
        if shape is None:
            self._shape, self._count = None, 0
            return None
        self._count = self._count + 1 if shape == self._shape else 1
        self._shape = shape
        if self._count < self.repeats:
            return None
        hint = " (or raise --request-timeout)" if error is not None and error.kind == "timeout" else ""
        return (f"{self._count} conversations in a row ended with the same error: "
                f"{str(error).rstrip('.')}. "
                f"Check the endpoint with `{self.doctor}`{hint}")
