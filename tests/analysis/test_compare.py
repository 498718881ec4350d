"""`wismo compare` on runs built to known figures: noise alone is no regression, a planted pass-rate drop on
one question kind is named with that kind, a deterministic change is exact, and runs that cannot be compared
are refused with one line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from analysis.compare import compare_runs
from analysis.compare_model import EVERY_KIND, REGRESSION, UNDECIDED, ToleranceError, parse_tolerances
from analysis.costs import Pricing
from tests.analysis.runbuilder import Conv, RunSpec, write_run
from tests.helpers import run_wismo

FULL = ["c1", "c2", "c3"]
ARRIVED = ["c4", "c5", "c6"]  # asks only deliveredSkus and outstandingSkus: "has everything arrived"
DESIGNS = ["granular", "focused"]


def build(folder: Path, run_id: str, *, seed: int, repetitions: int = 4, failing: tuple[str, list[str]] | None = None,
          grow: dict[str, float] | None = None, language_model: bool = True, dataset_hash: str = "sha256:0",
          designs: list[str] = DESIGNS) -> Path:
    """A run of six cases: model-like noise on the input tokens (a seeded ±40 around 1,000 per turn) unless
    deterministic; `failing` = (design, cases) that fail every repetition; `grow` scales a design's tokens."""
    rng = random.Random(seed)
    conversations = []
    for case in FULL + ARRIVED:
        for repetition in range(1, repetitions + 1):
            for design in designs:
                scale = (grow or {}).get(design, 1.0)
                noise = (lambda: rng.randint(-40, 40)) if language_model else (lambda: 0)
                turns = [(int((1000 + noise()) * scale), 50), (int((1200 + noise()) * scale), 80)]
                passed = not (failing and design == failing[0] and case in failing[1])
                conversations.append(Conv(case, design, repetition, turns, [1], 10.0, passed=passed))
    spec = RunSpec(run_id, designs, repetitions, FULL + ARRIVED, conversations, language_model=language_model,
                   asks={c: ["deliveredSkus", "outstandingSkus"] for c in ARRIVED}, dataset_hash=dataset_hash)
    return write_run(folder, spec)


