"""Secrets never reach disk or the site: a canary key through each provider and every path a secret can take.

The key sits in the environment, a password and a token sit in --base-url (userinfo and a query
parameter), and the loopback provider (its own process) echoes the credentials it received in
successful bodies, in an error body, and makes a connection fail (whose message quotes the URL). Then
the whole run folder, the logs, everything the commands printed and the built site are searched for
every canary, in every form a writer could produce.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner

from tests.helpers import PROVIDER_WIRES, live_finished, run_wismo
from wismo.cli import cli
from wismo.loopback.process import loopback_process

KEY = "sk-canary-key-7d3f9a1b2c4e6f80"
USER = "canaryuser"
PASSWORD = "pw-canary-55aa66bb77cc"
TOKEN = "qk-canary-0123456789ab"
CANARIES = [KEY, USER, PASSWORD, TOKEN, quote(KEY, safe=""), base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()]

ECHO = [{"do": "status", "status": 400, "message": "bad credentials: {auth}", "order": "ORD-1002"},
        {"do": "echo_key"}]
# Only openai-chat names the base URL when it cannot connect (the others name the vendor): it also gets a
# connection that fails for good after the retries.
CLOSE = [{"do": "close", "order": "ORD-1004", "times": 10}]


def leaks(texts: dict[str, str]) -> list[str]:
    return [f"{canary!r} in {where}" for where, text in texts.items() for canary in CANARIES if canary in text]


def folder_texts(folder: Path) -> dict[str, str]:
    return {str(p): p.read_text(encoding="utf-8", errors="replace") for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("provider", sorted(PROVIDER_WIRES))
def test_no_canary_reaches_the_run_the_logs_the_output_or_the_site(tmp_path, provider):
    wire, prefix = PROVIDER_WIRES[provider]
    env = {"WISMO_CANARY_KEY": KEY}
    printed: dict[str, str] = {}
    plan = {"faults": (CLOSE if provider == "openai-chat" else []) + ECHO}
    with loopback_process(wire, plan) as server:
        host = server.url.removeprefix("http://")
        base_url = f"http://{USER}:{PASSWORD}@{host}{prefix}?api_key={TOKEN}"
        done = run_wismo("record", "--provider", provider, "--base-url", base_url, "--model", "loop",
                         "--api-key-env", "WISMO_CANARY_KEY", "--repetitions", "1", "--concurrency", "8",
                         "--cases", "delivered-on-time,carrier-delay,partial-delivery,payment-declined",
                         "--out", "runs", "--run-id", "run1", cwd=tmp_path, env=env)
        printed["record"] = done.stdout + done.stderr
        assert done.returncode == 1, done.stderr  # the planned faults
        run = tmp_path / "runs" / "run1"
        finished = live_finished(run)
        # Every path was taken: echoed credentials, an error quoting them, a connection error quoting the URL.
        assert finished["carrier-delay.granular.r1"]["error"].startswith("bad_request:")
        if provider == "openai-chat":
            assert finished["partial-delivery.focused.r1"]["error"].startswith("connection:")
        assert "[redacted]" in json.dumps(finished["payment-declined.focused.r1"]["assessment"])
        manifest = json.loads((run / "manifest.json").read_text())
        assert manifest["baseUrl"] == f"http://{host}{prefix}?api_key=[redacted]"

        # A resume that supplies the credentials again (--base-url) records its command line redacted too.
        resumed = run_wismo("record", "--resume", str(run), "--base-url", base_url, cwd=tmp_path, env=env)
        printed["resume"] = resumed.stdout + resumed.stderr
        assert "--base-url" in json.loads((run / "manifest.json").read_text())["resumes"][0]["commandLine"]

    for command in (["validate", str(run)], ["summarize", str(run)], ["summarize", "--json", str(run)],
                    ["build-site", str(run), "--out", str(tmp_path / "site")]):
        shown = CliRunner().invoke(cli, command, env=env)
        printed[" ".join(command)] = shown.output
    assert (tmp_path / "site" / "index.html").exists()
    found = leaks({**folder_texts(run), **folder_texts(tmp_path / "site"), **printed})
    assert not found, found
