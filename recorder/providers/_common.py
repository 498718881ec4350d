"""What the three API adapters share: the SDK client, reading the key, naming SDK failures, the strict answer schema.

`SdkProvider` is the part every adapter over the openai or anthropic SDK has (naming failures, listing
models for `wismo doctor`, closing); `HostedProvider` adds the set-up the two hosted APIs share (the
default model and key variable, the reasoning efforts the API knows, the retry policy, the client).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar

from core.errors import WismoError
from recorder.providers.base import ModelListing, ProviderBase, ProviderError, ProviderSettings
from recorder.providers.retry import Failure, RetryPolicy, Sleep

MESSAGE_LIMIT = 300


@dataclass(frozen=True)
class ApiKey:
    """The key and the variable it came from; its repr never shows the value."""

    env: str
    value: str | None

    def __repr__(self) -> str:
        return f"ApiKey(env={self.env!r}, value={'<set>' if self.value else None})"


def read_key(env: str, *, vendor: str, required: bool = True) -> ApiKey:
    """Read the key from the environment variable `env`; a required key that is unset is a WismoError."""
    value = os.environ.get(env) or None
    if value is None and required:
        raise WismoError(f"{env} is not set: export your {vendor} API key in {env} "
                         f"(or name another variable with --api-key-env)")
    return ApiKey(env, value)


class SdkProvider(ProviderBase):
    """An adapter over a vendor SDK's client: how it names failures, lists models and closes."""

    sdk: ModuleType  # the vendor SDK, imported when the provider is built
    client: Any  # the SDK's async client
    key: ApiKey
    who: str  # who answered, in messages: "OpenAI", "the server at http://…"

    def classify(self, err: BaseException) -> Failure | None:
        """Name an SDK failure for the retry loop."""
        return classify_sdk_error(err, self.sdk, who=self.who, key=self.key)

    def parsed(self, value: Any) -> Any:
        """The SDK's parsed response; a 2xx body that was not JSON is malformed_response."""
        return require_parsed(value, who=self.who, key=self.key)

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        await self.client.close()

    async def model_listing(self, ask: Callable[[], Awaitable[list[str]]]) -> ModelListing:
        """The model ids `ask` gets from the models API, or why it got none (a 404 lists nothing)."""
        try:
            return ModelListing(tuple(await ask()))
        except self.sdk.NotFoundError:
            return ModelListing()
        except self.sdk.APIError as err:
            reason = scrub(" ".join(str(getattr(err, "message", err)).split())[:200], self.key.value)
            if isinstance(err, self.sdk.AuthenticationError | self.sdk.PermissionDeniedError):
                return ModelListing(failure="auth", reason=reason)
            if isinstance(err, self.sdk.APIConnectionError):  # a timeout is one too
                return ModelListing(failure="unreachable", reason=reason)
            return ModelListing(failure="other", reason=reason)


class HostedProvider(SdkProvider):
    """The set-up the OpenAI Responses and Anthropic Messages adapters share."""

    vendor: ClassVar[str]  # "OpenAI": in the label, the messages and the missing-key hint
    api: ClassVar[str]  # "Responses API": in the label and the messages
    default_model: ClassVar[str]
    default_key_env: ClassVar[str]
    efforts: ClassVar[tuple[str, ...]]  # the reasoning efforts the API knows

    def __init__(self, settings: ProviderSettings, *, sleep: Sleep | None = None,
                 rand: Callable[[], float] | None = None) -> None:
        self.sdk = self.import_sdk()
        if settings.reasoning_effort is not None and settings.reasoning_effort not in self.efforts:
            raise WismoError(f"--reasoning-effort {settings.reasoning_effort!r} is not one the {self.api} "
                             f"knows ({', '.join(self.efforts)})")
        self.model = settings.model or self.default_model
        self.base_url = settings.base_url
        self.label = f"{self.vendor} {self.api}, {self.model}"
        self.who = self.vendor
        self.key = read_key(settings.api_key_env or self.default_key_env, vendor=self.vendor)
        self.effort = settings.reasoning_effort
        self.strict_tools = settings.strict_tools
        self.policy = RetryPolicy.from_settings(settings, sleep=sleep, rand=rand)
        self.client = self.open_client()

    def import_sdk(self) -> ModuleType:
        """The vendor SDK, imported here so the offline path never loads it."""
        raise NotImplementedError

    def open_client(self) -> Any:
        """The SDK's async client for the key and base URL, retrying nothing (call_with_retries does)."""
        raise NotImplementedError

    async def listed_models(self, timeout_s: float) -> ModelListing:
        """The model as the hosted API's models endpoint returns it (`GET /v1/models/{id}`)."""
        async def ask() -> list[str]:
            return [(await self.client.models.retrieve(self.model, timeout=timeout_s)).id]
        return await self.model_listing(ask)


def scrub(text: str, secret: str | None) -> str:
    """`text` with every occurrence of the secret replaced, so an echoing server cannot leak it."""
    return text.replace(secret, "[redacted]") if secret else text


