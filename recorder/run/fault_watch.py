"""When to stop a run early: a fault that every further conversation would repeat.

Recording on after such a fault only fills the run with identical errors (and, against a paid API,
costs money). Three cases stop the run: a fatal error (401/403: no later request can succeed), a
first request the server refuses as a request-validation error (every conversation's first request
has the same shape, so every one would be refused; a plain 400 may be about one conversation's
content, so it only counts toward the next rule), and the same provider error ending several
conversations in a row. The run is left as `--resume` continues it, once the cause is fixed.

The scripted policy has no endpoint: a fault of its own is a bug in wismo's offline policy on one
conversation's results, which ends that conversation only. Stopping the run for it would interrupt
the conversations of designs it has nothing to do with (and repeating it costs nothing), so only a
language model's provider is watched for repeats. Advice names `wismo doctor` only for a provider
doctor probes, with the base URL and key variable the run used, so the command printed is one that runs.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from core.runformat.redact import strip_url_secrets
from recorder.agent.loop import Outcome
from recorder.providers.base import Provider
from recorder.providers.chat_compat import looks_like_validation_error

REPEATS_TO_STOP = 3


def doctor_command(provider: Provider, api_key_env: str | None = None) -> str | None:
    """The `wismo doctor` command line that checks this provider's endpoint; None when doctor does not probe it."""
    traits = provider.traits
    if traits.doctor is None:
        return None
    parts = ["wismo doctor", f"--provider {provider.name}"]
    if traits.base_url != "unused" and provider.base_url:
        parts.append(f"--base-url {shlex.quote(strip_url_secrets(provider.base_url))}")
    if traits.api_key_env != "unused" and api_key_env:
        parts.append(f"--api-key-env {shlex.quote(api_key_env)}")
    parts.append(f"--model {shlex.quote(provider.model)}")
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

    doctor: str | None  # the command that checks the endpoint; None when there is none to check
    repeats: int = REPEATS_TO_STOP
    watch_repeats: bool = True  # False for a provider that is not a language model (the scripted policy)
    _shape: str | None = None
    _count: int = 0

    @classmethod
    def for_provider(cls, provider: Provider, repeats: int = REPEATS_TO_STOP,
                     api_key_env: str | None = None) -> FaultWatch:
        """A watch whose stop message points at `wismo doctor` for this provider (when doctor probes it)."""
        return cls(doctor_command(provider, api_key_env), repeats, watch_repeats=provider.traits.is_language_model)

    def _check(self) -> str:
        return f" Check the endpoint with `{self.doctor}`" if self.doctor else ""

    def observe(self, outcome: Outcome) -> str | None:
        """The reason to stop the run after this conversation, or None to go on."""
        if outcome.fatal_error is not None:
            return str(outcome.fatal_error)
        error = outcome.provider_error
        if error is not None and error.kind == "bad_request" and outcome.turns == 1 \
                and (error.status == 422 or looks_like_validation_error(str(error))):
            check = f" Check what the endpoint accepts with `{self.doctor}`" if self.doctor else ""
            return (f"the first request was refused as malformed, and every conversation's first request has the "
                    f"same shape: {error}.{check}")
        shape = fault_shape(outcome) if self.watch_repeats else None
        if shape is None:
            self._shape, self._count = None, 0
            return None
        self._count = self._count + 1 if shape == self._shape else 1
        self._shape = shape
        if self._count < self.repeats:
            return None
        timeout = error is not None and error.kind == "timeout"
        advice = self._check() + (" (or raise --request-timeout)" if self.doctor else " Raise --request-timeout") \
            if timeout else self._check()
        return (f"{self._count} conversations in a row ended with the same error: "
                f"{str(error).rstrip('.')}.{advice}")
