"""Providers by name. Each factory imports its module only when called, so the offline path never loads a vendor SDK."""

from __future__ import annotations

from collections.abc import Callable

from recorder.providers.base import Provider, ProviderSettings
from wismo.errors import WismoError

ProviderFactory = Callable[[ProviderSettings], Provider]


def _scripted(settings: ProviderSettings) -> Provider:
    from recorder.providers.scripted import ScriptedProvider

    return ScriptedProvider(settings)


def _openai_responses(settings: ProviderSettings) -> Provider:
    from recorder.providers.openai_responses import OpenAIResponsesProvider

    return OpenAIResponsesProvider(settings)


def _anthropic_messages(settings: ProviderSettings) -> Provider:
    from recorder.providers.anthropic_messages import AnthropicMessagesProvider

    return AnthropicMessagesProvider(settings)


def _openai_chat(settings: ProviderSettings) -> Provider:
    from recorder.providers.openai_chat import OpenAIChatProvider

    return OpenAIChatProvider(settings)


REGISTRY: dict[str, ProviderFactory] = {
    "scripted": _scripted,
    "openai": _openai_responses,
    "anthropic": _anthropic_messages,
    "openai-chat": _openai_chat,
}


def create_provider(name: str, settings: ProviderSettings) -> Provider:
    """Build the named provider; a missing key or unknown name is a WismoError with a clear message."""
    if name not in REGISTRY:
        raise WismoError(f"unknown provider {name!r} (known: {', '.join(REGISTRY)})")
    return REGISTRY[name](settings)
