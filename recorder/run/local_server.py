"""A model server on the user's own machine or network: what makes its time figures mislead.

Local servers (llama.cpp, Ollama, vLLM on a workstation) usually have one slot, or a few: requests
beyond them wait in a queue, and a request the client gave up on keeps its slot until the server
has finished it. Neither shows in the trace unless wismo says so.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from core.runformat.events import AbandonedRequest
from core.runformat.redact import strip_url_secrets
from core.runformat.write import now_iso
from recorder.agent.loop import ConversationPlan, Outcome

_LOCAL_NAMES = {"localhost", "host.docker.internal"}


def is_local_url(url: str | None) -> bool:
    """True for a base URL on this machine or a private network (loopback, RFC 1918, link-local, .local)."""
    if not url:
        return False
    host = (urlsplit(url).hostname or "").lower()
    if host in _LOCAL_NAMES or host.endswith((".local", ".localhost", ".internal", ".lan")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local or address.is_unspecified


def concurrency_note(base_url: str | None, concurrency: int) -> str | None:
    """A note for a local server asked for several conversations at once; None when there is nothing to say."""
    if concurrency <= 1 or not is_local_url(base_url):
        return None
    shown = strip_url_secrets(base_url or "")
    return (f"note: {shown} is a local server and --concurrency is {concurrency}: a server with fewer slots "
            f"queues the requests, and the time figures include that wait. To measure time fairly, record with "
            f"--concurrency 1 (or as many as the server's parallel slots).")


class AbandonedRequests:
    """Remembers a request a conversation gave up on at a timeout, to note it on the next conversation."""

    def __init__(self, base_url: str | None) -> None:
        self.local = is_local_url(base_url)
        self._pending: AbandonedRequest | None = None
        self.noted = 0

    def observe(self, plan: ConversationPlan, attempt: int, outcome: Outcome) -> None:
        """A conversation ended: if it abandoned a request on a local server, keep it for the next one."""
        if self.local and outcome.budget_hit in ("request_timeout", "deadline"):
            self._pending = AbandonedRequest(conversationId=plan.conversation_id, attempt=attempt,
                                             budgetHit=outcome.budget_hit, at=now_iso())

    def take(self) -> AbandonedRequest | None:
        """The note for the conversation starting now (given once)."""
        pending, self._pending = self._pending, None
        self.noted += pending is not None
        return pending
