"""Debian's Chromium, launched the way this project's tests and benchmarks need it.

Playwright drives the system browser through ``executable_path``; Playwright's own browser
download is never used (it cannot run here, and the system package is what CI installs).
"""

from __future__ import annotations

import shutil

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError("Chromium is not installed: run `make system-deps` (Debian package `chromium`)")


def launch(playwright):
    """A headless Chromium browser from the system package."""
    return playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
