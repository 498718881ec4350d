"""A llama-server run's pages: calls written as text are marked, and each request's time is split as the server says."""

from __future__ import annotations

import asyncio
import json
import re
from concurrent.futures import ThreadPoolExecutor
from html import unescape
from pathlib import Path

from recorder.run.record import record
from tests.helpers import run_wismo
from tests.recorder.test_local_server import correct_answer, events
from tests.recorder.test_text_calls import options
from wismo.loopback import llama_server_small_model


def built(tmp_path: Path) -> tuple[Path, Path]:
    server = llama_server_small_model(calls_as_text="element", answer=correct_answer)
    with server.serve() as fake:
        # In a thread of its own: a browser test earlier in the session may leave Playwright's event
        # loop running in this one, where asyncio.run refuses to start.
        coro = record(options(fake, tmp_path, "local", designs=("granular",), text_tool_calls=True))
        with ThreadPoolExecutor(1) as pool:
            run_dir = pool.submit(asyncio.run, coro).result().run_dir
    done = run_wismo("build-site", str(run_dir), "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    return run_dir, tmp_path / "site"


def text_of(page: Path) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", page.read_text())).split())


def test_the_conversation_page_marks_text_calls_and_splits_the_time(tmp_path):
    run_dir, site = built(tmp_path)
    [page] = [p for p in site.rglob("*.html") if "delivered-on-time.granular" in p.name]
    html, text = page.read_text(), text_of(page)
    calls = [e for e in events(run_dir) if e["type"] == "tool_call"]
    assert html.count(">written as text</span>") == 2 * len(calls)  # the diagram and the transcript
    responses = [e for e in events(run_dir) if e["type"] == "model_response"]
    first = responses[0]["serverTimings"]
    assert (f"server: prompt processing {first['promptMs'] / 1000:.2f} s" in text
            or f"server: prompt processing {first['promptMs']:,.0f} ms" in text), text[:2000]
    assert "Server: generation" in text and "Wismo and HTTP (elapsed − server − tools)" in text
    finished = next(e for e in events(run_dir) if e["type"] == "conversation_finished")
    prompt = sum(r["serverTimings"]["promptMs"] for r in responses)
    generation = sum(r["serverTimings"]["generatedMs"] for r in responses)
    # The fake's timings are made up at this machine's speeds, so they exceed the real elapsed time:
    # the rest is then shown as 0, never negative.
    assert prompt + generation > finished["claimed"]["elapsedMs"]
    assert re.search(r"Wismo and HTTP \(elapsed − server − tools\) 0(\.0+)? ?(ms|s)", text), text


def test_the_run_card_says_the_calls_were_read_from_text(tmp_path):
    run_dir, site = built(tmp_path)
    text = text_of(site / "index.html")
    assert "tool calls read from the model's text (--text-tool-calls), not native tool calling" in text
    assert json.loads((run_dir / "manifest.json").read_text())["textToolCalls"] is True
