"""Money end to end: a run recorded through the OpenAI Responses wire (the loopback fake playing the
scripted policy, every response reporting fixed usage for a dated gpt-5-mini), priced from its trace
lines by `summarize` (text and --json) and `build-site`; the scripted sample run as an estimate."""

from __future__ import annotations

import json
from decimal import Decimal
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from wismo.cli import cli
from wismo.loopback import FakeServer
from wismo.loopback.policy import PolicyModel
from wismo.loopback.server import Received, Reply

USAGE = {"input_tokens": 1000, "output_tokens": 50, "total_tokens": 1050,
         "input_tokens_details": {"cached_tokens": 400, "cache_write_tokens": 0},
         "output_tokens_details": {"reasoning_tokens": 20}}
CASES = "partial-delivery,payment-declined"
LIBRARY = f"genai-prices {version('genai-prices')}"


def record_run(out: Path, model: str, run_id: str) -> Path:
    """Record two cases × both designs × 2 repetitions through the loopback Responses API as `model`."""
    policy = PolicyModel("responses", [])

    def respond(received: Received) -> Reply:
        reply = policy(received)
        reply.body = {**reply.body, "model": model, "usage": USAGE}  # what a provider bills: fixed, known
        return reply

    with FakeServer(respond) as fake:
        result = CliRunner().invoke(cli, [
            "record", "--provider", "openai", "--model", "gpt-5-mini", "--base-url", fake.url + "/v1",
            "--cases", CASES, "--repetitions", "2", "--out", str(out), "--run-id", run_id])
    assert result.exit_code == 0, result.output
    return out / run_id


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    monkey = pytest.MonkeyPatch()
    monkey.setenv("OPENAI_API_KEY", "sk-money-test")
    out = tmp_path_factory.mktemp("money")
    try:
        return {"priced": record_run(out, "gpt-5-mini-2025-08-07", "priced"),
                "unpriced": record_run(out, "mystery-model-1", "unpriced")}
    finally:
        monkey.undo()


def responses(run_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """conversationId → its model_response lines, straight from events.jsonl."""
    by_conversation: dict[str, list[dict[str, Any]]] = {}
    for line in (run_dir / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["type"] == "model_response":
            by_conversation.setdefault(event["conversationId"], []).append(event)
    return by_conversation


def gpt5_mini_rates() -> tuple[Decimal, Decimal, Decimal]:
    from genai_prices import Usage, calc_price

    price = calc_price(Usage(input_tokens=1, output_tokens=1), "gpt-5-mini", provider_id="openai").model_price
    return price.input_mtok, price.cache_read_mtok, price.output_mtok


def summarize(*args: str) -> Any:
    # --wide: one line per sentence, so a label is found whole (the 100-column layout is tested apart).
    wide = [] if "--json" in args else ["--wide"]
    result = CliRunner().invoke(cli, ["summarize", *wide, *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_each_conversation_costs_its_trace_lines_tokens_times_the_named_price(runs):
    from statistics import median

    traced = responses(runs["priced"])
    assert traced and all(r["usage"]["cachedTokens"] == 400 and r["model"] == "gpt-5-mini-2025-08-07"
                          for rs in traced.values() for r in rs)
    rate_in, rate_cached, rate_out = gpt5_mini_rates()
    # input includes the cached part; reasoning tokens are part of the output
    per_response = (600 * rate_in + 400 * rate_cached + 50 * rate_out) / 1_000_000
    expected = {cid: per_response * len(rs) for cid, rs in traced.items()}
    [document] = json.loads(summarize(str(runs["priced"]), "--json"))
    money = document["money"]
    assert money["estimated"] is False and money["price_as"] is None and money["unknown_reasons"] == []
    designs = {d["design"]: d for d in money["designs"]}
    for design in ("granular", "focused"):
        costs = [c for cid, c in expected.items() if f".{design}." in cid]
        assert designs[design]["median_usd"] == pytest.approx(float(median(costs)))
        assert designs[design]["priced"] == 4 and designs[design]["unknown"] == 0
    comparison = money["comparison"]
    assert comparison["correct_pairs"] == comparison["priced_pairs"] == 4
    assert comparison["difference_usd"] == pytest.approx(comparison["other_median_usd"]
                                                         - comparison["baseline_median_usd"])
    assert comparison["difference_usd"] < 0  # focused needs fewer model requests, each billed alike
    [price] = money["prices"]
    assert (price["model"], price["source"], price["version"]) == ("gpt-5-mini", "genai-prices",
                                                                    version("genai-prices"))
    assert price["input_per_mtok"] == float(rate_in) and price["cached_input_per_mtok"] == float(rate_cached)


def test_summarize_labels_the_amounts_with_their_price_source_and_date(runs):
    text = summarize(str(runs["priced"]))
    money = text[text.index("money (USD)"):]
    assert "≈" not in money and "estimate" not in money.lower()
    [price] = [line for line in money.splitlines() if line.startswith("price: ")]
    assert price.startswith("price: gpt-5-mini: $0.25 input, $0.025 cached input, $2 output per million tokens")
    assert f"({LIBRARY}, " in price and "applied to responses of 20" in price
    assert "focused cost $" in money and "less per conversation" in money
    # --price-as is for estimated tokens: a provider's are priced as the model that answered, and it says so
    repriced = summarize(str(runs["priced"]), "--price-as", "claude-sonnet-4-6")
    assert repriced[repriced.index("money (USD)"):].startswith(money.removesuffix("\n"))
    assert "--price-as claude-sonnet-4-6 was not applied: this run's tokens were reported by its provider" in repriced


def test_a_price_file_overrides_the_library_and_is_named_with_its_date(runs, tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"version": 1, "date": "2026-11-30", "source": "negotiated",
                                  "models": {"gpt-5-mini": {"input": 1, "cachedInput": 0.5, "output": 10}}}))
    [document] = json.loads(summarize(str(runs["priced"]), "--json", "--prices", str(prices)))
    per_response = (600 * 1 + 400 * Decimal("0.5") + 50 * 10) / Decimal(1_000_000)
    turns = {len(rs) for cid, rs in responses(runs["priced"]).items() if ".focused." in cid}
    assert len(turns) == 1  # the scripted policy takes the same number of steps every time here
    focused = next(d for d in document["money"]["designs"] if d["design"] == "focused")
    assert focused["median_usd"] == float(per_response * turns.pop())
    assert document["money"]["prices"][0]["label"] == ("gpt-5-mini: $1 input, $0.5 cached input, $10 output per "
                                                      "million tokens (negotiated, prices.json (2026-11-30))")
    assert "negotiated, prices.json (2026-11-30)" in summarize(str(runs["priced"]), "--prices", str(prices))


def test_a_model_without_a_price_is_unknown_never_zero(runs, tmp_path):
    text = summarize(str(runs["unpriced"]))
    money = text[text.index("money (USD)"):]
    assert "every conversation's cost is unknown: no price for mystery-model-1" in money and "$0" not in money
    [document] = json.loads(summarize(str(runs["unpriced"]), "--json"))
    assert [d["median_usd"] for d in document["money"]["designs"]] == [None, None]
    assert document["money"]["comparison"]["difference_usd"] is None
    # a price file prices it
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"version": 1, "date": "2026-11-30",
                                  "models": {"mystery-model": {"input": 2, "output": 4}}}))
    [document] = json.loads(summarize(str(runs["unpriced"]), "--json", "--prices", str(prices)))
    assert all(d["median_usd"] > 0 and d["unknown"] == 0 for d in document["money"]["designs"])