def test_two_runs_that_differ_only_by_noise_compare_clean(tmp_path: Path):
    baseline = build(tmp_path, "before", seed=1)
    candidate = build(tmp_path, "after", seed=2)
    comparison = compare_runs(baseline, candidate, resamples=400)
    assert not comparison.exact and comparison.regressions() == []
    tokens = next(f for f in comparison.figures if f.design == "focused" and f.kind == EVERY_KIND
                  and f.figure == "totalTokens")
    # noise moves the figure (so the interval is a real one), but by far less than the 5 % tolerance
    assert tokens.changed_pairs > 0 and tokens.ci_low is not None and tokens.ci_high is not None
    assert tokens.ci_low < tokens.change < tokens.ci_high and tokens.ci_low > -0.05 and tokens.ci_high < 0.05
    done = run_wismo("compare", str(baseline), str(candidate), "--resamples", "400", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no regression beyond the tolerances" in done.stdout


def test_a_planted_pass_rate_drop_on_one_question_kind_is_named_with_that_kind(tmp_path: Path):
    baseline = build(tmp_path, "before", seed=1)
    candidate = build(tmp_path, "after", seed=2, failing=("focused", ARRIVED))
    comparison = compare_runs(baseline, candidate, resamples=400)
    named = {(f.design, f.kind, f.figure) for f in comparison.regressions()}
    assert ("focused", "has everything arrived", "passed") in named
    assert ("focused", "full", "passed") not in named  # the other kind kept passing
    assert not any(design == "granular" for design, _, _ in named)
    drop = next(f for f in comparison.regressions() if f.kind == "has everything arrived")
    assert drop.change == pytest.approx(-1.0) and drop.ci_high is not None and drop.ci_high < 0
    done = run_wismo("compare", str(baseline), str(candidate), "--resamples", "400", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "focused: pass rate −100 points [−100, −100] on 'has everything arrived' questions" in done.stdout
    as_json = run_wismo("compare", str(baseline), str(candidate), "--resamples", "400", "--json", cwd=tmp_path)
    assert as_json.returncode == 1
    data = json.loads(as_json.stdout)
    assert any("has everything arrived" in line for line in data["regressions"])
    assert {f["verdict"] for f in data["figures"] if f["design"] == "granular"} != {REGRESSION}


def test_a_deterministic_token_growth_is_exact_and_held_to_the_tolerance(tmp_path: Path):
    baseline = build(tmp_path, "before", seed=1, language_model=False)
    candidate = build(tmp_path, "after", seed=1, language_model=False, grow={"focused": 1.08})
    comparison = compare_runs(baseline, candidate)
    assert comparison.exact
    regressions = comparison.regressions()
    # every kind's tokens grew alike: the whole-design figure first, then each kind's, and nothing else
    assert {(f.design, f.figure) for f in regressions} == {("focused", "totalTokens")}
    assert [f.kind for f in regressions] == [EVERY_KIND, "full", "has everything arrived"]
    regression = regressions[0]
    assert regression.ci_low is None and 0.07 < (regression.change or 0) < 0.08
    assert regression.words().startswith("focused: total tokens +7.") and "(exact)" in regression.words()
    # a looser tolerance lets the same change pass
    assert compare_runs(baseline, candidate, tolerances={"tokens": 0.10}).regressions() == []
    # priced (the built runs' tokens are estimates, priced as a named model), the money grew with the tokens
    priced = compare_runs(baseline, candidate, tolerances={"tokens": 0.10}, pricing=Pricing(price_as="gpt-5-mini"))
    assert priced.priced and {(f.design, f.figure) for f in priced.regressions()} == {("focused", "costUsd")}
    money = priced.regressions()[0]
    assert money.kind == EVERY_KIND
    assert 0.05 < (money.change or 0) < 0.09


def test_a_model_run_with_one_repetition_per_case_is_undecided_not_clean_or_failed(tmp_path: Path):
    baseline = build(tmp_path, "before", seed=1, repetitions=1)
    candidate = build(tmp_path, "after", seed=2, repetitions=1, grow={"focused": 1.5})
    comparison = compare_runs(baseline, candidate, resamples=200)
    tokens = next(f for f in comparison.figures if f.design == "focused" and f.kind == EVERY_KIND
                  and f.figure == "totalTokens")
    assert tokens.verdict == UNDECIDED and tokens.ci_low is None and "one repetition" in tokens.words()
    assert comparison.regressions() == []


@pytest.mark.parametrize(("change", "says"), [
    ({"dataset_hash": "sha256:1"}, "used different datasets"),
    ({"designs": ["granular"]}, "has designs granular, focused and"),
])
def test_runs_of_another_dataset_or_other_designs_are_refused_with_one_line(tmp_path: Path, change: dict, says: str):
    baseline = build(tmp_path, "before", seed=1, repetitions=2)
    candidate = build(tmp_path, "after", seed=2, repetitions=2, **change)
    done = run_wismo("compare", str(baseline), str(candidate), cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("error: cannot compare: ") and says in line


def test_a_missing_run_folder_is_one_line(tmp_path: Path):
    baseline = build(tmp_path, "before", seed=1, repetitions=2)
    done = run_wismo("compare", str(baseline), str(tmp_path / "nowhere"), cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert "nowhere" in line


def test_a_run_that_fails_validation_is_refused_naming_its_checks(tmp_path: Path):
    baseline = build(tmp_path, "before", seed=1, repetitions=2)
    candidate = build(tmp_path, "after", seed=2, repetitions=2)
    events = (candidate / "events.jsonl").read_text().replace('"turns":2,', '"turns":3,', 1)
    (candidate / "events.jsonl").write_text(events)
    done = run_wismo("compare", str(baseline), str(candidate), cwd=tmp_path)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert "fails validation" in line and str(candidate) in line


def test_tolerances_read_percentages_and_shares_and_name_what_is_wrong():
    assert parse_tolerances("tokens=10%,passed=0.05")["tokens"] == pytest.approx(0.10)
    assert parse_tolerances("tokens=10%,passed=0.05")["passed"] == pytest.approx(0.05)
    assert parse_tolerances(None)["turns"] == pytest.approx(0.05)
    for text, says in (("speed=5%", "KEY one of"), ("tokens=lots", "not a number"), ("tokens=-1", "negative"),
                       ("tokens", "KEY=VALUE")):
        with pytest.raises(ToleranceError, match=says):
            parse_tolerances(text)
