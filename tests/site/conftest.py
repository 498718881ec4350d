"""Fixtures for the site tests: sites built from the factories, and Debian's Chromium through Playwright."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT
from wismo.sitegen import build_site

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
ARTIFACTS = ROOT / "tests" / "artifacts"
BUILT_AT = "2026-11-30T12:00:00+00:00"


@pytest.fixture
def build(tmp_path: Path) -> Callable[..., Path]:
    """Build a site from factory arguments into a fresh folder; returns the site folder."""
    counter = iter(range(100))

    def make(site: dict[str, Any], out: Path | None = None, **extra: Any) -> Path:
        out = out or tmp_path / f"site-{next(counter)}"
        build_site(**site, out_dir=out, built_at=BUILT_AT, **extra)
        return out

    return make


def _browser_problem() -> str | None:
    if not CHROMIUM.exists():
        return f"Debian's Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    return None


# Package scope, not session: sync_playwright runs an event loop in this thread until it exits, and
# tests after tests/site (test_adversarial.py) call asyncio.run(), which refuses to nest in it.
@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """Chromium driven by Playwright; skipped without it, unless WISMO_REQUIRE_BROWSER=1 (CI), then failed."""
    problem = _browser_problem()
    if problem:
        if os.environ.get("WISMO_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{problem}; WISMO_REQUIRE_BROWSER=1 requires the browser tests to run")
        pytest.skip(problem)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class PageWatch:
    """A page plus everything it logged and requested, to assert no errors and no network."""

    def __init__(self, page: Any, name: str) -> None:
        self.page, self.name = page, name
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda m: self.errors.append(f"console.{m.type}: {m.text}")
                if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        page.on("request", lambda r: self.requests.append(r.url))

    def shot(self, step: str) -> None:
        """Keep a screenshot of this step as a test artifact."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{self.name}-{step}.png"), full_page=True)

    def assert_clean(self) -> None:
        """No console errors or warnings, no page errors, no request other than file://."""
        assert self.errors == [], self.errors
        network = [url for url in self.requests if not url.startswith("file://")]
        assert network == [], network


@pytest.fixture
def open_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Callable[..., PageWatch]]:
    """A fresh browser context (empty localStorage) per test; call it to get a watched page."""
    contexts = []

    def make(java_script: bool = True, viewport: tuple[int, int] = (1280, 900)) -> PageWatch:
        context = browser.new_context(java_script_enabled=java_script, accept_downloads=True,
                                      viewport={"width": viewport[0], "height": viewport[1]})
        contexts.append(context)
        return PageWatch(context.new_page(), f"{request.node.name}-{len(contexts)}")

    yield make
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def real_sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The demo, a three-design run and a generated study, recorded offline and built by the CLI (once)."""
    from tests.site.real_sites import build_real_sites

    return build_real_sites(tmp_path_factory.mktemp("real-sites"))
