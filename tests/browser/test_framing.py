"""Who may frame what, in a real browser (issue 4): /embed by the origins in
MEMWALL_EMBED_ORIGINS (any, by default), the rest of the app by no other origin."""

from __future__ import annotations

import http.server
import threading
import time

import pytest

from tests.live import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.live]


@pytest.mark.parametrize(
    ("embed_origins", "embed_framed"),
    [(None, True), ("https://course.example.edu", False)],
)
def test_chromium_frames_embed_for_the_allowed_origins_and_never_the_page(browser, embed_origins, embed_framed):
    """Another origin (another port of 127.0.0.1) frames /embed and /: with the default "*" the
    embed draws and the page is refused; with an allow-list that omits it, both are refused."""
    env = {"MEMWALL_EMBED_ORIGINS": embed_origins} if embed_origins else None
    with LiveServer(env) as app_server:
        html = (
            f'<iframe id="embed" src="{app_server.url}/embed?view=wall" width="800" height="480"></iframe>'
            f'<iframe id="page" src="{app_server.url}/"></iframe>'
        ).encode()

        class Embedder(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(html)))
                self.end_headers()
                self.wfile.write(html)

            def log_message(self, *args: object) -> None:
                pass

        embedder = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Embedder)
        thread = threading.Thread(target=embedder.serve_forever, daemon=True)
        thread.start()
        context = browser.new_context()
        try:
            page = context.new_page()
            refusals: list[str] = []
            page.on("console", lambda m: refusals.append(m.text) if "frame-ancestors" in m.text else None)
            page.goto(f"http://127.0.0.1:{embedder.server_port}/")
            embed = page.frame_locator("#embed")
            if embed_framed:
                embed.locator(".main-svg").first.wait_for(timeout=15000)
            page.wait_for_function("() => document.readyState === 'complete'")
            deadline = time.monotonic() + 10
            while len(refusals) < (1 if embed_framed else 2) and time.monotonic() < deadline:
                page.wait_for_timeout(100)
            urls = sorted(frame.url for frame in page.frames[1:])
        finally:
            context.close()
            embedder.shutdown()
            embedder.server_close()
    # Chromium names only the framed origin; the directive tells the two refusals apart.
    assert sum("frame-ancestors 'self'" in r for r in refusals) == 1
    if embed_framed:
        assert urls == ["chrome-error://chromewebdata/", f"{app_server.url}/embed?view=wall"]
        assert len(refusals) == 1
    else:
        assert urls == ["chrome-error://chromewebdata/"] * 2
        assert any("frame-ancestors https://course.example.edu" in r for r in refusals)