def api_message(err: BaseException) -> str:
    """The human part of an API error body (`error.message`), else the exception text, shortened."""
    body = getattr(err, "body", None)
    message: Any = None
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
    if not isinstance(message, str) or not message:
        message = str(err)
    message = " ".join(message.split())
    return message if len(message) <= MESSAGE_LIMIT else message[:MESSAGE_LIMIT] + "…"


def classify_sdk_error(err: BaseException, sdk: ModuleType, *, who: str, key: ApiKey) -> Failure | None:
    """Turn an openai/anthropic SDK exception into a Failure; None for anything that is not an API failure.

    Both SDKs are generated from the same template, so APIStatusError, APITimeoutError and
    APIConnectionError exist under those names in each. The key is scrubbed from every message.
    """
    if isinstance(err, sdk.APITimeoutError):
        return Failure("timeout", f"{who} did not answer within the request timeout")
    if isinstance(err, sdk.APIConnectionError):
        return Failure("connection", scrub(f"could not reach {who}: {api_message(err)}", key.value))
    if isinstance(err, sdk.APIStatusError):
        status = err.status_code
        detail = scrub(api_message(err), key.value)
        headers = dict(err.response.headers.items())
        if status in (401, 403):
            source = f"the API key from {key.env}" if key.value else "the request (no API key was set)"
            return Failure("auth", f"{who} rejected {source} ({status}): {detail}", status)
        if status == 429:
            return Failure("rate_limited", f"{who} rate limit (429): {detail}", status, headers)
        if status >= 500:
            return Failure("server_error", f"{who} server error ({status}): {detail}", status, headers)
        if 400 <= status < 500:
            return Failure("bad_request", f"{who} refused the request ({status}): {detail}", status)
        return Failure("other", f"{who} answered {status}: {detail}", status)
    if isinstance(err, sdk.APIError):
        return Failure("other", scrub(f"{who}: {api_message(err)}", key.value))
    if isinstance(err, ValueError) and type(err).__name__ in ("JSONDecodeError", "UnicodeDecodeError"):
        # The SDK could not parse a 2xx body: the provider's fault, never the model's answer.
        return Failure("malformed_response", scrub(f"{who} answered with a body that is not JSON ({err})", key.value))
    return None


def require_parsed(value: Any, *, who: str, key: ApiKey) -> Any:
    """The SDK's parsed response; a 2xx body that was not JSON (the SDK hands back its text) is malformed_response."""
    if isinstance(value, str | bytes):
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        excerpt = " ".join(text.split())[:120] or "(empty)"
        raise ProviderError("malformed_response",
                            scrub(f"{who} answered with a body that is not JSON: {excerpt!r}", key.value))
    return value


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of `schema` that OpenAI's strict structured output accepts.

    Strict mode needs `additionalProperties: false` and every property listed in `required` on every
    object; a property that was optional becomes nullable instead, so its meaning is kept.
    """
    result = copy.deepcopy(schema)
    _make_strict(result)
    return result


def _make_strict(node: Any) -> None:
    """Apply the strict rules in place, recursively."""
    if isinstance(node, list):
        for item in node:
            _make_strict(item)
        return
    if not isinstance(node, dict):
        return
    properties = node.get("properties")
    if node.get("type") == "object" or isinstance(properties, dict):
        properties = properties if isinstance(properties, dict) else {}
        node["properties"] = properties
        required = set(node.get("required", ()))
        for name, prop in properties.items():
            if name not in required and isinstance(prop, dict):
                properties[name] = _nullable(prop)
        node["required"] = list(properties)
        node["additionalProperties"] = False
    for key in ("properties", "$defs", "definitions"):
        if isinstance(node.get(key), dict):
            for child in node[key].values():
                _make_strict(child)
    for key in ("items", "anyOf", "oneOf", "allOf", "prefixItems"):
        if key in node:
            _make_strict(node[key])


def _nullable(prop: dict[str, Any]) -> dict[str, Any]:
    """`prop` that also admits null."""
    if isinstance(prop.get("enum"), list) and None not in prop["enum"]:
        prop = {**prop, "enum": [*prop["enum"], None]}
        if "type" not in prop:
            return prop
    kind = prop.get("type")
    if isinstance(kind, str):
        return {**prop, "type": [kind, "null"]} if kind != "null" else prop
    if isinstance(kind, list):
        return prop if "null" in kind else {**prop, "type": [*kind, "null"]}
    if "enum" in prop:
        return prop
    if "anyOf" in prop:
        if any(option.get("type") == "null" for option in prop["anyOf"] if isinstance(option, dict)):
            return prop
        return {**prop, "anyOf": [*prop["anyOf"], {"type": "null"}]}
    return {"anyOf": [prop, {"type": "null"}]}


def to_json_text(value: Any) -> str:
    """Compact JSON text with non-ASCII kept, for arguments an API returned already parsed."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def dump(model: Any) -> Any:
    """A vendor SDK model as the JSON the server sent (fields it did not send are left out)."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)
