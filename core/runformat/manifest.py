"""The model of manifest.json: what a run was asked to do and exactly what the model was given.

`record` builds the manifest through `Manifest` (so it cannot write a field the format does not
define); `core.runformat.read.read_manifest` validates a manifest against it and names the field
that is wrong. Every field carries a description; docs/run-format.md's table is generated from them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.domain.fields import DEFAULT_ASKS
from core.runformat import SCHEMA_VERSION


def _doc(text: str, **kwargs: Any) -> Any:
    return Field(description=text, **kwargs)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RequestOptions(_Model):
    """What the provider sent beyond the conversation; null where it does not apply or the API's default held."""

    reasoningEffort: str | None = _doc("the reasoning effort asked for (--reasoning-effort); null: the model's "
                                       "default", default=None)
    promptCaching: str | None = _doc("markers: cache_control breakpoints sent (Anthropic); off: --no-cache; "
                                     "automatic: the API caches long prompts on its own (OpenAI)", default=None)
    structuredOutput: str | None = _doc("json_schema: the API constrains the answer to answerSchema; auto: it does "
                                        "when the model supports it, else the instructions ask for it (each "
                                        "model_response's answerFormat says which); instructions: never asked",
                                        default=None)
    strictTools: bool = _doc("function tools sent with strict: true (--strict-tools)", default=False)


# Runs recorded before the manifest named its provider's pricing vendor: the vendor each provider
# name had then. History, never extended: every provider names its own vendor in the runs it records
# (its traits), and a test holds each name here to the vendor its provider still records.
PRICING_VENDORS_BEFORE_THE_FIELD: dict[str, str] = {"openai": "openai", "anthropic": "anthropic"}


def pricing_vendor(provider: str | None, recorded: str | None) -> str | None:
    """The genai-prices provider id to price a run's models under: the one it recorded, else its name's then.

    None: no vendor, so a language model's tokens are priced by the run's base URL.
    """
    if recorded is not None:
        return recorded
    return PRICING_VENDORS_BEFORE_THE_FIELD.get(provider or "")


class ProviderInfo(_Model):
    """Which provider answered."""

    name: str = _doc("the provider's registry name (scripted, openai, anthropic, openai-chat)")
    label: str = _doc("a readable description (secrets stripped)")
    isLanguageModel: bool = _doc("false for the scripted policy")
    pricingVendor: str | None = _doc(
        "the genai-prices provider id its models are priced under (openai, anthropic); left out when it has none "
        "(openai-chat: priced by the run's base URL; scripted: estimates). Runs recorded before this field are "
        "priced by the vendor their provider name had then (PRICING_VENDORS_BEFORE_THE_FIELD in "
        "core/runformat/manifest.py)", default=None, exclude_if=lambda vendor: vendor is None)
    options: RequestOptions = _doc("what it sent beyond the conversation", default_factory=RequestOptions)


class DatasetInfo(_Model):
    """Which dataset the run used."""

    name: str = _doc("the dataset's folder name")
    folder: str = _doc("`default` for the packaged dataset, else its path")
    hash: str = _doc("sha256 over records.json and cases.json: a resume refuses a changed dataset")
    clock: str = _doc("the dataset's fixed 'now'")


class CaseEntry(_Model):
    """One case of the run, as the dataset gave it."""

    caseId: str = _doc("the case's id")
    orderId: str = _doc("the order it asks about")
    question: str = _doc("the customer's words, sent as the first user message")
    asks: list[str] = _doc("the answer fields the case asks", default_factory=lambda: list(DEFAULT_ASKS))
    expected: dict[str, Any] = _doc("the expected value of every asked field")
    orderLines: int | None = _doc("the order's lines in the dataset (the crossover view's order size); null when "
                                  "the order is not in the records or the run predates this field", default=None)


class QuestionKind(_Model):
    """What a conversation whose case asks these fields received."""

    asks: list[str] = _doc("the answer fields asked")
    instructions: str = _doc("the instructions exactly as sent")
    answerSchema: dict[str, Any] = _doc("the JSON schema of the answer: the asked fields plus customerSummary")


