"""Money: what a conversation cost in USD, from the tokens its provider reported.

Prices come from genai-prices (pydantic's price data, bundled with the package and dated per price
change; it works offline and is never asked to update), looked up for each model response with the
response's timestamp, so the price in force that day applies. A `--prices FILE` (load_price_file,
format in docs/analysis.md) overrides it for the models it names and prices models it does not know.

A model no source prices costs "unknown", never zero. The scripted policy's token counts are wismo's
estimates, not a bill: they are priced only when the caller names a model to price them as
(`price_as`), and the cost says it is an estimate.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from importlib.metadata import version
from itertools import pairwise
from pathlib import Path
from typing import Any

from core.errors import WismoError

MILLION = Decimal(1_000_000)
PRICE_FILE_VERSION = 1


class PriceFileError(WismoError):
    """A --prices file that cannot be used; the message names the file and the field."""


# Why a conversation has no price, and the notes beside a price (the same words wherever it is priced).
ESTIMATE_REASON = "the token counts are wismo's estimates, not a provider's: name a model to price them as"
NO_TOKENS_REASON = "no response reported any tokens"
CACHED_NOTE = "cached input not reported: all input priced at the input rate"


def unreported_note(requests: int) -> str:
    """The note on a conversation some of whose requests reported no tokens."""
    return f"{requests} request(s) reported no tokens and add nothing"


@dataclass(frozen=True)
class TokenUsage:
    """One model response's tokens: input includes the cached part (as wismo records every provider's)."""

    input_tokens: int | None
    output_tokens: int | None
    cached_tokens: int | None = None
    estimated: bool = False


@dataclass(frozen=True)
class TurnUsage:
    """One model response of a conversation: its tokens, the model it named and when it was written."""

    usage: TokenUsage
    model: str | None
    at: datetime | None = None


@dataclass(frozen=True)
class Rate:
    """USD per million tokens."""

    input: Decimal
    cached_input: Decimal
    output: Decimal


@dataclass(frozen=True)
class PriceSource:
    """Where a price came from: a library and its version, or a --prices file and the date it gives."""

    name: str
    version: str | None = None
    date: str | None = None

    def label(self) -> str:
        """E.g. `genai-prices 0.2.3` or `our contract (prices.json, dated 2026-11-30)`."""
        text = f"{self.name} {self.version}" if self.version else self.name
        return f"{text} ({self.date})" if self.date else text


def _usd(rate: Decimal) -> str:
    return f"${rate.normalize():f}"


@dataclass(frozen=True)
class AppliedPrice:
    """One price a cost was computed with: the model id it is listed under, its rates and its date.

    `since` is the date the library says this price took effect (None when its data gives the model a
    single undated price); a --prices file's date is its source's. `rate` is None for a price that
    depends on the prompt's size (genai-prices' tiered prices), which has no one rate to show.
    """

    model: str
    source: PriceSource
    rate: Rate | None
    since: date | None = None

    def label(self) -> str:
        """E.g. `gpt-5-mini: $0.25 input, … per million tokens (genai-prices 0.2.3, in force since 2025-08-07)`."""
        rates = (f"{_usd(self.rate.input)} input, {_usd(self.rate.cached_input)} cached input, "
                 f"{_usd(self.rate.output)} output per million tokens" if self.rate else "tiered by prompt size")
        if self.source.version:  # the library: its version names the data; the price's own date if it has one
            dated = f"in force since {self.since}" if self.since else "undated: the model's only price in it"
            return f"{self.model}: {rates} ({self.source.label()}, {dated})"
        return f"{self.model}: {rates} ({self.source.label()})"


@dataclass(frozen=True)
class Cost:
    """A cost in USD, or why it is unknown; `estimated` when the tokens were estimated, not reported."""

    usd: Decimal | None
    model: str | None  # the model id priced
    sources: tuple[PriceSource, ...] = ()
    estimated: bool = False
    priced_as: str | None = None  # the model named by the caller to price the tokens as
    unknown_reason: str | None = None
    notes: tuple[str, ...] = ()
    prices: tuple[AppliedPrice, ...] = ()  # the prices applied, to show beside the figure

    @property
    def known(self) -> bool:
        """True when a price was found for every response that reported tokens."""
        return self.usd is not None

    def label(self) -> str:
        """`$0.0123`, `≈$0.0123 (estimate, priced as gpt-5-mini)` or `unknown`."""
        if self.usd is None:
            return "unknown"
        amount = f"${self.usd.quantize(Decimal('0.0001'), rounding=ROUND_HALF_EVEN)}"
        if self.estimated:
            return f"≈{amount} (estimate{f', priced as {self.priced_as}' if self.priced_as else ''})"
        return amount


@dataclass(frozen=True)
class PriceFile:
    """The prices of a --prices file: per model id (lower case), with its source and date."""

    rates: dict[str, Rate]
    source: PriceSource

    def find(self, model: str) -> tuple[str, Rate] | None:
        """The entry for a model id: exact (ignoring case), else the longest key it starts with followed by "-"."""
        key = model.lower()
        if key in self.rates:
            return key, self.rates[key]
        prefixes = [k for k in self.rates if key.startswith(k + "-")]  # gpt-5-mini prices gpt-5-mini-2025-08-07
        if prefixes:
            best = max(prefixes, key=len)
            return best, self.rates[best]
        return None


def _decimal(path: Path, where: str, value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise PriceFileError(f"{path}: {where}: must be a number of USD per million tokens")
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        raise PriceFileError(f"{path}: {where}: {value!r} is not a number") from None
    if not number.is_finite() or number < 0:
        raise PriceFileError(f"{path}: {where}: must be zero or more")
    return number


def load_price_file(path: Path | str) -> PriceFile:
    """Read a --prices file: {"version": 1, "date", "source"?, "models": {id: {"input", "cachedInput"?, "output"}}}."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PriceFileError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise PriceFileError(f"{path}: line {exc.lineno}, column {exc.colno}: not valid JSON: {exc.msg}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("models"), dict) or not raw["models"]:
        raise PriceFileError(f"{path}: must be an object whose \"models\" maps model ids to prices")
    unknown = sorted(set(raw) - {"version", "source", "date", "models"})
    if unknown:
        raise PriceFileError(f"{path}: {unknown[0]}: is not a known field (version, source, date, models)")
    if raw.get("version") != PRICE_FILE_VERSION:
        raise PriceFileError(f"{path}: version: must be {PRICE_FILE_VERSION} (the price file format this wismo "
                             f"reads), not {raw.get('version')!r}")
    if raw.get("source") is not None and not isinstance(raw["source"], str):
        raise PriceFileError(f"{path}: source: must be a string")
    # Every figure names the date of its price: a file's prices are as of the date it states.
    try:
        dated = date.fromisoformat(raw["date"]) if isinstance(raw.get("date"), str) else None
    except ValueError:
        dated = None
    if dated is None:
        raise PriceFileError(f"{path}: date: is required, as YYYY-MM-DD (the day the prices were taken)")
    rates = {}
    for model, entry in raw["models"].items():
        where = f"models.{model}"
        if not isinstance(entry, dict):
            raise PriceFileError(f"{path}: {where}: must be an object with input and output")
        extra = sorted(set(entry) - {"input", "cachedInput", "output"})
        if extra:
            raise PriceFileError(f"{path}: {where}.{extra[0]}: is not a known field (input, cachedInput, output)")
        for required in ("input", "output"):
            if required not in entry:
                raise PriceFileError(f"{path}: {where}.{required}: is required")
        input_rate = _decimal(path, f"{where}.input", entry["input"])
        cached = _decimal(path, f"{where}.cachedInput", entry["cachedInput"]) if "cachedInput" in entry \
            else input_rate
        rates[model.lower()] = Rate(input_rate, cached, _decimal(path, f"{where}.output", entry["output"]))
    name = f"{raw['source']}, {path.name}" if raw.get("source") else path.name
    return PriceFile(rates, PriceSource(name, None, dated.isoformat()))


