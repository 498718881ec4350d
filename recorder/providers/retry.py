"""Retries shared by the API providers: 429, 5xx and connection errors, with backoff and Retry-After.

The vendor SDKs' own retries are disabled (`max_retries=0`) so that every wait is decided here and
recorded on the response: the run log must show how long a conversation stood still and why.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Generic, TypeVar

from recorder.providers.base import ErrorKind, ProviderError, ProviderSettings

T = TypeVar("T")

Sleep = Callable[[float], Awaitable[None]]

RETRYABLE: frozenset[ErrorKind] = frozenset({"rate_limited", "server_error", "connection"})

# A server may ask for a very long pause; beyond this a run is better off failing the request than
# standing still, so the honoured wait is capped here (it is still recorded as waited).
RETRY_AFTER_CEILING_S = 300.0


@dataclass(frozen=True)
class Failure:
    """One failed attempt in neutral terms: what kind, which status, a safe message, response headers."""

    kind: ErrorKind
    message: str
    status: int | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """A successful result and the waits it took to get there."""

    value: T
    waits_s: list[float]

    @property
    def retries(self) -> int:
        """How many attempts failed before the one that succeeded."""
        return len(self.waits_s)


@dataclass(frozen=True)
class RetryPolicy:
    """How many times to retry and how long to wait; `sleep` and `random` are injectable for tests."""

    max_retries: int = 4
    backoff_base_s: float = 0.5
    backoff_max_s: float = 20.0
    sleep: Sleep = asyncio.sleep
    random: Callable[[], float] = random.random
    clock: Callable[[], float] = time.time

    @classmethod
    def from_settings(cls, settings: ProviderSettings, *, sleep: Sleep | None = None,
                      rand: Callable[[], float] | None = None) -> RetryPolicy:
        """The policy a provider's settings describe."""
        return cls(max_retries=max(0, settings.max_retries), backoff_base_s=settings.backoff_base_s,
                   backoff_max_s=settings.backoff_max_s, sleep=sleep or asyncio.sleep,
                   random=rand or random.random)

    def wait_s(self, attempt: int, headers: Mapping[str, str]) -> float:
        """The pause before retry number `attempt + 1`: the server's Retry-After, else jittered backoff."""
        asked = retry_after_s(headers, self.clock)
        if asked is not None:
            return min(asked, RETRY_AFTER_CEILING_S)
        ceiling = min(self.backoff_max_s, self.backoff_base_s * (2 ** attempt))
        # Jitter in [50 %, 100 %] of the ceiling spreads concurrent conversations without ever
        # waiting longer than backoff_max_s.
        return ceiling * (0.5 + 0.5 * self.random())


def retry_after_s(headers: Mapping[str, str], clock: Callable[[], float] = time.time) -> float | None:
    """Seconds the server asked us to wait (`retry-after-ms`, or `Retry-After` as seconds or HTTP date)."""
    lowered = {key.lower(): value for key, value in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - clock())


async def call_with_retries(attempt: Callable[[], Awaitable[T]], classify: Callable[[BaseException], Failure | None],
                            policy: RetryPolicy) -> Outcome[T]:
    """Run `attempt` until it succeeds, retrying retryable failures; raise ProviderError otherwise.

    `classify` turns a vendor exception into a Failure, or returns None for exceptions that are not
    API failures (bugs), which propagate unchanged.
    """
    waits: list[float] = []
    for number in range(policy.max_retries + 1):
        try:
            return Outcome(await attempt(), waits)
        except Exception as err:
            failure = classify(err)
            if failure is None:
                raise
            if failure.kind not in RETRYABLE or number == policy.max_retries:
                raise ProviderError(failure.kind, failure.message, status=failure.status,
                                    fatal=failure.kind == "auth", retries=number, retry_waits_s=waits) from None
            wait = policy.wait_s(number, failure.headers)
        waits.append(wait)
        await policy.sleep(wait)
    raise AssertionError("unreachable: the last attempt either returns or raises")