class BudgetsInfo(_Model):
    """The limits on every conversation."""

    maxTurns: int = _doc("model requests per conversation")
    maxToolCalls: int = _doc("tool calls per conversation")
    requestTimeoutS: float = _doc("seconds one model request may take")
    conversationDeadlineS: float = _doc("seconds one conversation may take in all")
    maxOutputTokens: int | None = _doc("the output-token cap sent on every model request (--max-output-tokens), "
                                       "as the API names it; left out in runs recorded before the cap existed",
                                       default=None, exclude_if=lambda cap: cap is None)
    maxToolResultBytes: int | None = _doc(
        "the UTF-8 bytes one tool result may hold (--max-tool-result-bytes): a bigger one is kept in the trace "
        "only as its beginning and a marker, never sent to the model, and ends its conversation as "
        "budget_exhausted (max_tool_result_bytes); left out in runs recorded before the limit existed",
        default=None, exclude_if=lambda limit: limit is None)


class ToolDefinition(_Model):
    """A tool exactly as the model received it."""

    name: str = _doc("the tool's name")
    description: str = _doc("its description")
    parameters: dict[str, Any] = _doc("its input schema")


class PlanEntry(_Model):
    """One planned conversation."""

    conversationId: str = _doc("`<caseId>.<design>.r<repetition>`")
    caseId: str = _doc("the case")
    design: str = _doc("the design")
    repetition: int = _doc("1..repetitions")
    pairIndex: int = _doc("the (case, repetition) group: every design runs it once")
    pairPosition: int = _doc("this design's place in its group's order, 1 when it goes first", ge=1)


class DesignSource(_Model):
    """Where one design's MCP server came from, and what it said about itself."""

    command: list[str] | None = _doc("the command that started it over stdio (null for a URL)", default=None)
    url: str | None = _doc("the streamable HTTP endpoint it was reached at, userinfo and secret query "
                           "parameters stripped (null for a command)", default=None)
    headers: list[str] = _doc("the names of the HTTP headers sent (never their values)", default_factory=list)
    builtIn: bool = _doc("one of wismo's own designs (granular, focused)", default=False)
    serverName: str | None = _doc("the name the server gave in its initialize result", default=None)
    serverVersion: str | None = _doc("the version the server gave in its initialize result", default=None)


class ResumeEntry(_Model):
    """One `--resume` of the run."""

    at: str = _doc("when it began")
    commandLine: list[str] = _doc("its command line, secrets redacted")
    rerun: int = _doc("conversations it set out to run")
    repairedLine: int | None = _doc("a truncated last line it found, if any")


class DiscardedTokens(_Model):
    """The usage of a reply wismo discarded to send its request again (null: the server reported none)."""

    input: int | None = _doc("input tokens")
    output: int | None = _doc("output tokens")


class FormatFallback(_Model):
    """One answer format the server refused, so `auto` moved on."""

    rejected: str = _doc("the format the server refused (json_schema or json_object), or whose grammar left no "
                         "room for a tool call")
    reason: str = _doc("the server's error, shortened; for a schema grammar, what the two requests got")
    at: str = _doc("when it happened")
    cause: Literal["refused", "schema_grammar"] = _doc(
        "refused: the server refused the format; schema_grammar: with it the first request with tools got no "
        "tool call, without it one (absent in runs recorded before wismo checked: refused)", default="refused")
    discardedTokens: DiscardedTokens | None = _doc(
        "schema_grammar: the tokens of the reply that was sent again without the format (not in any "
        "conversation's counters)", default=None)


class StructuredOutputInfo(_Model):
    """How the answer's JSON format was asked for (openai-chat's `--structured-output`)."""

    requested: Literal["auto", "json_schema", "json_object", "off"] = _doc(
        "what the run was asked to send; auto starts with json_schema and falls back")
    used: Literal["json_schema", "json_object", "off"] = _doc(
        "the format sent when the run last stopped (off: no response_format; the instructions describe the JSON)")
    fallbacks: list[FormatFallback] = _doc("every format the server refused or whose grammar allowed no tool call, "
                                           "in order", default_factory=list)