def library_source() -> PriceSource:
    """genai-prices and the version whose bundled data is used."""
    return PriceSource("genai-prices", version("genai-prices"))


def library_lookup(model: str, provider: str | None, vendor: str | None,
                   base_url: str | None) -> dict[str, str] | str:
    """How genai-prices is asked for a run's model: under its pricing vendor, else by its base URL; or why not.

    The vendor is the one the run's manifest recorded (a run recorded before the field: the vendor its
    provider name had then, core.runformat.manifest.pricing_vendor). A provider without one talks to
    any server, so only a base URL genai-prices knows has a price (a local server stays unknown).
    """
    # Imported here, not at the top: the manifest's module imports pydantic (a tenth of a second or more), which
    # `wismo summarize` otherwise never needs; analysis.analyze_run prices a run beside its checks.
    from core.runformat.manifest import pricing_vendor

    found = pricing_vendor(provider, vendor)
    if found is not None:
        return {"provider_id": found}
    if provider is None:  # a model named by the caller (--price-as): looked up by its name alone
        return {}
    if not base_url:
        return f"no price for {model}: provider {provider} has no base URL genai-prices knows"
    return {"provider_api_url": base_url}


@dataclass(frozen=True)
class RateBand:
    """The rates for a response whose prompt has more than `above` and at most `upto` input tokens (None: any)."""

    above: int
    upto: int | None
    rate: Rate
    request_fee: Decimal = Decimal(0)  # USD per response: a few models bill each request

    def usd(self, tokens_in: int, cached: int, tokens_out: int) -> Decimal:
        """One response's cost: uncached input, cached input and output at their rates, and the request fee."""
        rate = self.rate
        return ((tokens_in - cached) * rate.input + cached * rate.cached_input
                + tokens_out * rate.output) / MILLION + self.request_fee


