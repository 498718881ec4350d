"""The provider registry: provider classes by name, each checked as it is added, built on demand.

`register` refuses a class that does not declare what wismo needs of a provider (its name, its
traits, the methods of the contract), naming the class and what it lacks, so a provider missing a
capability fails when it is registered, not at some later request. Building a provider refuses an
option it would silently ignore, from its traits, before its vendor SDK is loaded.
"""

from __future__ import annotations

import inspect
from dataclasses import fields
from typing import Any, get_args

from core.errors import WismoError
from recorder.providers.base import (
    OPTION_FLAGS,
    DoctorProbes,
    Provider,
    ProviderBase,
    ProviderClass,
    ProviderSettings,
    ProviderTraits,
    RequestOption,
    Use,
)

REGISTRY: dict[str, ProviderClass] = {}
# The contract's methods: (name, must be async). listed_models is asked of providers doctor probes only.
_METHODS = (("complete", True), ("aclose", True), ("request_options", False), ("request_shape", False),
            ("capabilities", True))


class ProviderDefinitionError(WismoError):
    """A provider class that lacks part of the provider contract; the message names the class and the part."""


def register(cls: ProviderClass) -> ProviderClass:
    """Add a provider class under its name, once it is checked; a second class under one name is refused."""
    checked = check_provider_class(cls)
    known = REGISTRY.get(checked.name)
    if known is not None and known is not checked:
        raise ProviderDefinitionError(f"provider {checked.name!r}: {_where(checked)} and {_where(known)} both "
                                      "register under that name")
    REGISTRY[checked.name] = checked
    return checked


def check_provider_class(cls: Any, registered_as: str | None = None) -> ProviderClass:
    """`cls` as a ProviderClass, or a ProviderDefinitionError naming it and everything it lacks."""
    name = getattr(cls, "name", None)
    who = f"provider {name!r} ({_where(cls)})" if isinstance(name, str) and name else f"provider class {_where(cls)}"
    problems = _problems(cls, name, registered_as)
    if problems:
        raise ProviderDefinitionError(f"{who}: {'; '.join(problems)}")
    checked: ProviderClass = cls
    return checked


def _where(cls: Any) -> str:
    return f"{getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', repr(cls))}"


def _problems(cls: Any, name: Any, registered_as: str | None) -> list[str]:
    problems = []
    if not isinstance(name, str) or not name:
        problems.append("declares no name (a class attribute `name`, the name --provider takes)")
    elif registered_as is not None and name != registered_as:
        problems.append(f"is registered as {registered_as!r} but names itself {name!r}")
    traits = getattr(cls, "traits", None)
    if not isinstance(traits, ProviderTraits):
        problems.append("declares no traits (a class attribute `traits = ProviderTraits(...)`: what it is, what "
                        "it honours, how doctor probes it and how it is priced)")
    else:
        problems += _trait_problems(traits)
    for method, is_async in _METHODS:
        problems += _method_problems(cls, method, is_async)
    if isinstance(traits, ProviderTraits) and traits.doctor is not None:
        problems += _doctor_problems(cls, traits.doctor)
    return problems


def _doctor_problems(cls: Any, probes: str) -> list[str]:
    """A provider doctor probes must say which models its endpoint has."""
    listed = getattr(cls, "listed_models", ProviderBase.listed_models)
    if listed is ProviderBase.listed_models or not inspect.iscoroutinefunction(listed):
        return [f"declares doctor probes ({probes}) but does not define async listed_models()"]
    return []


def _method_problems(cls: Any, method: str, is_async: bool) -> list[str]:
    found = getattr(cls, method, None)
    if not callable(found):
        return [f"has no {method}() (subclass recorder.providers.base.ProviderBase for the defaults)"
                if method not in ("complete", "aclose") else f"has no async {method}()"]
    if is_async and not inspect.iscoroutinefunction(found):
        return [f"{method}() must be async"]
    return []


def _trait_problems(traits: ProviderTraits) -> list[str]:
    """Trait values outside what the contract defines (the dataclass itself makes every trait required)."""
    problems = []
    for setting in ("model", "base_url", "api_key_env"):
        if getattr(traits, setting) not in get_args(Use):
            problems.append(f"traits.{setting} must be one of {', '.join(get_args(Use))}, "
                            f"not {getattr(traits, setting)!r}")
    if traits.doctor is not None and traits.doctor not in get_args(DoctorProbes):
        problems.append(f"traits.doctor must be None or one of {', '.join(get_args(DoctorProbes))}, "
                        f"not {traits.doctor!r}")
    for field_name in ("options", "option_notes"):
        unknown = [key for key in getattr(traits, field_name) if key not in OPTION_FLAGS]
        if unknown:
            problems.append(f"traits.{field_name} names options wismo does not have: {', '.join(map(str, unknown))} "
                            f"(known: {', '.join(OPTION_FLAGS)})")
    for field in fields(ProviderTraits):
        value = getattr(traits, field.name)
        if field.name in ("is_language_model", "local_server") and not isinstance(value, bool):
            problems.append(f"traits.{field.name} must be True or False, not {value!r}")
    if not isinstance(traits.about, str) or not traits.about:
        problems.append("traits.about must say in a few words what the provider talks to")
    if traits.pricing_vendor is not None and (not isinstance(traits.pricing_vendor, str) or not traits.pricing_vendor):
        problems.append(f"traits.pricing_vendor must be a genai-prices provider id or None, not "
                        f"{traits.pricing_vendor!r}")
    if traits.local_server and traits.base_url == "unused":
        problems.append("traits.local_server needs a base URL, but traits.base_url is 'unused'")
    return problems


def provider_class(name: str) -> ProviderClass:
    """The registered class of that name (checked again: a test may put one in the registry directly)."""
    if name not in REGISTRY:
        raise WismoError(f"unknown provider {name!r} (known: {', '.join(REGISTRY)})")
    return check_provider_class(REGISTRY[name], name)


def traits_of(name: str) -> ProviderTraits:
    """The traits of the provider registered under `name`; an unknown name is a WismoError."""
    return provider_class(name).traits


def honoured_by(option: RequestOption) -> dict[str, str]:
    """The registered providers that honour `option`, in registry order, each with how its API names it."""
    return {name: cls.traits.options[option] for name, cls in REGISTRY.items() if option in cls.traits.options}


def create_provider(name: str, settings: ProviderSettings) -> Provider:
    """Build the named provider; a missing key, an unknown name or an option it cannot honour is a WismoError."""
    cls = provider_class(name)
    _check_options(name, cls.traits, settings)
    return cls(settings)


def _check_options(name: str, traits: ProviderTraits, settings: ProviderSettings) -> None:
    """Refuse an option the provider would silently ignore, so the manifest never records a wish as done."""
    wished: dict[RequestOption, bool] = {"reasoning_effort": settings.reasoning_effort is not None,
                                         "prompt_cache": not settings.prompt_cache,
                                         "strict_tools": settings.strict_tools}
    for option, asked in wished.items():
        if asked and option not in traits.options:
            raise WismoError(refusal(name, traits, option))


def refusal(name: str, traits: ProviderTraits, option: RequestOption) -> str:
    """Why `option` cannot be asked of the provider, and which providers honour it."""
    note = traits.option_notes.get(option)
    honouring = list(honoured_by(option))
    others = (" and ".join([", ".join(honouring[:-1]), honouring[-1]]) if len(honouring) > 1
              else "".join(honouring)) or "no provider"
    return f"{OPTION_FLAGS[option]} is not supported by the {name} provider{f': {note}' if note else ''} " \
           f"({others} only)"
