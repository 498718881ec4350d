"""Dataset loading: the packaged default, and one clear message per kind of bad input."""

from __future__ import annotations

import json
import re

import pytest

from core.domain.dataset import DatasetError, load_dataset, load_records
from core.domain.fields import DEFAULT_ASKS
from tests.helpers import default_cases, default_records


def test_default_dataset_loads_its_cases_and_question_kinds():
    dataset = load_dataset()
    assert dataset.name == "default"
    assert [c.caseId for c in dataset.cases] == [
        "delivered-on-time", "carrier-delay", "status-lags-carrier", "partial-delivery",
        "tracking-unavailable", "payment-declined", "missing-warehouse-record",
        "has-everything-arrived", "when-rest-arrives", "when-webcam-arrives", "payment-not-taken", "payment-taken"]
    kinds = {c.asks for c in dataset.cases}
    assert kinds == {DEFAULT_ASKS, ("deliveredSkus", "outstandingSkus"), ("outstandingSkus", "deliveryEstimate"),
                     ("paymentStatus",)}
    assert dataset.case("payment-not-taken").expectation() == {"paymentStatus": "authorization_failed"}
    assert dataset.records.clock == "2026-10-08T12:00:00+00:00"
    assert dataset.content_hash.startswith("sha256:") and len(dataset.content_hash) == 71
    assert all(len(order.items) <= 2 for order in dataset.records.orders)


def _unavailable(records):
    return next(t for t in records["tracking"] if t["availability"] == "unavailable")


def _records_error(make_dataset, mutate) -> str:
    records = default_records()
    mutate(records)
    with pytest.raises(DatasetError) as info:
        load_dataset(make_dataset(records=records))
    return str(info.value)


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda r: r["orders"][3]["items"][0].__setitem__("quantity", 0),
     "records.json: orders[3].items[0].quantity: must be a positive integer"),
    (lambda r: r["orders"][3]["items"][0].__setitem__("quantity", "2"),
     "records.json: orders[3].items[0].quantity: must be a positive integer"),
    (lambda r: r["orders"][0].__setitem__("orderId", "ORD-10O4"),
     "records.json: orders[0].orderId: must be a well-formed order ID like ORD-1001"),
    (lambda r: r["payments"][1].__setitem__("status", "paid"),
     "records.json: payments[1].status: must be one of 'captured', 'authorized', 'pending', "
     "'authorization_failed' or 'refunded'"),
    (lambda r: r["orders"][2].__setitem__("promisedDeliveryDate", "2026-13-01"),
     "records.json: orders[2].promisedDeliveryDate: must be a real calendar date (YYYY-MM-DD)"),
    (lambda r: r["orders"][2].pop("paymentId"), "records.json: orders[2].paymentId: is required"),
    (lambda r: r["reservations"][0].__setitem__("colour", "red"),
     "records.json: reservations[0].colour: is not a known field"),
    (lambda r: r["tracking"].append(dict(r["tracking"][0])),
     "records.json: tracking: trackingId TRK-1001-A appears twice"),
    (lambda r: _unavailable(r).__setitem__("status", "delivered"),
     "an unavailable carrier lookup must leave status null"),
    (lambda r: r.__setitem__("clock", "2026-10-08T12:00:00"),
     "records.json: clock: must carry a UTC offset"),
    (lambda r: r["orders"][1]["items"].append(dict(r["orders"][1]["items"][0])),
     "records.json: orders[1].items: lists the same SKU twice"),
])
def test_bad_records_are_named_by_path(make_dataset, mutate, message):
    assert message in _records_error(make_dataset, mutate)