@dataclass(frozen=True)
class PricePeriod:
    """One price of a model, in force from `start` to `end` (UTC; None for a response of unknown time)."""

    start: datetime | None
    end: datetime | None
    model: str  # the model id the source lists the price under, e.g. gpt-5-mini for gpt-5-mini-2025-08-07
    applied: AppliedPrice
    bands: tuple[RateBand, ...]  # by prompt size, from the smallest; one for a price that is not tiered

    def covers(self, at: datetime | None) -> bool:
        """Whether the price is in force at `at` (a naive time is UTC)."""
        if self.start is None or self.end is None or at is None:
            return True
        return self.start <= (at if at.tzinfo is not None else at.replace(tzinfo=UTC)) < self.end

    def band(self, tokens_in: int) -> RateBand:
        """The band of a prompt of `tokens_in` input tokens."""
        return next(b for b in self.bands if tokens_in > b.above and (b.upto is None or tokens_in <= b.upto))


@dataclass
class PriceBook:
    """Prices model responses: the --prices file first, then genai-prices.

    `periods` resolves a model and a day into the prices in force that day, once per (model, day): the
    analysis prices a whole run from those in SQL (analysis/sql/money_*.sql), and `price` one response.
    """

    overrides: PriceFile | None = None
    use_library: bool = True
    _library: PriceSource | None = field(default=None, init=False, repr=False)
    # (model, provider, vendor, base URL) -> genai-prices' (ModelInfo, Provider), or why it has none: matching
    # a model id is the same for every response, and a run has many responses of one model.
    _matches: dict[tuple[str, str | None, str | None, str | None], Any] = field(default_factory=dict, init=False,
                                                                                  repr=False)
    _periods: dict[tuple[str, str | None, str | None, str | None, date | None], list[PricePeriod] | str] = field(
        default_factory=dict, init=False, repr=False)

    def price(self, usage: TokenUsage, model: str, *, provider: str | None = None, base_url: str | None = None,
              at: datetime | None = None, vendor: str | None = None) -> Cost:
        """The cost of one response's tokens as `model`, or unknown with the reason.

        `provider` is the run's provider name and `vendor` the pricing vendor its manifest recorded.
        """
        tokens_in, cached, tokens_out = usage.input_tokens or 0, usage.cached_tokens or 0, usage.output_tokens or 0
        notes = (CACHED_NOTE,) if usage.cached_tokens is None and tokens_in else ()
        periods = self.periods(model, provider=provider, base_url=base_url, vendor=vendor,
                               day=None if at is None else utc_day(at))
        if isinstance(periods, str):
            return Cost(None, model, (), usage.estimated, unknown_reason=periods)
        period = next(p for p in periods if p.covers(at))
        usd = period.band(tokens_in).usd(tokens_in, cached, tokens_out)
        return Cost(usd, period.model, (period.applied.source,), usage.estimated, notes=notes,
                    prices=(period.applied,))

    def periods(self, model: str, *, provider: str | None = None, base_url: str | None = None,
                vendor: str | None = None, day: date | None = None) -> list[PricePeriod] | str:
        """The prices of `model` in force over the UTC day `day` (None: now), or why it has none."""
        key = (model, provider, vendor, base_url, day)
        if key not in self._periods:
            self._periods[key] = self._resolve(model, (provider, vendor, base_url), day)
        return self._periods[key]

    def _resolve(self, model: str, run: tuple[str | None, str | None, str | None],
                 day: date | None) -> list[PricePeriod] | str:
        if self.overrides is not None and (found := self.overrides.find(model)):
            key, rate = found
            start, end = _day_bounds(day)
            return [PricePeriod(start, end, key, AppliedPrice(key, self.overrides.source, rate),
                                (RateBand(-1, None, rate),))]
        if not self.use_library:
            return f"no price for {model} in the --prices file"
        match = self._match(model, run)
        if isinstance(match, str):
            return match
        info, _ = match
        periods = []
        for start, end in _segments(info, day):
            price = info.get_prices(start or datetime.now(UTC))  # as calc_price does without a time
            periods.append(PricePeriod(start, end, info.id, self._applied(info, price), _bands(price)))
        return periods

    def _library_source(self) -> PriceSource:
        if self._library is None:
            self._library = library_source()
        return self._library

    def _match(self, model: str, run: tuple[str | None, str | None, str | None]) -> Any:
        """genai-prices' (ModelInfo, Provider) for the model, or why it has none (one lookup per model).

        `run` is the run's (provider name, pricing vendor, base URL).
        """
        from genai_prices import Usage, calc_price  # imported when pricing, not by every analysis

        where = library_lookup(model, *run)
        if isinstance(where, str):
            return where
        key = (model, *run)
        if key not in self._matches:
            try:
                priced = calc_price(Usage(input_tokens=0, output_tokens=0), model, **where)  # type: ignore[call-overload]
            except LookupError as exc:
                # Its message quotes a base URL as given, credentials and all: say it in our words then.
                said = "it knows no provider at the run's base URL" if "provider_api_url" in where else f"{exc}"
                self._matches[key] = f"no price for {model}: genai-prices {self._library_source().version}: {said}"
            else:
                self._matches[key] = (priced.model, priced.provider)
        return self._matches[key]

    def _applied(self, info: Any, price: Any) -> AppliedPrice:
        return AppliedPrice(info.id, self._library_source(), _library_rate(price), _library_since(info, price))


