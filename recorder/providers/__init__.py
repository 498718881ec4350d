"""Providers by name. Each module imports its vendor SDK lazily, so the offline path never loads one."""

from __future__ import annotations

import importlib

from recorder.providers.base import Provider, ProviderSettings
from wismo.errors import WismoError

# name -> (module, factory); the module is imported only when the provider is used.
REGISTRY: dict[str, tuple[str, str]] = {
    "scripted": ("recorder.providers.scripted", "ScriptedProvider"),
    "openai": ("recorder.providers.openai_responses", "OpenAIResponsesProvider"),
    "anthropic": ("recorder.providers.anthropic_messages", "AnthropicMessagesProvider"),
    "openai-chat": ("recorder.providers.openai_chat", "OpenAIChatProvider"),
}


def create_provider(name: str, settings: ProviderSettings) -> Provider:
    """Build the named provider; a missing key or unknown name is a WismoError with a clear message."""
    if name not in REGISTRY:
        raise WismoError(f"unknown provider {name!r} (known: {', '.join(REGISTRY)})")
    module_name, factory = REGISTRY[name]
    module = importlib.import_module(module_name)
    return getattr(module, factory)(settings)
