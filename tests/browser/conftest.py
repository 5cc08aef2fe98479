"""Headless Chromium (Debian's package, driven by Playwright) against a live server.

Chromium is launched from its system path with the flags this machine needs; Playwright's
own browser download is never used.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.chromium import launch
from tests.live import live_server


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with live_server() as url:
        yield url


class ConsoleWatch:
    """Console errors and uncaught exceptions of a page."""

    def __init__(self, page: Page) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.console_watch = ConsoleWatch(page)  # type: ignore[attr-defined]
    yield page
    context.close()


def wall_traces(page: Page) -> list[dict]:
    """What the wall chart draws: each line segment's scheme, fit and dash, from Plotly."""
    return page.evaluate(
        """() => document.getElementById('chart-wall').data
            .filter(t => t.meta && t.meta.role === 'segment')
            .map(t => ({scheme: t.meta.scheme, fits: t.meta.fits, dash: t.line.dash,
                        x: Array.from(t.x), y: Array.from(t.y)}))"""
    )


def wait_for_canonical(page: Page, canonical: str, timeout: float = 5000) -> None:
    """Wait until the figures on screen are those of `canonical` (the API's canonical query,
    which the page writes to <html data-canonical> after drawing each answer)."""
    page.wait_for_function(
        "c => document.documentElement.dataset.canonical === c", arg=canonical, timeout=timeout
    )