def _cases_error(make_dataset, mutate) -> str:
    cases = default_cases()
    mutate(cases)
    with pytest.raises(DatasetError) as info:
        load_dataset(make_dataset(cases=cases))
    return str(info.value)


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda c: c[2].__setitem__("orderId", "ORD-2000"),
     "cases.json: [2].orderId: order ORD-2000 is not in records.json"),
    (lambda c: c[1]["expected"].__setitem__("delayReasons", ["late"]),
     "cases.json: [1].expected.delayReasons[0]: must be one of"),
    (lambda c: c[1]["expected"].__setitem__("deliveryEstimate", "10/10/2026"),
     "cases.json: [1].expected.deliveryEstimate: must be a date written YYYY-MM-DD"),
    (lambda c: c[4]["expected"].__setitem__("missingEvidence", ["TRK-1005-A"]),
     "cases.json: [4].expected.missingEvidence[0]: must be kind:ID"),
    (lambda c: c[0]["expected"].__setitem__("deliveredSkus", ["DOCK-USB-C", "DOCK-USB-C"]),
     "cases.json: [0].expected.deliveredSkus: lists the same value twice"),
    (lambda c: c[0]["expected"].__setitem__("outstandingSkus", ["MONITOR-27"]),
     "cases.json: [0].expected.outstandingSkus: MONITOR-27 is not on order ORD-1001"),
    (lambda c: c.append(dict(c[0])), "cases.json: [12].caseId: delivered-on-time appears twice"),
    (lambda c: c[3].pop("question"), "cases.json: [3].question: is required"),
    (lambda c: c[0].__setitem__("asks", ["deliveredSkus", "arrivalTime"]), "cases.json: [0].asks[1]: must be one of"),
    (lambda c: c[0].__setitem__("asks", []), "cases.json: [0].asks: must not be empty"),
    (lambda c: c[0].__setitem__("asks", ["deliveredSkus", "deliveredSkus"]),
     "cases.json: [0].asks: lists the same value twice"),
    (lambda c: c[0].__setitem__("asks", ["deliveredSkus", "paymentStatus"]),
     "cases.json: [0].expected: lacks paymentStatus, which the case asks"),
    (lambda c: c[11]["expected"].__setitem__("deliveredSkus", []),
     "cases.json: [11].expected: holds deliveredSkus, which the case does not ask (asks: paymentStatus)"),
    (lambda c: c[11]["expected"].__setitem__("paymentStatus", "charged"),
     "cases.json: [11].expected.paymentStatus: must be one of"),
    (lambda c: c[7]["expected"].__setitem__("outstandingSkus", None),
     "cases.json: [7].expected: outstandingSkus must not be null"),
])
def test_bad_cases_are_named_by_path(make_dataset, mutate, message):
    assert message in _cases_error(make_dataset, mutate)


def test_a_case_without_asks_asks_the_default_question(make_dataset):
    cases = default_cases()
    assert "asks" not in cases[0]
    dataset = load_dataset(make_dataset(cases=cases))
    assert dataset.cases[0].asks == DEFAULT_ASKS
    assert list(dataset.cases[0].expectation()) == list(DEFAULT_ASKS)


def test_asks_are_kept_in_the_contract_s_order(make_dataset):
    cases = default_cases()
    cases[8]["asks"] = ["deliveryEstimate", "outstandingSkus"]
    assert load_dataset(make_dataset(cases=cases)).cases[8].asks == ("outstandingSkus", "deliveryEstimate")


def test_invalid_json_names_line_and_column(make_dataset):
    folder = make_dataset()
    (folder / "records.json").write_text('{\n  "clock": "x",\n  oops\n}')
    with pytest.raises(DatasetError, match=re.escape("records.json: line 3, column 3: not valid JSON")):
        load_dataset(folder)


def test_missing_folder_and_file(tmp_path):
    with pytest.raises(DatasetError, match="not a dataset folder"):
        load_dataset(tmp_path / "nowhere")
    (tmp_path / "records.json").write_text("{}")
    expected = "records.json: clock: is required\nrecords.json: accountId: is required"
    with pytest.raises(DatasetError, match=re.escape(expected)):
        load_dataset(tmp_path)
    (tmp_path / "records.json").write_text(json.dumps(default_records()))
    with pytest.raises(DatasetError, match=re.escape("cases.json: file not found")):
        load_dataset(tmp_path)


def test_records_load_without_cases(tmp_path, make_dataset):
    folder = make_dataset()
    (folder / "cases.json").unlink()
    assert len(load_records(folder).orders) == 7


def test_content_hash_changes_with_content(make_dataset):
    records = default_records()
    first = load_dataset(make_dataset(records=records)).content_hash
    records["orders"][0]["status"] = "lost"
    assert load_dataset(make_dataset(records=records)).content_hash != first
