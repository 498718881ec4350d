"""`wismo check`: passes on good datasets, fails loudly on a tampered server or a leaking one."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.helpers import WISMO, renamed_dataset


def wismo(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WISMO, *args], capture_output=True, text=True, cwd=cwd, timeout=180)


def test_check_passes_on_the_default_dataset(tmp_path):
    done = wismo("check", "--out", "comparison.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "comparison.json").read_text())
    assert report["passed"] is True
    by_order = {o["orderId"]: o for o in report["orders"]}
    assert len(by_order) == 7 and all(o["matched"] for o in by_order.values())
    assert by_order["ORD-1004"]["interactions"] == {"granular": 5, "focused": 1}
    assert by_order["ORD-1001"]["interactions"] == {"granular": 6, "focused": 1}
    # gathering everything reads the same records either way; RSV-1007-B was looked for and not found
    everything = {"orders": 1, "payments": 1, "reservations": 2, "tracking": 2, "notFound": 0}
    assert by_order["ORD-1001"]["lookups"] == {"granular": everything, "focused": everything}
    missing = {"orders": 1, "payments": 1, "reservations": 2, "tracking": 1, "notFound": 1}
    assert by_order["ORD-1007"]["lookups"] == {"granular": missing, "focused": missing}
    for order in by_order.values():
        assert order["bytes"]["granular"] > 0 and order["bytes"]["focused"] > 0
    labels = {(e["design"], e["label"]) for e in report["edgeCases"]}
    assert {("granular", "malformed"), ("focused", "huge"), ("granular", "unknown")} <= labels
    assert all(e["ok"] for e in report["edgeCases"])
    assert report["leakedExpectations"] == [] and report["ruleMismatches"] == []
    assert "PASS" in done.stdout and "ORD-1004" in done.stdout
    assert "lookups g/f" in done.stdout
    assert next(line for line in done.stdout.splitlines() if line.startswith("ORD-1001")).split()[-1] == "6/6"


def test_check_passes_on_a_dataset_with_other_ids_and_skus(tmp_path, make_dataset):
    records, cases = renamed_dataset()
    folder = make_dataset(records=records, cases=cases)
    done = wismo("check", "--dataset", str(folder), "--out", "c.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "c.json").read_text())
    assert {o["orderId"] for o in report["orders"]} == {f"ORD-50{n:02d}" for n in range(1, 8)}


BROKEN_FOCUSED = textwrap.dedent('''
    import json, sys
    from mcp.server import MCPServer
    from core.domain.dataset import load_records
    from recorder.servers.lookups import Lookups
    lookups = Lookups(load_records())
    server = MCPServer(name="broken")

    @server.tool(structured_output=False)
    def get_order_support_context(orderId: str) -> str:
        """A focused tool that {flaw}."""
        context = lookups.support_context(orderId)
        {patch}
        return json.dumps(context)

    server.run("stdio")
''')


def _broken_server(tmp_path: Path, flaw: str, patch: str) -> str:
    script = tmp_path / "broken_focused.py"
    script.write_text(BROKEN_FOCUSED.format(flaw=flaw, patch=patch))
    return f"focused={sys.executable} {script}"


def test_check_catches_a_focused_server_that_drops_a_record(tmp_path):
    server = _broken_server(tmp_path, "silently drops unavailable tracking",
                            'context["tracking"] = [t for t in context["tracking"] '
                            'if t["availability"] == "available"]')
    done = wismo("check", "--server", server, "--out", "c.json", cwd=tmp_path)
    assert done.returncode == 1
    assert "FAIL" in done.stdout
    report = json.loads((tmp_path / "c.json").read_text())
    unmatched = [o for o in report["orders"] if not o["matched"]]
    assert [o["orderId"] for o in unmatched] == ["ORD-1005"]
    assert unmatched[0]["differences"] == ["focused: ORD-1005: tracking TRK-1005-A missing (granular returns it)"]
    assert "    focused: ORD-1005: tracking TRK-1005-A missing (granular returns it)" in done.stdout
    # a server that does not report its lookups: not recorded, never 0
    assert unmatched[0]["lookups"]["focused"] is None and unmatched[0]["lookups"]["granular"]["tracking"] == 1


def test_check_catches_a_changed_value(tmp_path):
    server = _broken_server(tmp_path, "rounds the amount",
                            'context["payment"]["amount"] = "0.00" if orderId == "ORD-1003" else '
                            'context["payment"]["amount"]')
    done = wismo("check", "--server", server, "--out", "c.json", cwd=tmp_path)
    assert done.returncode == 1
    assert 'focused: ORD-1003: payment PAY-1003: $.amount: granular "389.00" vs focused "0.00"' in done.stdout


def test_check_catches_an_expectation_leaking_into_a_tool_result(tmp_path):
    server = _broken_server(tmp_path, "hands the model the answer",
                            'context["delayReasons"] = ["stock_shortage"]')
    done = wismo("check", "--server", server, "--out", "c.json", cwd=tmp_path)
    assert done.returncode == 1
    report = json.loads((tmp_path / "c.json").read_text())
    assert report["leakedExpectations"] == ["delayReasons", "stock_shortage"]


def test_check_flags_expectations_that_disagree_with_the_rules(tmp_path, make_dataset):
    from tests.helpers import default_cases
    cases = default_cases()
    cases[1]["expected"]["deliveryEstimate"] = "2026-10-07"
    done = wismo("check", "--dataset", str(make_dataset(cases=cases)), "--out", "c.json", cwd=tmp_path)
    assert done.returncode == 1
    assert 'carrier-delay (granular): deliveryEstimate by the rules is "2026-10-10", ' \
           'cases.json expects "2026-10-07"' in done.stdout


def test_check_derives_the_payment_status_and_missing_when_the_record_is_gone(tmp_path, make_dataset):
    from tests.helpers import default_cases, default_records
    records, cases = default_records(), default_cases()
    records["payments"] = [p for p in records["payments"] if p["paymentId"] != "PAY-1001"]
    payment_taken = next(c for c in cases if c["caseId"] == "payment-taken")
    payment_taken["expected"]["paymentStatus"] = "missing"
    cases = [c for c in cases if c["orderId"] != "ORD-1001" or c is payment_taken]  # the others expect a payment
    done = wismo("check", "--dataset", str(make_dataset(records=records, cases=cases)), "--out", "c.json",
                 cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    payment_taken["expected"]["paymentStatus"] = "captured"
    done = wismo("check", "--dataset", str(make_dataset(records=records, cases=cases)), "--out", "c.json",
                 cwd=tmp_path)
    assert done.returncode == 1
    assert 'payment-taken (focused): paymentStatus by the rules is "missing", cases.json expects "captured"' \
        in done.stdout


def test_check_reports_a_bad_dataset_without_a_traceback(tmp_path, make_dataset):
    from tests.helpers import default_records
    records = default_records()
    records["orders"][3]["items"][0]["quantity"] = 0
    done = wismo("check", "--dataset", str(make_dataset(records=records)), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == "error: records.json: orders[3].items[0].quantity: must be a positive integer"


MIDDLE = Path(__file__).resolve().parents[2] / "examples" / "middle" / "server.py"


def test_check_compares_a_design_of_the_user_s_own_and_names_the_record_it_drops(tmp_path):
    planted = tmp_path / "server.py"
    source = MIDDLE.read_text(encoding="utf-8")
    dropping = source.replace('for rid in found["reservationIds"]]', 'for rid in found["reservationIds"][1:]]')
    assert dropping != source
    planted.write_text(dropping, encoding="utf-8")
    done = wismo("check", "--server", f"middle={sys.executable} {planted}", "--out", "c.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "    middle: ORD-1001: reservation RSV-1001-A missing (granular returns it)" in done.stdout
    assert "(granular/focused/middle)" in done.stdout and "FAIL" in done.stdout
    report = json.loads((tmp_path / "c.json").read_text())
    assert report["designs"] == ["granular", "focused", "middle"] and report["reference"] == "granular"
    assert report["orders"][0]["differences"] == [
        "middle: ORD-1001: reservation RSV-1001-A missing (granular returns it)"]

    done = wismo("check", "--server", f"middle={sys.executable} {MIDDLE}", "--out", "c.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert next(line for line in done.stdout.splitlines() if line.startswith("ORD-1001")).split()[-2] == "6/1/2"


def test_check_says_in_one_line_when_a_server_option_is_malformed(tmp_path):
    done = wismo("check", "--server", "middle", cwd=tmp_path)
    assert done.returncode == 2 and "expected NAME=COMMAND" in done.stderr


def test_check_reaches_a_design_over_streamable_http(tmp_path):
    from tests.recorder.test_serve_http import free_port, wait_ready

    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "wismo.cli", "serve", "focused", "--transport", "streamable-http",
                               "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_ready(server)
        done = wismo("check", "--server", f"remote=http://127.0.0.1:{port}/mcp", "--out", "c.json", cwd=tmp_path)
    finally:
        server.terminate()
        server.wait(15)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "c.json").read_text())
    assert report["designs"] == ["granular", "focused", "remote"] and report["passed"]
    done = wismo("check", "--server", "remote=python x.py", "--header", "remote=X-Key: v", cwd=tmp_path)
    assert done.returncode == 2 and "headers go to a design reached over HTTP" in done.stderr
