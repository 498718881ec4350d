"""Loopback model servers for tests, benchmarks and trying wismo without a key.

A real HTTP server on 127.0.0.1 that speaks the providers' wire formats (OpenAI Responses, Chat
Completions, Anthropic Messages) with replies a caller scripts or decides per request. Not a test:
the tests and the benchmarks both use it.
"""

from wismo.loopback.chat_servers import ChatServer, compliant, llama_cpp_python, llama_server_small_model
from wismo.loopback.replies import (
    ANTHROPIC_MODEL,
    CHAT_MODEL,
    OPENAI_MODEL,
    Tokens,
    anthropic_error,
    anthropic_model_info,
    chat_reply,
    messages_reply,
    openai_error,
    responses_reply,
)
from wismo.loopback.server import FakeServer, Received, Reply

__all__ = ["ANTHROPIC_MODEL", "CHAT_MODEL", "OPENAI_MODEL", "ChatServer", "FakeServer", "Received", "Reply", "Tokens",
           "anthropic_error", "anthropic_model_info", "chat_reply", "compliant", "llama_cpp_python",
           "llama_server_small_model", "messages_reply", "openai_error", "responses_reply"]