def test_the_scripted_policy_is_unpriced_by_default_and_an_estimate_when_priced_as_a_model(sample_copy):
    run = str(sample_copy.path)
    text = summarize(run)
    assert "every conversation's cost is unknown: the token counts are wismo's estimates" in text
    assert "--price-as MODEL" in text and "$" not in text[text.index("money (USD)"):]
    priced = summarize(run, "--price-as", "gpt-5-mini")
    money = priced[priced.index("money (USD)"):]
    # every amount is marked ≈; only the price line's rates are plain
    amounts = [word for line in money.splitlines() if not line.startswith("price: ")
               for word in line.split() if "$" in word]
    assert len(amounts) >= 8 and all(word.lstrip("(").startswith(("≈$", "≈−$")) for word in amounts)
    assert "Estimate: the tokens are wismo's estimates" in money and "priced as gpt-5-mini" in money
    [document] = json.loads(summarize(run, "--json", "--price-as", "gpt-5-mini"))
    assert document["money"]["estimated"] is True and document["money"]["price_as"] == "gpt-5-mini"
    assert document["money"]["note"].startswith("Estimate:")


def test_a_bad_price_file_is_one_line_naming_the_file(runs, tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"version": 1, "models": {"m": {"input": 1, "output": 2}}}))
    for command in (["summarize", str(runs["priced"])], ["build-site", str(runs["priced"]), "--out",
                                                          str(tmp_path / "site")]):
        result = CliRunner().invoke(cli, [*command, "--prices", str(prices)])
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit)  # ClickException, no traceback
        assert result.output.strip() == f"Error: {prices}: date: is required, as YYYY-MM-DD (the day the " \
                                        "prices were taken)"
    assert not (tmp_path / "site").exists()


def test_the_site_overview_shows_the_money_with_its_price(runs, tmp_path, sample_copy):
    out = tmp_path / "site"
    result = CliRunner().invoke(cli, ["build-site", str(runs["priced"]), "--out", str(out), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    html = (out / "index.html").read_text()
    section = html[html.index('id="money-priced"'):]
    section = section[:section.index("<h3", 10)]
    assert "gpt-5-mini: $0.25 input, $0.025 cached input, $2 output per million tokens" in section
    assert LIBRARY in section and "estimate" not in section and "≈" not in section
    assert "focused cost $" in section
    # the scripted sample: unknown by default, an estimate when priced as a model
    scripted = tmp_path / "scripted"
    for flags, expected in (([], "<strong>unknown</strong>"), (["--price-as", "gpt-5-mini"], "≈$")):
        result = CliRunner().invoke(cli, ["build-site", str(sample_copy.path), "--out", str(scripted), "--jobs", "1",
                                          *flags])
        assert result.exit_code == 0, result.output
        page = (scripted / "index.html").read_text()
        money = page[page.index('id="money-'):]
        money = money[:money.index("<h3", 10)]
        assert expected in money and ">estimate</span>" in money and "$0.0000" not in money
