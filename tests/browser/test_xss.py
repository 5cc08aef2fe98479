"""Hostile URLs (issue 4): script in every key's value, and in key names, of /, /embed and
/oembed, loaded in Chromium. No script of theirs may run (no dialog opens, and no console
error appears, which is what Chromium prints when the CSP blocks an injected script), and
none of it may appear unescaped in the HTML."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from app.schemas import CONTROL_KEYS, PAGE_KEYS

pytestmark = [pytest.mark.browser, pytest.mark.live]

PAYLOADS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "'><svg onload=alert(3)>",
    "</script><script>alert(4)</script>",
    "javascript:alert(5)",
    "{{7*7}}<b onmouseover=alert(6)>",
]
MARKERS = ["<script>alert", "<img src=x", "<svg onload", "<b onmouseover"]


def hostile_values() -> list[tuple[str, str]]:
    keys = [*CONTROL_KEYS, *PAGE_KEYS]
    return [(key, PAYLOADS[i % len(PAYLOADS)]) for i, key in enumerate(keys)]


def hostile_names() -> list[tuple[str, str]]:
    return [(payload, "1") for payload in PAYLOADS]


def load(page, url: str) -> tuple[list[str], list[str], str]:
    dialogs: list[str] = []
    errors: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    response = page.goto(url)
    page.wait_for_load_state("load")
    page.wait_for_timeout(500)
    return dialogs, errors, response.text()


@pytest.mark.parametrize("path", ["/", "/embed"])
@pytest.mark.parametrize("pairs", [hostile_values, hostile_names], ids=["values", "names"])
def test_no_injected_script_runs_and_none_appears_unescaped(page, base_url, path, pairs):
    query = pairs()
    if path == "/embed":
        query = [*query, ("controls", ",".join(CONTROL_KEYS))]
    dialogs, errors, html = load(page, f"{base_url}{path}?{urlencode(query)}")
    assert dialogs == []
    assert errors == []
    for marker in MARKERS:
        assert marker not in html
    # The page still opened, with a notice of what it ignored.
    assert page.locator("#notices").is_visible()
    page.wait_for_function("() => document.documentElement.dataset.canonical !== undefined")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_oembed_escapes_a_hostile_url(page, base_url, payload):
    target = f"{base_url}/?{urlencode([('p', payload), ('view', payload)])}"
    dialogs, errors, body = load(page, f"{base_url}/oembed?{urlencode({'url': target})}")
    assert dialogs == [] and errors == []
    for marker in MARKERS:
        assert marker not in body
