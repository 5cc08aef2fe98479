"""The explorer in headless Chromium (issue 3)."""

from __future__ import annotations

import json
import urllib.request

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import wait_for_canonical, wall_traces

pytestmark = [pytest.mark.browser, pytest.mark.live]


def api(base_url: str, path: str) -> dict:
    with urllib.request.urlopen(base_url + path) as response:
        return json.load(response)


def open_page(page: Page, url: str, chart: str | None = "wall") -> None:
    """Open `url` and wait until its first answer is drawn (and `chart`, if on screen)."""
    page.goto(url)
    page.wait_for_function("() => document.documentElement.dataset.canonical !== undefined")
    if chart:
        page.wait_for_selector(f"#chart-{chart} .main-svg")


def test_wall_is_dashed_exactly_where_the_api_says_it_does_not_fit(page, base_url):
    open_page(page, base_url + "/")
    drawn = wall_traces(page)
    expected = api(base_url, "/api/v1/wall")
    assert sorted({t["scheme"] for t in drawn}) == ["dp", "zero1", "zero2", "zero3"]
    for scheme in expected["schemes"]:
        mine = [t for t in drawn if t["scheme"] == scheme["id"]]
        assert [t["fits"] for t in mine] == [s["fits"] for s in scheme["segments"]]
        for trace, segment in zip(mine, scheme["segments"]):
            assert trace["dash"] == ("solid" if segment["fits"] else "dash")
            assert trace["x"] == segment["gpus"]
    zero2 = [t for t in drawn if t["scheme"] == "zero2"]
    assert zero2[0]["x"][-1] == zero2[1]["x"][0] == 21.0  # the seed's ZeRO-2 boundary, exactly
    assert page.console_watch.errors == []


def test_dragging_model_size_from_10b_to_30b_turns_zero1_wholly_dashed(page, base_url):
    """Seed 1: ZeRO-1's 4-bytes-per-weight floor crosses the 80 GB card at 20B."""
    open_page(page, base_url + "/?p=10B")
    zero1 = [t for t in wall_traces(page) if t["scheme"] == "zero1"]
    assert [t["dash"] for t in zero1] == ["dash", "solid"]
    findings = page.locator("[data-findings]").inner_text()
    assert "ZeRO-1 fits from 8 GPUs upward" in findings

    slider = page.locator("#slider-p")
    slider.focus()
    for _ in range(5):  # 10B → 12B → 15B → 20B → 25B → 30B
        page.keyboard.press("ArrowRight")
    wait_for_canonical(page, "")  # 30B is the default, so the canonical query is empty
    assert page.locator("#in-p").input_value() == "30B"
    zero1 = [t for t in wall_traces(page) if t["scheme"] == "zero1"]
    assert [t["dash"] for t in zero1] == ["dash"]
    findings = page.locator("[data-findings]").inner_text()
    assert "Data parallelism and ZeRO-1 never fit, at any number of GPUs" in findings
    assert "Four bytes across 30 billion weights is 111.8 GiB" in findings
    assert page.console_watch.errors == []


@pytest.mark.parametrize(
    ("key", "chart", "expected_query"),
    [("p", "chart-wall", "p=40B"), ("n", "chart-wall", "n=12"), ("s", "chart-seq", "s=6144")],
)
def test_each_slider_moved_by_keyboard_changes_the_url_and_the_charts(page, base_url, key, chart, expected_query):
    open_page(page, base_url + "/")
    page.locator(f"#{chart}").scroll_into_view_if_needed()
    page.wait_for_selector(f"#{chart} .main-svg")  # charts off screen are drawn on arrival
    before = page.evaluate(f"() => JSON.stringify(document.getElementById('{chart}').data.map(t => t.y))")
    page.locator(f"#slider-{key}").focus()
    page.keyboard.press("ArrowRight")
    wait_for_canonical(page, expected_query)
    page.wait_for_function("q => location.search === '?' + q", arg=expected_query)
    after = page.evaluate(f"() => JSON.stringify(document.getElementById('{chart}').data.map(t => t.y))")
    assert after != before
    slider = page.locator(f"#slider-{key}")
    assert slider.get_attribute("aria-valuetext")