def utc_day(at: datetime) -> date:
    """The UTC day of a time (genai-prices dates its prices by UTC day; a naive time is UTC)."""
    return (at.astimezone(UTC) if at.tzinfo is not None else at).date()


def _day_bounds(day: date | None) -> tuple[datetime | None, datetime | None]:
    if day is None:
        return None, None
    start = datetime.combine(day, time(0), UTC)
    return start, start + timedelta(days=1)


def _segments(info: Any, day: date | None) -> list[tuple[datetime | None, datetime | None]]:
    """The spans of a UTC day over which none of the model's prices starts or stops applying.

    A price starts on a date (constant over a UTC day) or applies daily between two times (off-peak
    prices): the day is cut at those times.
    """
    if day is None:
        return [(None, None)]
    from genai_prices.types import TimeOfDateConstraint

    start = datetime.combine(day, time(0), UTC)
    end = start + timedelta(days=1)

    cuts = {start, end}
    for conditional in info.prices if isinstance(info.prices, list) else ():
        if isinstance(conditional.constraint, TimeOfDateConstraint):
            for moment in (conditional.constraint.start_time, conditional.constraint.end_time):
                utc = moment if moment.tzinfo is None else \
                    datetime.combine(date(1970, 1, 1), moment).astimezone(UTC).timetz()
                cuts.add(datetime.combine(day, utc.replace(tzinfo=None), UTC))
    return list(pairwise(sorted(cuts)))


