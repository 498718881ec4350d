"""The prices a run needs, resolved from a PriceBook once per (model, day) into DuckDB's money_prices.

analysis/sql/money_turns.sql lists each response with the model it is priced as and its day; the few
distinct (model, day) pairs are resolved here (analysis.prices: the --prices file, then genai-prices);
analysis/sql/money_costs.sql then prices every response and adds them up in SQL. Amounts there are
integers (USD × 10^scale), so every sum and median is exact, as the Decimal arithmetic of
analysis.prices is.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from analysis.db import RunDatabase
from analysis.prices import PriceBook, PricePeriod

_INSERT = "INSERT INTO money_prices VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"


@dataclass(frozen=True)
class PriceTable:
    """The prices a priced run used (price_id -> its period) and the scale of its amounts in SQL."""

    periods: list[PricePeriod]
    scale: int  # an amount in SQL is USD × 10^scale

    def usd(self, amount: int | None) -> Decimal | None:
        """An amount from SQL in USD (None stays None: unknown)."""
        return None if amount is None else Decimal(amount).scaleb(-self.scale)

    def median(self, middle: dict[str, Any] | None) -> Decimal | None:
        """A median from middle_values (money_turns.sql): statistics.median's, in Decimal."""
        if not middle or not middle["n"]:
            return None
        low, high = self.usd(middle["low"]), self.usd(middle["high"])
        assert low is not None and high is not None
        return low if middle["n"] % 2 else (low + high) / 2


def money_scale(db: RunDatabase) -> int:
    """The scale of a priced run's amounts in SQL (set by price_run)."""
    return int(db.scalar("SELECT getvariable('money_scale')"))


def float_median(middle: dict[str, Any], scale: int) -> float:
    """The median of priced amounts (middle_values of at least one) as statistics.median of their floats."""
    low, high = (float(Decimal(middle[key]).scaleb(-scale)) for key in ("low", "high"))
    return low if middle["n"] % 2 else (low + high) / 2


def _digits(value: Decimal) -> int:
    """Decimal places needed to write `value` as an integer times a power of ten."""
    exponent = value.normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _scaled(value: Decimal, digits: int) -> int:
    scaled = value.scaleb(digits)
    assert scaled == scaled.to_integral_value(), (value, digits)
    return int(scaled)


def price_run(db: RunDatabase, book: PriceBook, price_as: str | None) -> PriceTable:
    """Price a loaded run's responses in SQL: resolve the prices it needs, then run money_costs.sql."""
    db.set_variable("price_as", price_as)
    db.run_script("money_turns.sql")
    provider, base_url, vendor = db.info["provider"], db.info["base_url"], db.info["pricing_vendor"]
    resolved: list[tuple[tuple[Any, ...], list[PricePeriod] | str]] = []
    for asked, by_name, day in db.query("money_keys.sql")[1]:
        # Estimated tokens are priced as the named model, looked up by its name alone (analysis.prices).
        found = book.periods(asked, provider=None if by_name else provider, base_url=None if by_name else base_url,
                             vendor=None if by_name else vendor, day=day)
        resolved.append(((asked, by_name, day), found))
    periods = [p for _, found in resolved if not isinstance(found, str) for p in found]
    bands = [band for period in periods for band in period.bands]
    # Rates are per million tokens; the fee is per response: both become integers at one scale.
    rate_digits = max([_digits(r) for b in bands for r in (b.rate.input, b.rate.cached_input, b.rate.output)]
                      + [_digits(b.request_fee) - 6 for b in bands] + [0])
    scale = rate_digits + 6
    rows: list[tuple[Any, ...]] = []
    table: list[PricePeriod] = []  # price_id -> its period
    for key, found in resolved:
        if isinstance(found, str):
            rows.append((*key, None, None, -1, None, None, None, None, None, None, found))
            continue
        for period in found:
            price_id = len(table)
            table.append(period)
            rows += [(*key, period.start, period.end, band.above, band.upto,
                      *(str(_scaled(r, rate_digits)) for r in (band.rate.input, band.rate.cached_input,
                                                              band.rate.output)),
                      str(_scaled(band.request_fee, scale)), price_id, None) for band in period.bands]
    if rows:
        db.con.executemany(_INSERT, rows)
    db.set_variable("money_scale", scale)
    db.run_script("money_costs.sql")
    return PriceTable(table, scale)