class UserInstructions(_Model):
    """The user's own instructions (--instructions FILE), which replaced wismo's guidance for every design."""

    file: str = _doc("the file as given on the command line")
    sha256: str = _doc("sha256 of its text, `sha256:<hex>`")
    text: str = _doc("its text; every design's instructions are this, then the answer format wismo appends")


class HostInfo(_Model):
    """The machine that recorded the run."""

    python: str = _doc("the Python version")
    platform: str = _doc("the platform string")
    cpus: int | None = _doc("logical CPUs")


class Manifest(_Model):
    """manifest.json."""

    schemaVersion: Literal[1] = _doc("the schema version", default=SCHEMA_VERSION)
    wismoVersion: str = _doc("the version of wismo that recorded the run")
    runId: str = _doc("the run folder's name")
    provider: ProviderInfo = _doc("which provider answered")
    model: str = _doc("the model id requested")
    baseUrl: str | None = _doc("the API base URL, userinfo and secret query parameters stripped")
    apiKeyEnv: str | None = _doc("the variable the key was read from (never its value)")
    tokenCounts: str = _doc("provider-reported, or how the counts were estimated")
    dataset: DatasetInfo = _doc("which dataset")
    cases: list[CaseEntry] = _doc("the cases of the plan, with their expectations")
    designs: list[str] = _doc("the designs recorded, in order")
    baseline: str | None = _doc("the design every other is compared with (--baseline); null in runs recorded "
                                "before it could be chosen: the first design", default=None)
    designSources: dict[str, DesignSource] = _doc("per design, where its server came from (a command or a URL) "
                                                  "and its name and version; empty in runs recorded before "
                                                  "designs could be brought", default_factory=dict)
    repetitions: int = _doc("repetitions of every (case, design)")
    concurrency: int = _doc("conversations in flight at once")
    budgets: BudgetsInfo = _doc("the limits on every conversation")
    structuredOutput: StructuredOutputInfo | None = _doc(
        "openai-chat's answer format and its fallbacks; null for a provider whose format is fixed", default=None)
    toolChoice: Literal["auto", "required", "first-tool"] | None = _doc(
        "openai-chat's tool_choice: auto on every request, or a tool forced on each conversation's first request "
        "(required, or first-tool: the design's first tool by name); null when the provider sends none",
        default=None)
    textToolCalls: bool = _doc(
        "--text-tool-calls: tool calls the model wrote in its message text (fenced JSON, <tool_call> tags, "
        "<function> elements, bare JSON naming a tool) were read as calls; each is marked fromText in the trace. "
        "Not native tool calling. Left out when false", default=False, exclude_if=lambda used: not used)
    instructions: str = _doc("the instructions for the default question (every field but paymentStatus); "
                             "questionKinds holds what each case's question received")
    userInstructions: UserInstructions | None = _doc(
        "--instructions FILE: the user's guidance that replaced wismo's default; left out when the default was sent",
        default=None, exclude_if=lambda given: given is None)
    answerSchema: dict[str, Any] = _doc("the JSON schema of the default question's answer")
    questionKinds: list[QuestionKind] = _doc("per distinct `asks` of the run's cases, the instructions and answer "
                                             "schema its conversations received (empty in runs recorded before "
                                             "cases could ask for part of the answer)", default_factory=list)
    tools: dict[str, list[ToolDefinition]] = _doc("per design, the tools exactly as the model received them")
    toolsListed: dict[str, list[dict[str, Any]]] = _doc("per design, the raw `tools/list` entries")
    serverCommands: dict[str, list[str]] = _doc("per design, the command that started its MCP server")
    plan: list[PlanEntry] = _doc("every planned conversation")
    startedAt: str = _doc("when the run began")
    finishedAt: str | None = _doc("when the last invocation ended; null while it runs")
    resumes: list[ResumeEntry] = _doc("every --resume")
    commandLine: list[str] = _doc("the command line, secrets redacted")
    host: HostInfo = _doc("the machine")