def _bands(price: Any) -> tuple[RateBand, ...]:
    """genai-prices' ModelPrice as rates by prompt size: a tier applies to a prompt of more input tokens than its
    start (to all of its tokens); cached input without a rate of its own is priced at the input rate."""
    from genai_prices.types import TieredPrices

    cached = price.cache_read_mtok if price.cache_read_mtok is not None else price.input_mtok
    units = (price.input_mtok, cached, price.output_mtok, price.requests_kcount)
    starts = sorted({tier.start for unit in units if isinstance(unit, TieredPrices) for tier in unit.tiers})
    edges = [-1, *starts]

    def rate_at(unit: Any, above: int) -> Decimal:
        if unit is None:
            return Decimal(0)
        if not isinstance(unit, TieredPrices):
            return Decimal(unit)
        return next((tier.price for tier in reversed(unit.tiers) if tier.start <= above), unit.base)

    return tuple(RateBand(above, upto, Rate(*(rate_at(unit, above) for unit in units[:3])),
                          rate_at(units[3], above) / 1000)  # requests_kcount: USD per thousand requests
                 for above, upto in zip(edges, [*starts, None], strict=True))


def _library_rate(price: Any) -> Rate | None:
    """genai-prices' ModelPrice as a Rate; None when a rate is tiered (not one Decimal)."""
    values = (price.input_mtok, getattr(price, "cache_read_mtok", None) or price.input_mtok, price.output_mtok)
    if not all(isinstance(v, Decimal) for v in values):
        return None
    return Rate(*values)


def _library_since(model: Any, applied: Any) -> date | None:
    """The start date of the conditional price genai-prices applied (its get_prices returns that very object)."""
    from genai_prices.types import StartDateConstraint

    for conditional in model.prices if isinstance(model.prices, list) else ():
        if conditional.prices is applied and isinstance(conditional.constraint, StartDateConstraint):
            return conditional.constraint.start_date
    return None


def conversation_cost(book: PriceBook, turns: Sequence[TurnUsage], *, model: str, provider: str | None = None,
                      base_url: str | None = None, price_as: str | None = None, vendor: str | None = None) -> Cost:
    """The sum of a conversation's responses, each priced as the model it named (else `model`).

    Estimated tokens (the scripted policy's) are priced only as `price_as`, every response as that
    model, looked up by its name alone. `price_as` does not apply to tokens a provider reported: they
    are priced as the model that answered. Responses that reported no tokens (failed requests) add
    nothing; a conversation none of whose responses reported tokens, or one response of which has no
    price, is unknown.
    """
    estimated = any(t.usage.estimated for t in turns)
    price_as = price_as if estimated else None
    reported = [t for t in turns if t.usage.input_tokens is not None or t.usage.output_tokens is not None]
    if estimated and price_as is None:
        return Cost(None, model, (), True, unknown_reason=ESTIMATE_REASON)
    if not reported:
        return Cost(None, price_as or model, (), estimated, price_as, NO_TOKENS_REASON)
    total = Decimal(0)
    sources: dict[PriceSource, None] = {}  # dicts as ordered sets
    notes: dict[str, None] = {}
    applied: dict[AppliedPrice, None] = {}
    matched: dict[str, None] = {}  # the model ids the sources priced, e.g. gpt-5-mini for gpt-5-mini-2025-08-07
    for turn in reported:
        asked = price_as or turn.model or model
        cost = book.price(turn.usage, asked, provider=None if price_as else provider,
                          base_url=None if price_as else base_url, at=turn.at, vendor=None if price_as else vendor)
        if cost.usd is None:
            return Cost(None, asked, (), estimated, price_as, cost.unknown_reason)
        matched[cost.model or asked] = None
        total += cost.usd
        sources.update(dict.fromkeys(cost.sources))
        notes.update(dict.fromkeys(cost.notes))
        applied.update(dict.fromkeys(cost.prices))
    if len(reported) < len(turns):
        notes[unreported_note(len(turns) - len(reported))] = None
    return Cost(total, ", ".join(matched), tuple(sources), estimated, price_as, None, tuple(notes), tuple(applied))
