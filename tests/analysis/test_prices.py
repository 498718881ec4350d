"""Money: genai-prices for known models, a --prices file to override or add, unknown (never zero) otherwise."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from importlib.metadata import version
from pathlib import Path

import pytest

from analysis.costs import costs_of_run, design_costs
from analysis.prices import (
    PriceBook,
    PriceFileError,
    TokenUsage,
    TurnUsage,
    conversation_cost,
    load_price_file,
)
from tests.analysis.conftest import RunCopy

AT = datetime(2026, 11, 1, tzinfo=UTC)
USAGE = TokenUsage(input_tokens=1_000_000, output_tokens=100_000, cached_tokens=200_000)


def _price_file(tmp_path: Path, content: dict | str) -> Path:
    path = tmp_path / "prices.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def test_a_known_model_is_priced_by_genai_prices_with_cached_input_at_its_own_rate():
    from genai_prices import Usage, calc_price

    cost = PriceBook().price(USAGE, "gpt-5-mini", provider="openai", at=AT)
    rates = calc_price(Usage(input_tokens=1, output_tokens=1), "gpt-5-mini", provider_id="openai",
                       genai_request_timestamp=AT).model_price
    assert rates.input_mtok > rates.cache_read_mtok > 0 and rates.output_mtok > 0
    # 800k uncached + 200k cached input + 100k output, each at its own rate per million
    assert cost.usd == (800_000 * rates.input_mtok + 200_000 * rates.cache_read_mtok
                        + 100_000 * rates.output_mtok) / 1_000_000
    assert cost.known and cost.model == "gpt-5-mini" and not cost.estimated
    assert [s.label() for s in cost.sources] == [f"genai-prices {version('genai-prices')}"]
    # a dated model id as the provider returns it is the same model
    assert PriceBook().price(USAGE, "gpt-5-mini-2025-08-07", provider="openai", at=AT).usd == cost.usd


def test_a_price_file_overrides_genai_prices_and_prices_models_it_does_not_know(tmp_path):
    prices = load_price_file(_price_file(tmp_path, {
        "version": 1, "source": "our contract", "date": "2026-11-30",
        "models": {"GPT-5-mini": {"input": 1, "cachedInput": "0.5", "output": 10},
                   "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf": {"input": 0, "output": 0},
                   "local-llama": {"input": 0.2, "output": 0.4}}}))
    book = PriceBook(prices)
    cost = book.price(USAGE, "gpt-5-mini-2025-08-07", provider="openai", at=AT)
    assert cost.usd == Decimal("0.8") + Decimal("0.1") + Decimal("1.0")
    assert cost.model == "gpt-5-mini"
    assert [s.label() for s in cost.sources] == ["our contract, prices.json (2026-11-30)"]
    assert [p.label() for p in cost.prices] == ["gpt-5-mini: $1 input, $0.5 cached input, $10 output per million "
                                                "tokens (our contract, prices.json (2026-11-30))"]
    free = book.price(USAGE, "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", provider="openai-chat",
                      base_url="http://127.0.0.1:8089/v1")
    assert free.usd == 0 and free.known and free.label() == "$0.0000"  # a price of zero the user stated
    local = book.price(TokenUsage(1_000_000, 1_000_000), "local-llama", provider="openai-chat")
    assert local.usd == Decimal("0.6")  # cachedInput defaults to the input rate; no cached count reported
    assert local.notes == ("cached input not reported: all input priced at the input rate",)
    # models the file does not name still come from genai-prices
    assert book.price(USAGE, "claude-sonnet-4-6", provider="anthropic", at=AT).sources[0].name == "genai-prices"


@pytest.mark.parametrize(("model", "provider", "base_url"), [
    ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "openai-chat", "http://127.0.0.1:8089/v1"),
    ("llama3.1", "openai-chat", None),
    ("no-such-model-xyz", "openai", None),
])
def test_a_model_without_a_price_is_unknown_never_zero(model, provider, base_url):
    cost = PriceBook().price(USAGE, model, provider=provider, base_url=base_url, at=AT)
    assert cost.usd is None and not cost.known and cost.label() == "unknown"
    assert model in cost.unknown_reason


def test_a_conversation_sums_its_responses_and_one_unpriced_response_makes_it_unknown():
    book = PriceBook()
    turns = [TurnUsage(TokenUsage(1000, 10, 0), "gpt-5-mini", AT), TurnUsage(TokenUsage(None, None), None, AT),
             TurnUsage(TokenUsage(3000, 20, 1000), "gpt-5-mini", AT)]
    cost = conversation_cost(book, turns, model="gpt-5-mini", provider="openai")
    parts = [book.price(t.usage, "gpt-5-mini", provider="openai", at=AT).usd for t in (turns[0], turns[2])]
    assert cost.usd == sum(parts) and "1 request(s) reported no tokens and add nothing" in cost.notes
    mixed = [*turns, TurnUsage(TokenUsage(10, 1, 0), "no-such-model-xyz", AT)]
    assert conversation_cost(book, mixed, model="gpt-5-mini", provider="openai").usd is None
    nothing = conversation_cost(book, [turns[1]], model="gpt-5-mini", provider="openai")
    assert nothing.usd is None and nothing.unknown_reason == "no response reported any tokens"


def test_estimated_tokens_are_priced_only_as_a_named_model_and_say_so():
    turns = [TurnUsage(TokenUsage(2000, 100, None, estimated=True), "scripted-policy-v1", AT)]
    unpriced = conversation_cost(PriceBook(), turns, model="scripted-policy-v1", provider="scripted")
    assert unpriced.usd is None and unpriced.estimated and "estimates" in unpriced.unknown_reason
    priced = conversation_cost(PriceBook(), turns, model="scripted-policy-v1", provider="scripted",
                               price_as="gpt-5-mini")
    assert priced.known and priced.estimated and priced.priced_as == "gpt-5-mini"
    assert priced.label().startswith("≈$") and priced.label().endswith("(estimate, priced as gpt-5-mini)")


HEAD = {"version": 1, "date": "2026-11-30"}


@pytest.mark.parametrize(("content", "message"), [
    ("{\n  nope", "prices.json: line 2, column 3: not valid JSON"),
    ({**HEAD, "models": {}}, 'must be an object whose "models" maps model ids to prices'),
    ({**HEAD, "models": {"m": {"input": -1, "output": 1}}}, "prices.json: models.m.input: must be zero or more"),
    ({**HEAD, "models": {"m": {"input": 1}}}, "prices.json: models.m.output: is required"),
    ({**HEAD, "models": {"m": {"input": 1, "output": "ten"}}}, "prices.json: models.m.output: 'ten' is not a number"),
    ({**HEAD, "models": {"m": {"input": 1, "output": 2, "cache": 1}}},
     "prices.json: models.m.cache: is not a known field"),
    ({**HEAD, "models": {"m": {"input": True, "output": 2}}}, "models.m.input: must be a number"),
    ({**HEAD, "currency": "EUR", "models": {"m": {"input": 1, "output": 2}}},
     "prices.json: currency: is not a known field"),
    ({"date": "2026-11-30", "models": {"m": {"input": 1, "output": 2}}}, "prices.json: version: must be 1"),
    ({**HEAD, "version": 2, "models": {"m": {"input": 1, "output": 2}}}, "prices.json: version: must be 1"),
    ({"version": 1, "models": {"m": {"input": 1, "output": 2}}}, "prices.json: date: is required, as YYYY-MM-DD"),
    ({**HEAD, "date": "30/11/2026", "models": {"m": {"input": 1, "output": 2}}}, "prices.json: date: is required"),
])
def test_a_bad_price_file_is_named_in_one_line(tmp_path, content, message):
    with pytest.raises(PriceFileError, match=None) as info:
        load_price_file(_price_file(tmp_path, content))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_the_costs_of_a_recorded_run_per_conversation_and_design(sample_copy: RunCopy, tmp_path):
    # the sample run is the scripted policy's: estimated tokens, unknown until priced as a model
    costs = costs_of_run(sample_copy.path, PriceBook())
    assert costs and all(c.cost.usd is None and c.cost.estimated for c in costs)
    priced = costs_of_run(sample_copy.path, PriceBook(), price_as="gpt-5-mini")
    assert all(c.cost.known and c.cost.estimated for c in priced)
    [granular, focused] = design_costs(priced, ["granular", "focused"])
    assert granular.priced == focused.priced == len(priced) // 2 and granular.unknown == 0
    assert granular.median_usd > focused.median_usd > 0  # focused sends fewer tokens on the fixture


def test_a_provider_reported_run_is_priced_by_the_model_each_response_names(sample_copy: RunCopy):
    lines = []
    for event in sample_copy.events():
        if event["type"] == "model_response":
            event["usage"]["estimated"] = False
            event["model"] = "gpt-5-mini-2025-08-07"
        lines.append(json.dumps(event))
    sample_copy.write_lines(lines)
    manifest = json.loads((sample_copy.path / "manifest.json").read_text())
    manifest["provider"] = {"name": "openai", "label": "OpenAI Responses API", "isLanguageModel": True}
    (sample_copy.path / "manifest.json").write_text(json.dumps(manifest))
    costs = costs_of_run(sample_copy.path, PriceBook())
    assert all(c.cost.known and not c.cost.estimated and c.cost.model == "gpt-5-mini" for c in costs)
    one = costs[0]
    turns = [e for e in sample_copy.events() if e["type"] == "model_response"
             and e["conversationId"] == one.conversation_id]
    book = PriceBook()
    expected = sum(book.price(TokenUsage(t["usage"]["inputTokens"], t["usage"]["outputTokens"]),
                              "gpt-5-mini", provider="openai",
                              at=datetime.fromisoformat(t["ts"])).usd for t in turns)
    assert one.cost.usd == expected


def test_the_price_in_force_on_the_response_date_applies_and_is_labelled_with_its_start_date():
    from genai_prices import Usage, calc_price

    # genai-prices 0.2.3 lists a price change for gemini-3.6-flash starting 2027-01-01.
    before, after = datetime(2026, 12, 31, tzinfo=UTC), datetime(2027, 1, 2, tzinfo=UTC)
    old, new = (PriceBook().price(USAGE, "gemini-3.6-flash", at=at) for at in (before, after))
    expected = calc_price(Usage(input_tokens=1_000_000, cache_read_tokens=200_000, output_tokens=100_000),
                          "gemini-3.6-flash", genai_request_timestamp=after).total_price
    assert new.usd == expected and old.usd != new.usd
    [applied] = new.prices
    assert str(applied.since) == "2027-01-01" and "in force since 2027-01-01" in applied.label()
    assert applied.label().startswith("gemini-3.6-flash: $1.5 input, $0.15 cached input")
    assert f"genai-prices {version('genai-prices')}" in applied.label()
    assert old.prices[0].since != applied.since


def test_money_is_compared_over_the_both_correct_pairs_that_both_have_a_price():
    from analysis.costs import ConversationCost, compare_costs
    from analysis.prices import Cost

    def conv(case: str, design: str, usd: str | None, passed: bool = True) -> ConversationCost:
        return ConversationCost(f"{case}.{design}.r1", case, design, Cost(None if usd is None else Decimal(usd), "m"),
                                1, passed)

    costs = [conv("a", "granular", "0.010"), conv("a", "focused", "0.004"),
             conv("b", "granular", "0.020"), conv("b", "focused", "0.006"),
             conv("c", "granular", "0.001"), conv("c", "focused", "0.900", passed=False),  # not both right
             conv("d", "granular", "0.500"), conv("d", "focused", None)]  # both right, one unknown
    c = compare_costs(costs, "granular", "focused")
    assert (c.correct_pairs, c.priced_pairs) == (3, 2)
    assert (c.baseline_median, c.other_median) == (Decimal("0.015"), Decimal("0.005"))
    assert c.difference == Decimal("-0.010") and c.median_paired_difference == Decimal("-0.010")
    nothing = compare_costs([conv("d", "granular", "0.5"), conv("d", "focused", None)], "granular", "focused")
    assert nothing.correct_pairs == 1 and nothing.difference is None and nothing.baseline_median is None


@pytest.mark.parametrize(("amount", "flags", "text"), [
    (None, {}, "unknown"),
    (None, {"estimated": True}, "unknown"),
    ("0", {}, "$0.00"),  # a price of zero the user stated, not a missing one
    ("0.00144375", {}, "$0.001444"),
    ("0.000774875", {"estimated": True}, "≈$0.0007749"),
    ("-0.000668875", {"signed": True}, "−$0.0006689"),
    ("0.5", {"signed": True}, "+$0.5000"),
    ("1234.5", {}, "$1,234.50"),
])
def test_amounts_keep_four_significant_digits_and_say_unknown_or_estimate(amount, flags, text):
    from analysis.money_words import usd

    assert usd(None if amount is None else Decimal(amount), **flags) == text


def test_the_money_sentence_says_less_more_or_the_same_and_unknown_without_priced_pairs():
    from analysis.costs import MoneyComparison, RunMoney
    from analysis.money_words import comparison_sentence

    def money(base: str | None, other: str | None, priced: int = 2) -> RunMoney:
        b, o = (None if v is None else Decimal(v) for v in (base, other))
        diff = None if b is None or o is None else o - b
        return RunMoney("r", [], MoneyComparison("granular", "focused", 2, priced, b, o, diff, diff), (), None,
                        False, None, ())

    assert "focused cost $0.001000 less per conversation ($1.000 per 1,000) than granular" in \
        comparison_sentence(money("0.003", "0.002"))
    assert "focused cost $0.001000 more per conversation" in comparison_sentence(money("0.002", "0.003"))
    assert "focused cost the same per conversation as granular" in comparison_sentence(money("0.002", "0.002"))
    assert comparison_sentence(money(None, None, priced=0)).endswith("the difference in money is unknown.")


@pytest.mark.parametrize(("model", "provider"), [("gpt-5-mini-2025-08-07", "openai"),
                                                 ("claude-sonnet-4-6", "anthropic"),
                                                 ("gemini-2.5-pro", None)])  # tiered by prompt size
def test_every_response_of_a_run_costs_exactly_what_genai_prices_computes(model, provider):
    from genai_prices import Usage, calc_price

    book = PriceBook()  # the first response is matched by genai-prices, the others reuse the match
    where = {"provider_id": provider} if provider else {}
    for i, (tokens_in, cached, out) in enumerate([(1000, 0, 10), (250_000, 1_234, 777), (3, 3, 0),
                                                  (190_001, 0, 5), (987_654, 12_345, 6_789)]):
        at = datetime(2026, 3, 10 + i, tzinfo=UTC)  # claude-sonnet-4-6's price changes on 2026-03-13
        cost = book.price(TokenUsage(tokens_in, out, cached), model, provider=provider, at=at)
        expected = calc_price(Usage(input_tokens=tokens_in, cache_read_tokens=cached, output_tokens=out), model,
                              genai_request_timestamp=at, **where)
        assert cost.usd == expected.total_price, (i, cost.usd, expected.total_price)
    if model == "gemini-2.5-pro":  # no one rate to show
        assert book.price(USAGE, model, at=AT).prices[0].label().startswith("gemini-2.5-pro: tiered by prompt size")


def test_an_unknown_base_url_is_not_repeated_in_the_reason():
    cost = PriceBook().price(USAGE, "llama3", provider="openai-chat", base_url="http://u:sk-SECRET@10.0.0.2:8089/v1")
    assert cost.usd is None and "sk-SECRET" not in cost.unknown_reason
    assert cost.unknown_reason.endswith("it knows no provider at the run's base URL")


@pytest.mark.parametrize(("model", "url"), [("deepseek-chat", "https://api.deepseek.com/v1"),  # off-peak hours
                                             ("sonar", "https://api.perplexity.ai")])  # a fee per request
def test_off_peak_prices_and_request_fees_are_what_genai_prices_computes_for_every_response(model, url):
    from genai_prices import Usage, calc_price

    book = PriceBook()
    costs = set()
    for hour in (0, 1, 10, 16, 17, 23):  # deepseek's peak is 00:30 to 16:30 UTC
        at = datetime(2026, 11, 2, hour, 45, tzinfo=UTC)
        cost = book.price(USAGE, model, provider="openai-chat", base_url=url, at=at)
        expected = calc_price(Usage(input_tokens=1_000_000, cache_read_tokens=200_000, output_tokens=100_000), model,
                              provider_api_url=url, genai_request_timestamp=at).total_price
        assert cost.usd == expected, (hour, cost.usd, expected)
        costs.add(cost.usd)
    assert len(costs) == (2 if model == "deepseek-chat" else 1)
