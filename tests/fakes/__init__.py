"""Loopback fakes of the model APIs: a scripted HTTP server and replies in each wire format."""

from tests.fakes.replies import (
    ANTHROPIC_MODEL,
    CHAT_MODEL,
    OPENAI_MODEL,
    Tokens,
    anthropic_error,
    chat_reply,
    messages_reply,
    openai_error,
    responses_reply,
)
from tests.fakes.server import FakeServer, Received, Reply

__all__ = ["ANTHROPIC_MODEL", "CHAT_MODEL", "OPENAI_MODEL", "FakeServer", "Received", "Reply", "Tokens",
           "anthropic_error", "chat_reply", "messages_reply", "openai_error", "responses_reply"]
