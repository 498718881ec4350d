"""What manifest.json records about a run, secrets stripped: built through the run format's Manifest model."""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core import __version__
from core.domain.answer import ANSWER_SCHEMA, answer_schema
from core.domain.dataset import DEFAULT_DATASET_DIR, Dataset
from core.runformat import SCHEMA_VERSION
from core.runformat.manifest import Manifest
from core.runformat.redact import SECRET_NAME, Redactor, strip_url_secrets
from core.runformat.write import now_iso
from recorder.agent.instructions import build_instructions
from recorder.agent.loop import ConversationPlan
from recorder.designs.choose import DesignChoice
from recorder.designs.mcp_client import ToolServer
from recorder.providers import traits_of
from recorder.providers.base import Provider, ProviderSettings

if TYPE_CHECKING:
    from recorder.run.options import RecordOptions


def redact_command_line(argv: Sequence[str], redactor: Redactor | None = None) -> list[str]:
    """The command line as recorded: secret flags' values, URL credentials and any live key value hidden."""
    redactor = redactor or Redactor.from_environment()
    redacted: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            redacted.append("[redacted]")
            hide_next = False
            continue
        flag, sep, _ = arg.partition("=")
        secret_flag = flag.startswith("--") and SECRET_NAME.search(flag) and flag != "--api-key-env"
        if secret_flag and sep:
            redacted.append(f"{flag}=[redacted]")
        elif secret_flag:
            redacted.append(arg)
            hide_next = True
        else:
            redacted += redactor.scrub_args([arg])
    return redacted


def dataset_reference(dataset: Dataset) -> str:
    # The packaged dataset is named, not pathed, so a run recorded on one machine resumes on another.
    return "default" if dataset.folder == DEFAULT_DATASET_DIR.resolve() else str(dataset.folder)


def build_manifest(run_id: str, options: RecordOptions, choice: DesignChoice, provider: Provider, dataset: Dataset,
                   plans: list[ConversationPlan], servers: dict[str, ToolServer], redactor: Redactor) -> Manifest:
    # The order size the crossover view plots against (a case about a missing order has none).
    lines = {order.orderId: len(order.items) for order in dataset.records.orders}
    guidance = options.guidance.text if options.guidance else None
    # Built through the model, so the manifest cannot hold a field the run format does not define.
    return Manifest.model_validate({
        "schemaVersion": SCHEMA_VERSION,
        "wismoVersion": __version__,
        "runId": run_id,
        "provider": {"name": provider.name, "label": redactor.scrub(provider.label),
                     "isLanguageModel": provider.traits.is_language_model,
                     "pricingVendor": provider.traits.pricing_vendor, "options": provider.request_options()},
        "model": provider.model,
        "baseUrl": strip_url_secrets(options.base_url) if options.base_url else None,
        "apiKeyEnv": options.api_key_env,
        "tokenCounts": "provider-reported" if provider.traits.is_language_model
        else "estimated offline with o200k_base (bpe-openai) over the Responses API request",
        "dataset": {"name": dataset.name, "folder": dataset_reference(dataset), "hash": dataset.content_hash,
                    "clock": dataset.records.clock},
        "cases": [{**case.model_dump(mode="json", include={"caseId", "orderId", "question"}),
                   "asks": list(case.asks), "expected": case.expectation(), "orderLines": lines.get(case.orderId)}
                  for case in dataset.cases if any(p.case_id == case.caseId for p in plans)],
        "designs": list(choice.names),
        "baseline": choice.baseline,
        "designSources": design_sources(choice, servers),
        "repetitions": options.repetitions,
        "concurrency": options.concurrency,
        "budgets": options.budgets.to_json(),
        **provider.request_shape(),
        "textToolCalls": options.text_tool_calls,
        "instructions": build_instructions(dataset.records.clock, guidance=guidance),
        "userInstructions": {"file": options.guidance.file, "sha256": options.guidance.sha256,
                             "text": options.guidance.text} if options.guidance else None,
        "answerSchema": ANSWER_SCHEMA,
        "questionKinds": [{"asks": list(asks),
                           "instructions": build_instructions(dataset.records.clock, asks, guidance),
                           "answerSchema": answer_schema(asks)} for asks in dict.fromkeys(p.asks for p in plans)],
        "tools": {d: [{"name": t.name, "description": t.description, "parameters": t.parameters}
                      for t in s.tool_specs()] for d, s in servers.items()},
        "toolsListed": {d: s.tools_raw for d, s in servers.items()},
        "serverCommands": {spec.name: spec.source()["command"] for spec in choice.designs if spec.command},
        "plan": [p.to_json() for p in plans],
        "startedAt": now_iso(),
        "finishedAt": None,
        "resumes": [],
        "commandLine": redact_command_line(options.command_line, redactor),
        "host": {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count()},
    })


def with_changes(manifest: Manifest, changes: dict[str, Any]) -> Manifest:
    """The manifest with some top-level fields replaced (given as JSON), validated again like the first."""
    return Manifest.model_validate({**manifest.model_dump(mode="json"), **changes})


def design_sources(choice: DesignChoice, servers: dict[str, ToolServer]) -> dict[str, dict[str, Any]]:
    """Per design: its command or URL (no secrets), the headers it was sent by name, its name and version."""
    return {spec.name: {**spec.source(), "serverName": servers[spec.name].server_name,
                        "serverVersion": servers[spec.name].server_version} for spec in choice.designs}


def provider_settings(name: str, model: str | None, base_url: str | None, api_key_env: str | None,
                      structured_output: dict[str, Any] | None, tool_choice: str | None, *,
                      reasoning_effort: str | None = None, prompt_cache: bool = True,
                      strict_tools: bool = False) -> ProviderSettings:
    """Settings for a new run (`structured_output` holds only `requested`) or a resumed one (all of it).

    The answer format and the tool choice reach only a provider whose traits say it honours them.
    """
    honoured = traits_of(name).options
    extra: dict[str, Any] = {}
    if "structured_output" in honoured:
        answer_format = structured_output or {}
        extra |= {"structured_output": answer_format.get("requested", "auto"),
                  "structured_output_used": answer_format.get("used"),
                  "structured_output_fallbacks": answer_format.get("fallbacks")}
    if "tool_choice" in honoured:
        extra["tool_choice"] = tool_choice or "auto"
    return ProviderSettings(model=model, base_url=base_url, api_key_env=api_key_env, extra=extra,
                            reasoning_effort=reasoning_effort, prompt_cache=prompt_cache, strict_tools=strict_tools)


def settings_of_run(manifest: Manifest, base_url: str | None) -> ProviderSettings:
    """The provider settings a run was recorded with: a resume sends what the run sent (model, base URL,
    answer format, tool choice, reasoning effort, cache markers, tool strictness)."""
    sent = manifest.provider.options
    answer_format = manifest.structuredOutput.model_dump(mode="json") if manifest.structuredOutput else None
    return provider_settings(manifest.provider.name, manifest.model, base_url, manifest.apiKeyEnv,
                             answer_format, manifest.toolChoice,
                             reasoning_effort=sent.reasoningEffort,
                             prompt_cache=sent.promptCaching != "off",
                             strict_tools=sent.strictTools)
