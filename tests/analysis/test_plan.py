"""`wismo plan` on a pilot with planted noise: the repetitions it asks for grow as the difference to detect
shrinks, and a simulation of the studies it plans (drawn from the planted noise, tested as `compare` would)
finds the power it promised; a deterministic or single-repetition pilot is said to be one."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from statistics import NormalDist, fmean

import pytest

from analysis.costs import Pricing
from analysis.plan import DETERMINISTIC, ESTIMATED, TOO_SMALL, plan_run
from tests.analysis.runbuilder import Conv, RunSpec, write_run
from tests.helpers import run_wismo

CASES = [f"c{i}" for i in range(1, 11)]
SIGMA = 600.0  # the planted noise: focused's total tokens vary this much between repetitions of a case
BASE = 2000  # granular's input tokens on every turn of every case, plus the case's own offset


def pilot(folder: Path, *, repetitions: int = 10, sigma: float = SIGMA, seed: int = 7) -> Path:
    rng = random.Random(seed)
    conversations = []
    for index, case in enumerate(CASES):
        offset = 100 * index  # cases differ, which is not noise: the plan must not count it
        for repetition in range(1, repetitions + 1):
            conversations.append(Conv(case, "granular", repetition, [(BASE + offset, 50)], [], 10.0))
            noisy = max(1, round(BASE + offset + rng.gauss(0, sigma)))
            conversations.append(Conv(case, "focused", repetition, [(noisy, 50)], [], 10.0))
    spec = RunSpec("pilot", ["granular", "focused"], repetitions, CASES, conversations, language_model=True)
    return write_run(folder, spec)


def simulated_power(repetitions: int, detect: float, studies: int = 400, seed: int = 1) -> float:
    """The share of simulated studies (C cases x R repetitions of differences drawn from the planted noise,
    shifted by `detect`) whose 95 % interval of the mean difference lies wholly above 0."""
    rng = random.Random(seed)
    z = NormalDist().inv_cdf(0.975)
    n = len(CASES) * repetitions
    found = 0
    for _ in range(studies):
        by_case = [[detect + rng.gauss(0, SIGMA) for _ in range(repetitions)] for _ in CASES]
        pooled = sum(sum((d - fmean(ds)) ** 2 for d in ds) for ds in by_case) / (n - len(CASES))
        mean = fmean(d for ds in by_case for d in ds)
        found += mean - z * math.sqrt(pooled / n) > 0
    return found / studies


def test_repetitions_grow_as_the_difference_shrinks_and_match_a_simulation(tmp_path: Path):
    run = pilot(tmp_path)
    needed = {}
    for difference in (0.10, 0.05, 0.025):
        plan = plan_run(run, difference=difference)
        [row] = [r for r in plan.rows if (r.first, r.second, r.figure, r.rerun) ==
                 ("granular", "focused", "totalTokens", False)]
        assert row.state == ESTIMATED and row.noise_sd is not None
        assert row.noise_sd == pytest.approx(SIGMA, rel=0.15)  # the pilot's estimate of the planted noise
        assert row.cost is not None and row.cost.conversations == len(CASES) * (row.repetitions or 0) * 2
        needed[difference] = (row.repetitions or 0, row.detect)
    r10, r5, r25 = (needed[d][0] for d in (0.10, 0.05, 0.025))
    assert 1 < r10 < r5 < r25
    assert r5 / r10 == pytest.approx(4, rel=0.3) and r25 / r5 == pytest.approx(4, rel=0.2)  # 1 / difference²
    for repetitions, detect in needed.values():
        if repetitions < 3:
            continue  # too few for the normal approximation the plan (and any such rule) makes
        assert 0.70 <= simulated_power(repetitions, detect) <= 0.92
        assert simulated_power(max(2, repetitions // 3), detect) < 0.6  # a third of the study misses it often


def test_a_priced_plan_says_what_the_study_would_cost(tmp_path: Path):
    plan = plan_run(pilot(tmp_path, repetitions=4), pricing=Pricing(price_as="gpt-5-mini"))
    [row] = [r for r in plan.rows if (r.pair, r.figure) == ("granular → focused", "totalTokens")]
    assert plan.usd_per_conversation is not None and row.cost is not None and row.cost.usd is not None
    assert row.cost.usd == pytest.approx(row.cost.conversations * plan.usd_per_conversation)
    assert row.cost.requests == row.cost.conversations  # the built conversations answer in one turn


def test_the_granular_design_never_varies_so_its_rerun_row_says_deterministic(tmp_path: Path):
    plan = plan_run(pilot(tmp_path, repetitions=4))
    states = {(r.pair, r.figure): r.state for r in plan.rows}
    assert states[("granular, rerun", "totalTokens")] == DETERMINISTIC
    assert states[("focused, rerun", "totalTokens")] == ESTIMATED
    assert states[("granular → focused", "passed")] == DETERMINISTIC  # every conversation passed


def test_a_pilot_with_one_repetition_is_too_small_to_tell_and_says_how_to_fix_it(tmp_path: Path):
    run = pilot(tmp_path, repetitions=1)
    plan = plan_run(run)
    assert {r.state for r in plan.rows} == {TOO_SMALL} and all(r.repetitions is None for r in plan.rows)
    done = run_wismo("plan", str(run), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "too small to tell" in done.stdout and "--repetitions 2" in done.stdout


def test_plan_json_carries_every_row_with_its_repetitions_and_cost(tmp_path: Path):
    run = pilot(tmp_path, repetitions=4)
    done = run_wismo("plan", str(run), "--difference", "5%", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["difference"] == pytest.approx(0.05) and data["run_dir"] == str(run)
    [row] = [r for r in data["rows"] if (r["first"], r["second"], r["figure"], r["rerun"]) ==
             ("granular", "focused", "totalTokens", False)]
    [same] = [r for r in plan_run(run, difference=0.05).rows
              if (r.pair, r.figure) == ("granular → focused", "totalTokens")]
    assert row["state"] == "estimated" and row["repetitions"] == same.repetitions
    assert row["cost"]["conversations"] == len(CASES) * row["repetitions"] * 2


def test_bad_differences_are_one_line(tmp_path: Path):
    run = pilot(tmp_path, repetitions=2)
    done = run_wismo("plan", str(run), "--difference", "lots", cwd=tmp_path)
    assert done.returncode == 2 and "--difference" in done.stderr and "Traceback" not in done.stderr