def test_copied_link_opened_in_a_fresh_page_reproduces_the_figures(page, browser, base_url):
    open_page(page, base_url + "/?p=13B&n=64&card=h100-80&acts=1&ac=selective")
    page.locator("#slider-n").focus()
    page.keyboard.press("ArrowLeft")  # 64 → 48
    wait_for_canonical(page, "p=13B&n=48&card=h100-80&ac=selective&acts=1")
    page.locator("#copy-link").click()
    url = page.locator("#copy-link").get_attribute("data-url")
    assert url == base_url + "/?p=13B&n=48&card=h100-80&ac=selective&acts=1"
    figures = wall_traces(page)
    findings = page.locator("[data-findings]").inner_text()

    fresh = browser.new_context().new_page()
    open_page(fresh, url)
    assert wall_traces(fresh) == figures
    assert fresh.locator("[data-findings]").inner_text() == findings
    fresh.context.close()


def test_back_and_forward_undo_choosing_a_preset(page, base_url):
    open_page(page, base_url + "/")
    page.select_option("#in-model", "llama2-70b")
    wait_for_canonical(page, "model=llama2-70b")
    page.wait_for_function("() => location.search === '?model=llama2-70b'")
    assert page.locator("#in-p").input_value() == "68.976648192B"
    page.go_back()
    wait_for_canonical(page, "")
    assert page.locator("#in-model").input_value() == ""
    assert page.locator("#in-p").input_value() == "30B"
    page.go_forward()
    wait_for_canonical(page, "model=llama2-70b")
    assert page.locator("#in-model").input_value() == "llama2-70b"


def test_a_stale_answer_is_never_drawn_over_a_newer_one(page, base_url):
    """The first request is held back until after the second has been answered; the page
    must end on the second input's figures."""
    open_page(page, base_url + "/")
    held = []

    def hold_first(route):
        if not held and "n=12" in route.request.url:
            held.append(route)
            return
        route.continue_()

    page.route("**/api/v1/view?*", hold_first)
    page.locator("#slider-n").focus()
    page.keyboard.press("ArrowRight")  # 8 → 12: held
    page.wait_for_function("() => true")
    page.wait_for_timeout(100)
    page.keyboard.press("ArrowRight")  # 12 → 16: answered
    wait_for_canonical(page, "n=16")
    if held:
        held[0].continue_()
    page.wait_for_timeout(300)
    assert page.evaluate("() => document.documentElement.dataset.canonical") == "n=16"
    selected = page.evaluate(
        "() => document.getElementById('chart-wall').data.filter(t => t.meta && t.meta.role === 'selected')[0].x[0]"
    )
    assert selected == 16


def test_a_bad_key_opens_with_defaults_and_a_notice(page, base_url):
    open_page(page, base_url + "/?n=0&zz=1&p=7B")
    notice = page.locator("#notices")
    assert notice.is_visible()
    text = notice.inner_text()
    assert "n=0: below the minimum 1; the default is used" in text
    assert "zz: unknown key, ignored" in text
    assert page.locator("#in-p").input_value() == "7B"
    assert page.locator("#in-n").input_value() == "8"
    assert page.console_watch.errors == []


def test_phone_width_does_not_scroll_sideways(browser, base_url):
    context = browser.new_context(viewport={"width": 375, "height": 740}, device_scale_factor=2, is_mobile=True)
    page = context.new_page()
    open_page(page, base_url + "/", chart=None)
    for name in ("ladder", "wall", "pile", "seq", "sizes", "comm", "findings"):
        page.locator(f"#{name}").scroll_into_view_if_needed()
        if name not in ("ladder", "findings"):
            page.wait_for_selector(f"#chart-{name} .main-svg")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    context.close()


def test_every_view_offers_its_csv_and_png(page, base_url):
    open_page(page, base_url + "/?p=7B&unit=GB")
    for name in ("ladder", "wall", "pile", "seq", "sizes", "comm", "findings"):
        href = page.locator(f'a[data-csv="{name}"]').get_attribute("href")
        assert href == f"/api/v1/csv/{name}?p=7B&unit=GB"
    page.locator("#chart-wall").hover()
    assert page.locator('#chart-wall .modebar-btn[data-title="Download plot as a PNG"]').count() == 1


def test_page_advertises_oembed(page, base_url):
    open_page(page, base_url + "/?p=7B")
    href = page.locator('link[rel="alternate"][type="application/json+oembed"]').get_attribute("href")
    body = api(base_url, href)
    assert body["type"] == "rich" and body["version"] == "1.0"
    assert "/embed?view=wall&amp;p=7B" in body["html"]


def test_first_view_needs_no_api_round_trip(page, base_url):
    calls = []
    page.on("request", lambda r: calls.append(r.url) if "/api/" in r.url else None)
    open_page(page, base_url + "/?p=70B&n=64")
    assert calls == []
    assert page.locator("[data-table='ladder'] table").count() == 1
