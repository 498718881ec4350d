"""Money in SQL (analysis/sql/money_*.sql) against the same rules in Python, response by response.

The Python side reads events.jsonl itself (json, no DuckDB), prices every conversation with
analysis.prices.conversation_cost and adds them up with design_costs and compare_costs: what money was
before it moved into SQL. The runs are the sample rewritten to be hard to price: several models, one
with no price, dates either side of a price change, prompts either side of a tier, off-peak hours, no
cached count, requests that reported no tokens, estimated tokens, and a price file.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from analysis.costs import ConversationCost, RunMoney, compare_costs, costs_of_run, design_costs, money_of_runs
from analysis.prices import PriceBook, TokenUsage, TurnUsage, conversation_cost, load_price_file
from tests.analysis.conftest import SAMPLE_RUN


def rewrite(tmp_path: Path, name: str, *, provider: str | None = None, base_url: str | None = None,
            models: tuple[str, ...] = (), shift: tuple[timedelta, ...] = (timedelta(0),), big_every: int = 0,
            unreported_every: int = 0, uncached_every: int = 0) -> Path:
    """A copy of the sample whose responses name `models` in turn (reported, not estimated, when given)."""
    run = tmp_path / name
    shutil.copytree(SAMPLE_RUN, run, ignore=shutil.ignore_patterns("logs"))
    conversations: dict[str, int] = {}
    lines, responses = [], 0
    for line in (run / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if "conversationId" in event:
            index = conversations.setdefault(event["conversationId"], len(conversations))
            moved = datetime.fromisoformat(event["ts"]) + shift[index % len(shift)]
            event["ts"] = moved.isoformat()
        if event["type"] == "model_response" and models:
            responses += 1
            usage = event["usage"]
            usage["estimated"] = False
            event["model"] = models[(index + responses) % len(models)]
            usage["cachedTokens"] = min(120, usage["inputTokens"])
            if big_every and responses % big_every == 0:
                usage["inputTokens"] += 250_000  # above claude's 200k tier
            if uncached_every and responses % uncached_every == 0:
                usage["cachedTokens"] = None
            if unreported_every and responses % unreported_every == 0:
                usage["inputTokens"] = usage["outputTokens"] = None
        lines.append(json.dumps(event))
    (run / "events.jsonl").write_text("\n".join(lines) + "\n")
    manifest = json.loads((run / "manifest.json").read_text())
    if provider:
        manifest.update(provider={"name": provider, "label": provider, "isLanguageModel": True},
                        model=models[0], baseUrl=base_url)
    (run / "manifest.json").write_text(json.dumps(manifest))
    return run


def python_costs(run: Path, book: PriceBook, price_as: str | None) -> list[ConversationCost]:
    """Every conversation priced in Python from its trace lines, in (case, conversation id) order."""
    manifest = json.loads((run / "manifest.json").read_text())
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    finished = {e["conversationId"]: e for e in events if e["type"] == "conversation_finished"}
    started = {e["conversationId"]: e for e in events if e["type"] == "conversation_started"}
    costs = []
    for conversation_id in sorted(finished, key=lambda c: (started[c]["caseId"], c)):
        responses = sorted((e for e in events if e["type"] == "model_response"
                            and e["conversationId"] == conversation_id), key=lambda e: e["turn"])
        turns = [TurnUsage(TokenUsage(r["usage"]["inputTokens"], r["usage"]["outputTokens"],
                                      r["usage"].get("cachedTokens"), bool(r["usage"].get("estimated"))),
                           r.get("model"), datetime.fromisoformat(r["ts"])) for r in responses]
        cost = conversation_cost(book, turns, model=manifest["model"] or "", provider=manifest["provider"]["name"],
                                 base_url=manifest.get("baseUrl"), price_as=price_as)
        start = started[conversation_id]
        costs.append(ConversationCost(conversation_id, start["caseId"], start["design"], cost, start["repetition"],
                                      finished[conversation_id]["score"]["passed"],
                                      tuple(sorted({t.at.astimezone().date() for t in turns if t.at}))))
    return costs


def python_money(run: Path, costs: list[ConversationCost], price_as: str | None) -> RunMoney:
    """A run's money from the Python costs, by the rules money followed before it moved into SQL."""
    manifest = json.loads((run / "manifest.json").read_text())
    designs = manifest["designs"]
    baseline = manifest.get("baseline") or designs[0]
    comparisons = [compare_costs(costs, baseline, other) for other in designs if other != baseline]
    days = sorted({d for c in costs if c.cost.known for d in c.dates})
    return RunMoney(run_id=manifest["runId"], designs=design_costs(costs, designs),
                    comparison=comparisons[0] if comparisons else None, comparisons=comparisons, baseline=baseline,
                    prices=tuple(dict.fromkeys(p for c in costs for p in c.cost.prices)),
                    priced_on=(days[0], days[-1]) if days else None, estimated=any(c.cost.estimated for c in costs),
                    price_as=price_as,
                    unknown_reasons=tuple(dict.fromkeys(c.cost.unknown_reason for c in costs
                                                        if c.cost.usd is None and c.cost.unknown_reason)))


