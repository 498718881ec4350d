"""`wismo dataset generate`: deterministic by seed, every situation, valid IDs, expectations by the rules."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from core.domain.dataset import load_dataset
from core.domain.evidence import Evidence, derive
from core.domain.fields import DEFAULT_ASKS
from recorder.agent.loop import Budgets
from recorder.generate import MAX_LINES, QUESTION_KINDS, write_dataset
from recorder.run.options import RecordOptions
from recorder.run.record import record
from recorder.servers.lookups import Lookups, to_json_text
from tests.helpers import WISMO


def wismo(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WISMO, *args], capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("datasets") / "study"
    write_dataset(folder, seed=1)
    return folder


def test_the_same_seed_gives_the_same_bytes_and_another_seed_other_data(tmp_path):
    done = [wismo("dataset", "generate", "--out", str(tmp_path / name), "--seed", seed, cwd=tmp_path)
            for name, seed in (("a", "3"), ("b", "3"), ("c", "4"))]
    assert all(d.returncode == 0 for d in done), [d.stderr for d in done]
    for name in ("records.json", "cases.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
        assert (tmp_path / "a" / name).read_bytes() != (tmp_path / "c" / name).read_bytes()
    assert "12 orders of 1, 2, 5, 10, 25, 50 lines, seed 3" in done[0].stdout


def test_orders_have_the_sizes_asked_and_every_order_every_question_kind(generated):
    dataset = load_dataset(generated)
    sizes = Counter(len(order.items) for order in dataset.records.orders)
    assert sizes == {1: 2, 2: 2, 5: 2, 10: 2, 25: 2, 50: 2}
    kinds = Counter(case.asks for case in dataset.cases)
    assert kinds == {asks: 12 for asks, _ in QUESTION_KINDS.values()}
    assert DEFAULT_ASKS in kinds and ("paymentStatus",) in kinds
    assert dataset.records.clock == "2026-10-08T12:00:00+00:00"


def test_the_orders_mix_every_situation_the_contract_knows(generated):
    records = load_dataset(generated).records
    tracking = records.tracking
    reservations = {r.reservationId: r for r in records.reservations}
    tracked = {t.trackingId for t in tracking}
    assert {t.status for t in tracking if t.availability == "available"} == {
        "delivered", "in_transit", "out_for_delivery", "label_created", "exception"}
    assert any(t.latestEvent and t.latestEvent.code == "delayed" for t in tracking)
    assert any(t.availability == "unavailable" for t in tracking)
    assert {r.status for r in reservations.values()} == {"fulfilled", "reserved", "backordered"}
    assert any(r.expectedRestockDate for r in reservations.values())
    linked_reservations = [r for o in records.orders for r in o.reservationIds]
    linked_tracking = [t for o in records.orders for t in o.trackingIds]
    assert any(r not in reservations for r in linked_reservations)  # a missing warehouse record
    assert any(t not in tracked for t in linked_tracking)  # a missing carrier record
    per_line = Counter((t.orderId, t.sku) for t in tracking)
    assert any(count >= 2 for count in per_line.values())  # one line's quantity split over shipments
    payments = {p.paymentId: p.status for p in records.payments}
    statuses = {payments.get(o.paymentId, "missing") for o in records.orders}
    assert statuses == {"captured", "authorized", "pending", "authorization_failed", "refunded", "missing"}
    # a status that lags the carrier: the order is still "processing" though the carrier delivered some of it
    delivered = {(t.orderId) for t in tracking if t.status == "delivered"}
    assert any(o.status == "processing" and o.orderId in delivered for o in records.orders)
    skus = [item.sku for o in records.orders for item in o.items]
    assert all(item.name for o in records.orders for item in o.items) and len(set(skus)) > 100


def test_the_expectations_are_what_the_rules_derive(generated):
    dataset = load_dataset(generated)
    lookups = Lookups(dataset.records)
    for case in dataset.cases:
        evidence = Evidence()
        evidence.add_result("orderId", case.orderId, to_json_text(lookups.support_context(case.orderId)), False)
        assert case.expectation() == derive(evidence, case.orderId).as_dict(case.asks), case.caseId
    reasons = {r for case in dataset.cases for r in (case.expected.delayReasons or [])}
    assert reasons == {"carrier_delay", "stock_shortage", "payment_issue"}


def test_check_passes_on_a_generated_dataset(generated, tmp_path):
    done = wismo("check", "--dataset", str(generated), "--out", "c.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "c.json").read_text())
    calls = {o["orderId"]: o["interactions"]["granular"] for o in report["orders"]}
    assert max(calls.values()) > 50 and report["ruleMismatches"] == []


def test_the_largest_orders_stay_within_the_id_grammar_and_the_loader(tmp_path):
    write_dataset(tmp_path / "big", seed=9, sizes=(MAX_LINES,), orders_per_size=1)
    dataset = load_dataset(tmp_path / "big")
    assert len(dataset.records.orders[0].items) == MAX_LINES
    assert max(len(t) for t in dataset.records.orders[0].trackingIds) <= 40


@pytest.mark.parametrize(("args", "message"), [
    (["--lines", "1,0"], "every size must be between 1 and 200"),
    (["--lines", "1,x"], "expected comma-separated line counts"),
    (["--lines", "201"], "every size must be between 1 and 200"),
])
def test_bad_options_are_refused_in_one_line(tmp_path, args, message):
    done = wismo("dataset", "generate", "--out", str(tmp_path / "d"), "--seed", "1", *args, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_an_existing_dataset_is_never_overwritten(generated, tmp_path):
    before = (generated / "cases.json").read_bytes()
    done = wismo("dataset", "generate", "--out", str(generated), "--seed", "2", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip() == f"error: {generated} already holds a dataset; " \
                                                           "choose another --out"
    assert (generated / "cases.json").read_bytes() == before


def test_a_budget_stop_on_a_big_order_is_recorded_as_a_budget_stop(generated, tmp_path):
    big = next(o for o in load_dataset(generated).records.orders if len(o.items) == 50)
    options = RecordOptions(repetitions=1, out_dir=tmp_path, run_id="big", dataset_dir=generated,
                            case_ids=(f"{big.orderId.lower()}-full", f"{big.orderId.lower()}-payment"),
                            budgets=Budgets(max_tool_calls=20))
    result = asyncio.run(record(options))
    outcomes = {plan.conversation_id: outcome for plan, outcome in result.outcomes}
    stopped = outcomes[f"{big.orderId.lower()}-full.granular.r1"]
    assert (stopped.status, stopped.passed, stopped.tool_calls) == ("budget_exhausted", False, 1)
    assert outcomes[f"{big.orderId.lower()}-full.focused.r1"].passed
    assert outcomes[f"{big.orderId.lower()}-payment.granular.r1"].passed  # two calls fit any budget
    finished = [json.loads(line) for line in (result.run_dir / "events.jsonl").read_text().splitlines()
                if '"conversation_finished"' in line and "-full.granular" in line]
    assert finished[0]["budgetHit"] == "max_tool_calls" and finished[0]["assessment"] is None
    assert result.errored == 0  # a budget stop is not an error of the run
