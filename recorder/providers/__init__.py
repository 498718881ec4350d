"""Providers by name. Each factory imports its module only when called, so the offline path never loads a vendor SDK."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.errors import WismoError
from recorder.providers.base import Provider, ProviderSettings

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
    """Build the named provider; a missing key, an unknown name or an option it cannot honour is a WismoError."""
    if name not in REGISTRY:
        raise WismoError(f"unknown provider {name!r} (known: {', '.join(REGISTRY)})")
    provider = REGISTRY[name](settings)
    _check_options(name, settings, request_options(provider))
    return provider


def request_options(provider: Provider) -> dict[str, Any]:
    """What the provider sends beyond the conversation (reasoning effort, caching, …); {} when it says nothing."""
    describe = getattr(provider, "request_options", None)
    return describe() if callable(describe) else {}


def _check_options(name: str, settings: ProviderSettings, options: dict[str, Any]) -> None:
    """Refuse an option the provider would silently ignore, so the manifest never records a wish as done."""
    if settings.reasoning_effort is not None and options.get("reasoningEffort") != settings.reasoning_effort:
        raise WismoError(f"--reasoning-effort is not supported by the {name} provider (openai and anthropic only)")
    if not settings.prompt_cache and options.get("promptCaching") != "off":
        automatic = " (it caches long prompts automatically and has no switch)" if name == "openai" else ""
        raise WismoError(f"--no-cache does not apply to the {name} provider{automatic}; it turns off Anthropic's "
                         "cache markers. Every run shows input tokens with and without cached tokens")
    if settings.strict_tools and not options.get("strictTools"):
        raise WismoError(f"--strict-tools is not supported by the {name} provider (openai and anthropic only)")
