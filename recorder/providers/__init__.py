"""Providers by name: one `register(...)` line per provider class, each checked as it is registered.

What a provider is and honours lives on its class (`traits`, recorder.providers.base.ProviderTraits)
and nowhere else; docs/providers.md shows how to add one. Each provider module imports its vendor SDK
only when a provider is built, so importing the registry loads none: the offline path never imports
openai or anthropic.
"""

from __future__ import annotations

from recorder.providers.anthropic_messages import AnthropicMessagesProvider
from recorder.providers.openai_chat import OpenAIChatProvider
from recorder.providers.openai_responses import OpenAIResponsesProvider
from recorder.providers.registry import (
    REGISTRY,
    ProviderDefinitionError,
    create_provider,
    honoured_by,
    provider_class,
    register,
    traits_of,
)
from recorder.providers.scripted import ScriptedProvider

register(ScriptedProvider)
register(OpenAIResponsesProvider)
register(AnthropicMessagesProvider)
register(OpenAIChatProvider)

__all__ = ["REGISTRY", "ProviderDefinitionError", "create_provider", "honoured_by", "provider_class", "register",
           "traits_of"]