def variants(tmp_path: Path) -> dict[str, tuple[Path, dict[str, Any]]]:
    days = tuple(timedelta(days=d) for d in (-270, -262, 0, 31, 400))
    hours = tuple(timedelta(hours=h) for h in (0, 9, 17, 23))
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"version": 1, "date": "2026-11-30", "models": {
        "gpt-4o": {"input": "2.5", "cachedInput": "1.25", "output": 10},
        "mystery-model": {"input": "0.1234567", "output": "0.5"}}}))
    # two unknown models two turns apart: a conversation with both says why by its first
    openai = rewrite(tmp_path, "openai", provider="openai", models=("gpt-5-mini-2025-08-07", "mystery-model", "gpt-4o",
                                                                     "other-mystery", "gpt-5"),
                     shift=days, unreported_every=7, uncached_every=5)
    return {
        "openai, one model unknown": (openai, {}),
        "openai, a price file pricing it": (openai, {"book": PriceBook(load_price_file(prices))}),
        "anthropic, price change and tiers": (rewrite(
            tmp_path, "anthropic", provider="anthropic", models=("claude-sonnet-4-6", "claude-sonnet-4-5",
                                                                 "claude-haiku-4-5"), shift=days, big_every=3), {}),
        "deepseek by its URL, off-peak hours": (rewrite(
            tmp_path, "deepseek", provider="openai-chat", base_url="https://api.deepseek.com/v1",
            models=("deepseek-chat", "deepseek-reasoner"), shift=hours, uncached_every=4), {}),
        "perplexity by its URL, a fee per request": (rewrite(
            tmp_path, "perplexity", provider="openai-chat", base_url="https://api.perplexity.ai",
            models=("sonar", "sonar-pro")), {}),
        "a local server, unknown": (rewrite(tmp_path, "local", provider="openai-chat",
                                            base_url="http://127.0.0.1:8089/v1", models=("llama3",)), {}),
        "estimated tokens, not priced": (SAMPLE_RUN, {}),
        "estimated tokens priced as a model": (SAMPLE_RUN, {"price_as": "gpt-5-mini"}),
        "estimated tokens, price file": (SAMPLE_RUN, {"price_as": "mystery-model",
                                                      "book": PriceBook(load_price_file(prices))}),
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple[Path, dict[str, Any]]]:
    return variants(tmp_path_factory.mktemp("money-sql"))


CASES = ["openai, one model unknown", "openai, a price file pricing it", "anthropic, price change and tiers",
         "deepseek by its URL, off-peak hours", "perplexity by its URL, a fee per request", "a local server, unknown",
         "estimated tokens, not priced", "estimated tokens priced as a model", "estimated tokens, price file"]


@pytest.mark.parametrize("case", CASES)
def test_sql_money_is_the_python_computation(runs, case):
    run, options = runs[case]
    book, price_as = options.get("book", PriceBook()), options.get("price_as")
    expected_costs = python_costs(run, book, price_as)
    assert costs_of_run(run, book, price_as=price_as) == expected_costs
    [money] = money_of_runs([run], book, price_as=price_as)
    assert money == python_money(run, expected_costs, price_as)


def test_the_variants_are_as_hard_as_they_say(runs):
    """Each rewritten run has what its name claims, so the comparison above covers it."""
    openai = python_costs(runs["openai, one model unknown"][0], PriceBook(), None)
    assert {c.cost.known for c in openai} == {True, False}
    assert any("request(s) reported no tokens" in n for c in openai for n in c.cost.notes)
    reasons = {c.cost.unknown_reason for c in openai if not c.cost.known}
    assert any("mystery-model" in r for r in reasons) and any("other-mystery" in r for r in reasons)
    assert any(n.startswith("cached input not reported") for c in openai for n in c.cost.notes)
    assert len({d for c in openai for d in c.dates}) >= 4
    anthropic = python_money(runs["anthropic, price change and tiers"][0],
                             python_costs(runs["anthropic, price change and tiers"][0], PriceBook(), None), None)
    labels = [p.label() for p in anthropic.prices]
    assert any("tiered by prompt size" in label for label in labels)
    assert any("in force since 2026-03-13" in label for label in labels)
    deepseek = python_money(runs["deepseek by its URL, off-peak hours"][0],
                            python_costs(runs["deepseek by its URL, off-peak hours"][0], PriceBook(), None), None)
    chat_rates = {p.rate.input for p in deepseek.prices if p.model == "deepseek-chat" and p.rate}
    assert chat_rates == {Decimal("0.27"), Decimal("0.135")}  # peak and off-peak
    sonar = python_costs(runs["perplexity by its URL, a fee per request"][0], PriceBook(), None)
    assert all(c.cost.known and c.cost.usd > Decimal("0.012") for c in sonar)  # $12 per thousand requests
    local = python_costs(runs["a local server, unknown"][0], PriceBook(), None)
    assert all(not c.cost.known for c in local)
