"""The provider registry: a provider is one module and one `register` line, and one that lacks part of the
contract is refused when it is registered, naming the provider and what it lacks.

The worked example of docs/providers.md is run as it is written: registered the same way, recorded
against a loopback server over real HTTP, and validated.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import sys
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest

from analysis import validate_runs
from core.errors import WismoError
from recorder.providers import REGISTRY, ProviderDefinitionError, create_provider, register
from recorder.providers.base import ProviderBase, ProviderSettings, ProviderTraits
from recorder.providers.doc import generated_section
from recorder.providers.scripted import ScriptedProvider
from recorder.run.manifest import provider_settings
from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.helpers import ROOT
from wismo.loopback import FakeServer
from wismo.loopback.policy import PolicyModel

DOC = ROOT / "docs" / "providers.md"
TRAITS = ProviderTraits(about="a test's model", is_language_model=True, model="optional", base_url="optional",
                        api_key_env="unused", local_server=False, options={}, doctor=None, pricing_vendor=None)


@pytest.fixture
def registry():
    """The registry as it was, put back after the test (a test registers classes the way the registry does)."""
    saved = dict(REGISTRY)
    yield REGISTRY
    REGISTRY.clear()
    REGISTRY.update(saved)


def provider_class(name: str = "tiny", **attributes: Any) -> type:
    """A provider class with the whole contract, less what `attributes` sets to None, plus what it adds."""
    async def complete(self, request):
        raise AssertionError("never sent")

    async def aclose(self):
        pass

    def __init__(self, settings):
        type(self).built += 1
        self.model, self.label = settings.model or "m", "tiny"

    namespace: dict[str, Any] = {"name": name, "traits": TRAITS, "complete": complete, "aclose": aclose,
                                 "__init__": __init__, "built": 0, "__module__": "tests.planted"}
    namespace.update(attributes)
    for key in [k for k, v in namespace.items() if v is None]:
        del namespace[key]
    return type("Tiny", (ProviderBase,), namespace)


def test_a_whole_provider_is_registered_and_built_by_name(registry):
    cls = register(provider_class())
    assert registry["tiny"] is cls
    provider = create_provider("tiny", ProviderSettings(model="x"))
    assert isinstance(provider, cls) and provider.model == "x" and provider.is_language_model


@pytest.mark.parametrize(("attributes", "missing"), [
    ({"traits": None}, "declares no traits (a class attribute `traits = ProviderTraits(...)`"),
    ({"traits": {"is_language_model": True}}, "declares no traits"),
    ({"name": None}, "declares no name"),
    ({"complete": None}, "has no async complete()"),
    ({"aclose": lambda self: None}, "aclose() must be async"),
    ({"traits": replace(TRAITS, doctor="through_provider")},
     "declares doctor probes (through_provider) but does not define async listed_models()"),
    ({"traits": replace(TRAITS, base_url="sometimes")},
     "traits.base_url must be one of unused, optional, required, not 'sometimes'"),
    ({"traits": replace(TRAITS, options={"temperature": "temperature"})},
     "traits.options names options wismo does not have: temperature"),
    ({"traits": replace(TRAITS, local_server=True, base_url="unused")}, "traits.local_server needs a base URL"),
    ({"traits": replace(TRAITS, pricing_vendor="")}, "traits.pricing_vendor must be a genai-prices provider id"),
])
def test_a_provider_missing_a_capability_is_refused_at_registration_naming_both(registry, attributes, missing):
    cls = provider_class(**attributes)
    with pytest.raises(ProviderDefinitionError) as refused:
        register(cls)
    message = str(refused.value)
    assert missing in message
    assert message.startswith("provider 'tiny' (tests.planted.Tiny): ") or "name" in missing, message
    assert "tiny" not in registry


def test_a_trait_left_out_fails_where_the_class_is_defined_naming_it():
    declared = {f.name: getattr(TRAITS, f.name) for f in fields(ProviderTraits)}
    del declared["pricing_vendor"]
    with pytest.raises(TypeError, match="pricing_vendor"):
        ProviderTraits(**declared)


def test_a_class_put_in_the_registry_directly_is_checked_before_it_is_built(monkeypatch):
    cls = provider_class("bare", traits=None)
    monkeypatch.setitem(REGISTRY, "bare", cls)
    with pytest.raises(ProviderDefinitionError, match=r"provider 'bare' .*declares no traits"):
        create_provider("bare", ProviderSettings())
    assert cls.built == 0
    monkeypatch.setitem(REGISTRY, "other-name", provider_class("bare"))
    with pytest.raises(ProviderDefinitionError, match="is registered as 'other-name' but names itself 'bare'"):
        create_provider("other-name", ProviderSettings())


def test_a_second_class_under_a_registered_name_is_refused(registry):
    register(provider_class())
    with pytest.raises(ProviderDefinitionError, match="both register under that name"):
        register(provider_class())
    with pytest.raises(ProviderDefinitionError, match="'scripted'"):
        register(type("Impostor", (ScriptedProvider,), {}))


def test_an_option_is_refused_from_the_traits_before_the_key_is_read(monkeypatch, registry):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(WismoError) as refused:
        create_provider("openai", ProviderSettings(prompt_cache=False))
    assert str(refused.value) == ("--no-cache is not supported by the openai provider: it caches long prompts "
                                  "automatically and has no switch; every run shows input tokens with and without "
                                  "cached tokens (anthropic only)")
    # Which providers honour an option comes from their traits: a new one joins the list.
    register(provider_class(traits=replace(TRAITS, options={"strict_tools": "strict"})))
    with pytest.raises(WismoError, match=r"--strict-tools is not supported by the scripted provider "
                                         r"\(openai, anthropic and tiny only\)"):
        create_provider("scripted", ProviderSettings(strict_tools=True))
    assert create_provider("tiny", ProviderSettings(strict_tools=True)).model == "m"


def test_the_answer_format_and_tool_choice_reach_only_a_provider_that_honours_them(registry):
    register(provider_class(traits=replace(TRAITS, options={"tool_choice": "tool_choice"})))
    honours = provider_settings("tiny", None, None, None, {"requested": "json_object"}, "required")
    assert honours.extra == {"tool_choice": "required"}
    chat = provider_settings("openai-chat", "m", "http://x/v1", None, {"requested": "json_object"}, "required")
    assert chat.extra == {"structured_output": "json_object", "structured_output_used": None,
                          "structured_output_fallbacks": None, "tool_choice": "required"}
    assert provider_settings("openai", None, None, None, {"requested": "json_object"}, "required").extra == {}


def _example_module(tmp_path: Path) -> Any:
    """The worked example of docs/providers.md, imported from the code block as it is written."""
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"<!-- example-provider -->\n```python\n(.*?)\n```", text, re.S)
    assert block, "docs/providers.md has no example-provider block"
    path = tmp_path / "plain_chat.py"
    path.write_text(block.group(1) + "\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("plain_chat_example", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_documented_example_provider_records_a_run_that_validates(tmp_path, registry):
    example = _example_module(tmp_path)
    register(example.PlainChatProvider)
    model = PolicyModel("chat", [])
    with FakeServer(model) as fake:
        refused = RecordOptions(provider="plain-chat", model="m", base_url=fake.url + "/v1", api_key_env="KEY",
                                out_dir=tmp_path / "runs")
        with pytest.raises(WismoError, match=r"--api-key-env do\(es\) not apply to the plain-chat provider "
                                             r"\(a Chat Completions server reached over plain HTTP\)"):
            asyncio.run(record(refused))
        result = asyncio.run(record(RecordOptions(
            provider="plain-chat", model="local-model", base_url=fake.url + "/v1", repetitions=1,
            out_dir=tmp_path / "runs", run_id="plain", concurrency=2)))
    manifest = json.loads((result.run_dir / "manifest.json").read_text())
    # The loopback's policy never sees the answer schema (the request carries none), so it answers a
    # payment question with the default question's fields: the loop rejects that answer, rightly.
    payment = {case["caseId"] for case in manifest["cases"] if "paymentStatus" in case["asks"]}
    seen = {plan.case_id: outcome.status for plan, outcome in result.outcomes}
    assert len(result.outcomes) == 24 and payment and len(payment) < 12
    assert seen == {case: "invalid_answer" if case in payment else "answered" for case in seen}
    # Chat Completions has no error flag on a tool message, so over this wire the policy reads granular's
    # "no such reservation" as a record: the one answered conversation that does not pass.
    assert [(p.case_id, p.design) for p, o in result.outcomes if o.status == "answered" and not o.passed] == \
        [("missing-warehouse-record", "granular")]
    assert model.requests >= 2 * len(result.outcomes)  # every conversation called a tool over the wire, then answered
    assert manifest["provider"] == {"name": "plain-chat", "isLanguageModel": True,
                                    "label": f"plain HTTP Chat Completions at {fake.url}/v1, local-model",
                                    "options": {"reasoningEffort": None, "promptCaching": None,
                                                "structuredOutput": None, "strictTools": False}}
    assert manifest["tokenCounts"] == "provider-reported" and manifest["toolChoice"] is None
    [validation] = validate_runs([result.run_dir])
    assert validation.checks and validation.passed, [c for c in validation.checks if not c.passed]
    assert validation.run.provider == "plain-chat" and validation.run.is_language_model


def test_the_providers_page_lists_every_trait_and_its_table_is_generated():
    text = DOC.read_text(encoding="utf-8")
    assert generated_section() in text, "run `python -m recorder.providers.doc --write`"
    for trait in fields(ProviderTraits):
        assert f"`{trait.name}`" in text, trait.name
    assert "docs/providers.md" in (ROOT / "README.md").read_text(encoding="utf-8")
