"""Screenshots of every view at desktop and phone width, light and dark, for looking at.

    .venv/bin/python scripts/screenshots.py [OUT_DIR] [--query 'p=70B&n=64']

Starts the app on a free port of 127.0.0.1 and stops it afterwards. Prints any console error
or failed request, and whether a page scrolls sideways.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.chromium import launch
from tests.live import live_server

VIEWS = ("ladder", "wall", "pile", "seq", "sizes", "comm", "findings")
WIDTHS = {"desktop": 1280, "phone": 375}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="screenshots", type=Path)
    parser.add_argument("--query", default="", help="the configuration, as a share link's query")
    parser.add_argument("--readme", type=Path, help="also write the README's picture here")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = f"?{args.query}" if args.query else ""
    problems = 0
    with live_server() as base, sync_playwright() as playwright:
        browser = launch(playwright)
        for scheme in ("light", "dark"):
            for device, width in WIDTHS.items():
                page = browser.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme,
                                        device_scale_factor=2 if device == "phone" else 1)
                messages: list[str] = []
                page.on("console", lambda m, out=messages: out.append(m.text) if m.type == "error" else None)
                page.on("requestfailed", lambda r, out=messages: out.append(f"failed: {r.url}"))
                page.goto(base + "/" + suffix)
                page.wait_for_function("() => document.documentElement.dataset.canonical !== undefined")
                for view in VIEWS:
                    section = page.locator(f"#{view}")
                    section.scroll_into_view_if_needed()
                    if view not in ("ladder", "findings"):
                        page.wait_for_selector(f"#chart-{view} .main-svg")
                    page.wait_for_timeout(200)
                    section.screenshot(path=args.out / f"{device}-{scheme}-{view}.png")
                if args.readme and device == "desktop" and scheme == "light":
                    page.evaluate("() => window.scrollTo(0, 0)")
                    page.wait_for_timeout(300)
                    page.screenshot(path=args.readme, clip={"x": 0, "y": 0, "width": width, "height": 900})
                sideways = page.evaluate("() => document.documentElement.scrollWidth") > width
                for message in messages:
                    print(f"{device}/{scheme}: {message}")
                if sideways:
                    print(f"{device}/{scheme}: the page scrolls sideways")
                problems += len(messages) + sideways
                page.close()
        browser.close()
    print(f"screenshots in {args.out}/; {problems} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
