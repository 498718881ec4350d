"""Rough edges of issue 23, each reproduced as the user met it and now a clear line or a recovery."""

from __future__ import annotations

import pytest

from tests.helpers import run_wismo


@pytest.mark.parametrize(("header", "env", "message"), [
    ("remote=Bad Name: x", {}, "'Bad Name' is not a valid HTTP header name"),
    ("remote=X-Ok(: x", {}, "is not a valid HTTP header name"),
    ("remote=Authorization: Bearer ${WISMO_TEST_CRLF}", {"WISMO_TEST_CRLF": "t\r\nX-Injected: 1"},
     "its value (from the environment) holds a line break or NUL"),
])
def test_an_illegal_header_is_one_line_about_the_header_not_the_server(tmp_path, header, env, message):
    done = run_wismo("record", "--server", "remote=http://127.0.0.1:9/mcp", "--header", header, "--run-id", "h",
                     cwd=tmp_path, env=env)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "protocol" not in done.stderr.lower()
    assert "X-Injected" not in done.stderr and not (tmp_path / "runs" / "h").exists()
