"""The explorer in headless Chromium: slider input to drawn chart, and bytes per visit.

* Drag latency: the model-size slider is moved one stop at a time, 100 times, alternating
  direction in sweeps so most positions are configurations the server has not seen in this
  run. Each drag is timed from the slider's `input` event to the memory-wall chart's
  `plotly_afterplot` for that input's answer (fetch, JSON, figure, Plotly).
* The same figures replayed with `Plotly.react` alone (no fetch, no figure building): the
  floor that drawing itself sets. The ratio of the two says what the rest of the loop adds.
* Bytes transferred (encoded, as on the wire, from Chromium's network events) on a first
  visit with an empty cache and on a repeat visit in the same browser profile.
"""

from __future__ import annotations

import statistics
from typing import Any

from playwright.sync_api import sync_playwright

from bench.common import BenchError, Settings, check, print_table, running_server
from tests.chromium import launch

DRAGS = 100
QUICK_DRAGS = 20
MEDIAN_TARGET_MS = 50.0
RATIO_TARGET = 2.0
REPEAT_VISIT_TARGET_BYTES = 100 * 1000

# Runs in the page. Returns [input→afterplot ms, canonical, figure] for one move of the p
# slider: the time of the wall's first plotly_afterplot after the input, once the page says
# (data-canonical) that the answer to this input is what it shows.
DRAG_ONCE = """
async (direction) => {
  const gd = document.getElementById('chart-wall');
  const slider = document.getElementById('slider-p');
  const before = document.documentElement.dataset.canonical;
  let drawnAt = null;
  const onPlot = () => { if (drawnAt === null) drawnAt = performance.now(); };
  gd.on('plotly_afterplot', onPlot);
  const shown = new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (document.documentElement.dataset.canonical !== before) { observer.disconnect(); resolve(); }
    });
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-canonical'] });
  });
  const start = performance.now();
  slider.value = String(Number(slider.value) + direction);
  slider.dispatchEvent(new Event('input', { bubbles: true }));
  await shown;
  gd.removeListener('plotly_afterplot', onPlot);
  return [drawnAt - start, document.documentElement.dataset.canonical,
          JSON.parse(JSON.stringify({ data: gd.data, layout: gd.layout }))];
}
"""

# Runs in the page: Plotly.react alone on recorded figures, alternating so each call changes
# the chart as a drag did. Returns ms per call, each ending at plotly_afterplot.
REACT_ONLY = """
async (figures) => {
  const gd = document.getElementById('chart-wall');
  const times = [];
  for (const figure of figures) {
    const drawn = new Promise((resolve) => gd.once('plotly_afterplot', () => resolve(performance.now())));
    const start = performance.now();
    await Plotly.react(gd, figure.data, figure.layout);
    times.push((await drawn) - start);
  }
  return times;
}
"""


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def _transferred(page, url: str, *, reload: bool = False) -> tuple[int, int]:
    """(bytes on the wire, requests) for loading `url` in `page` until its charts are drawn."""
    session = page.context.new_cdp_session(page)
    session.send("Network.enable")
    sizes: dict[str, int] = {}
    session.on("Network.loadingFinished", lambda e: sizes.__setitem__(e["requestId"], e["encodedDataLength"]))
    if reload:
        page.reload()
    else:
        page.goto(url)
    page.wait_for_selector("#chart-wall .main-svg")
    page.wait_for_timeout(500)
    session.detach()
    return sum(sizes.values()), len(sizes)


def run(settings: Settings) -> dict[str, Any]:
    drags = QUICK_DRAGS if settings.quick else DRAGS
    with running_server() as server, sync_playwright() as playwright:
        try:
            browser = launch(playwright)
        except Exception as error:  # a missing or broken Chromium is a set-up problem
            raise BenchError(f"Chromium did not start: {error}") from error
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            first_bytes, first_requests = _transferred(page, server.base_url + "/?p=1B")
            repeat_bytes, repeat_requests = _transferred(page, server.base_url + "/?p=1B", reload=True)

            page.locator("#chart-wall").scroll_into_view_if_needed()
            latencies: list[float] = []
            figures: list[dict[str, Any]] = []
            direction = 1
            stops = int(page.get_attribute("#slider-p", "max"))
            for _ in range(drags):
                position = int(page.locator("#slider-p").input_value())
                if not 0 <= position + direction <= stops:
                    direction = -direction
                elapsed, _canonical, figure = page.evaluate(DRAG_ONCE, direction)
                latencies.append(elapsed)
                figures.append(figure)
            react = page.evaluate(REACT_ONLY, figures)
            context.close()
        finally:
            browser.close()

    median, p95 = statistics.median(latencies), _percentile(latencies, 0.95)
    react_median, react_p95 = statistics.median(react), _percentile(react, 0.95)
    ratio = median / react_median
    print_table(
        f"slider input → plotly_afterplot of the memory wall ({drags} drags of the model-size slider)",
        ["", "median ms", "p95 ms", "min ms", "max ms"],
        [
            ["input → afterplot", f"{median:.1f}", f"{p95:.1f}", f"{min(latencies):.1f}", f"{max(latencies):.1f}"],
            ["Plotly.react alone", f"{react_median:.1f}", f"{react_p95:.1f}", f"{min(react):.1f}", f"{max(react):.1f}"],
            ["ratio", f"{ratio:.2f}", f"{p95 / react_p95:.2f}", "", ""],
        ],
    )
    print_table(
        "bytes transferred (encoded), page /?p=1B until the charts are drawn",
        ["visit", "bytes", "requests"],
        [["first (empty cache)", f"{first_bytes:,}", first_requests],
         ["repeat (same profile)", f"{repeat_bytes:,}", repeat_requests]],
    )
    return {
        "drags": drags,
        "input_to_afterplot_ms": {"median": median, "p95": p95, "all": latencies},
        "plotly_react_ms": {"median": react_median, "p95": react_p95, "all": react},
        "ratio_median": ratio,
        "first_visit_bytes": first_bytes,
        "first_visit_requests": first_requests,
        "repeat_visit_bytes": repeat_bytes,
        "repeat_visit_requests": repeat_requests,
        "checks": [
            check("median input → afterplot", f"< {MEDIAN_TARGET_MS:g} ms", round(median, 1), median < MEDIAN_TARGET_MS),
            check("ratio to Plotly.react alone", f"< {RATIO_TARGET:g}", round(ratio, 2), ratio < RATIO_TARGET),
            check("repeat visit", f"< {REPEAT_VISIT_TARGET_BYTES:,} B", repeat_bytes, repeat_bytes < REPEAT_VISIT_TARGET_BYTES),
        ],
    }
