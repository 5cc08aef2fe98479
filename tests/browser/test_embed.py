"""Embedding (issue 3): /embed in a course page of another origin, with no script on the host;
the Embed dialog gives the snippet. (Who may frame what: test_framing.py.)"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.browser.conftest import wait_for_canonical
from tests.live import free_port

pytestmark = [pytest.mark.browser, pytest.mark.live]


@pytest.fixture(scope="module")
def host(tmp_path_factory, base_url) -> Iterator[str]:
    """A course page's server: another origin (another port) on 127.0.0.1, static files only."""
    root = tmp_path_factory.mktemp("host")
    (root / "favicon.ico").write_bytes(b"")
    (root / "course.html").write_text(
        f"""<!doctype html><title>Course</title><h1>Week 3: ZeRO</h1>
        <iframe id="wall" src="{base_url}/embed?view=wall&p=13B&controls=p"
                width="800" height="480" style="border:0"></iframe>"""
    )
    (root / "listening.html").write_text(
        f"""<!doctype html><title>0</title>
        <iframe src="{base_url}/embed?view=ladder" width="800" height="480"></iframe>
        <script>addEventListener("message", e => {{
          if (e.data && e.data.type === "memory-wall:height") document.title = String(e.data.height);
        }});</script>"""
    )
    port = free_port()
    server = ThreadingHTTPServer(("127.0.0.1", port), partial(SimpleHTTPRequestHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.shutdown()
        server.server_close()


def test_embed_renders_in_an_iframe_of_another_origin_with_no_host_script(page, host, base_url):
    page.goto(host + "/course.html")
    frame = page.frame_locator("#wall")
    frame.locator("#chart-wall .main-svg").first.wait_for()
    inner = next(f for f in page.frames if f.url.startswith(base_url + "/embed"))
    # Fits the 480 px frame: nothing scrolls inside it, sideways or down.
    assert inner.evaluate("() => document.documentElement.scrollHeight") <= 480
    assert inner.evaluate("() => document.documentElement.scrollWidth") <= 800
    chart_box = frame.locator("#chart-wall").bounding_box()
    assert chart_box["height"] > 250
    # The figure is drawn to its box: nothing of it (an axis, say) is cut off below.
    inner.wait_for_function(
        "() => { const c = document.getElementById('chart-wall');"
        " return Number(c.querySelector('.main-svg').getAttribute('height')) <= c.clientHeight + 1; }"
    )
    # Only the control asked for, and a link back to the full explorer in the same state.
    assert frame.locator("#slider-p").count() == 1
    assert frame.locator("#slider-n").count() == 0
    assert frame.locator("#full-link").get_attribute("href") == "/?p=13B#wall"
    assert page.console_watch.errors == []


def test_embed_control_moves_the_chart_and_the_link_back(page, host, base_url):
    page.goto(host + "/course.html")
    frame = page.frame_locator("#wall")
    frame.locator("#chart-wall .main-svg").first.wait_for()
    inner = next(f for f in page.frames if f.url.startswith(base_url + "/embed"))
    frame.locator("#slider-p").focus()
    inner.press("#slider-p", "ArrowRight")  # 13B → 15B
    wait_for_canonical(inner, "p=15B")
    assert frame.locator("#full-link").get_attribute("href") == "/?p=15B#wall"


def test_embed_posts_its_height_to_hosts_that_listen(page, host):
    page.goto(host + "/listening.html")
    page.wait_for_function("() => Number(document.title) > 100")


def test_embed_dialog_gives_the_iframe_snippet_for_the_current_state(page, base_url):
    page.goto(base_url + "/?p=7B&unit=GB")
    page.wait_for_selector("#chart-pile .main-svg")
    page.locator('#pile button[data-embed="pile"]').click()
    snippet = page.locator("#embed-snippet").input_value()
    assert snippet.startswith(f'<iframe src="{base_url}/embed?view=pile&amp;p=7B&amp;unit=GB"')
    assert 'height="480"' in snippet and "<script" not in snippet
    page.fill("#embed-height", "600")
    assert 'height="600"' in page.locator("#embed-snippet").input_value()
