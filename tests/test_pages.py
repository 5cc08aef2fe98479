"""The pages as HTML (issue 3): what the server renders, before any script runs."""

from __future__ import annotations

import json
import re

import pytest

from app.examples import EXAMPLES


def page_data(html: str) -> dict:
    match = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', html, re.DOTALL)
    assert match, "no page data"
    return json.loads(match.group(1))


def test_first_view_is_embedded_and_equals_the_api_answer(client):
    html = client.get("/?p=70B&n=64").text
    embedded = page_data(html)["view"]
    api = client.get("/api/v1/view?p=70B&n=64").json()
    assert embedded == api


def test_plotly_comes_from_the_app_at_a_versioned_immutable_url(client):
    html = client.get("/").text
    src = re.search(r'<script src="(/static/vendor/plotly-[0-9.]+\.min\.js)" defer>', html).group(1)
    r = client.get(src, headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert r.headers["content-encoding"] == "gzip"
    assert r.content.startswith(b"/**\n* plotly.js v")
    assert not re.search(r'(?:src|href)="(?:https?:)?//', html), "nothing may load from another origin"


def test_every_app_asset_url_is_content_hashed_and_immutable(client):
    html = client.get("/").text
    urls = re.findall(r'(?:src|href)="(/static/[0-9a-f]{12}/[^"]+)"', html)
    assert {u.rsplit("/", 2)[-2] + "/" + u.rsplit("/", 1)[-1] for u in urls} >= {"css/app.css", "js/main.js", "js/charts.js"}
    for url in urls:
        r = client.get(url)
        assert r.status_code == 200 and r.headers["cache-control"].endswith("immutable"), url
    assert client.get("/static/000000000000/css/app.css").status_code == 404


def test_controls_carry_the_query_values_without_script(client):
    html = client.get("/?p=13B&n=64&card=h100-80&acts=1&link=nvlink3").text
    assert 'name="p" value="13B"' in html
    assert 'id="in-n" name="n" value="64"' in html
    assert re.search(r'<option value="h100-80" selected>', html)
    assert re.search(r'name="acts" value="1" checked', html)
    assert re.search(r'name="link" value="nvlink3" checked', html)
    assert not re.search(r'name="link" value="nvlink4" checked', html)


def test_sliders_have_labels_and_human_value_text(client):
    html = client.get("/?p=1.5T").text
    assert 'aria-valuetext="1.5T parameters"' in html
    assert '<label for="in-p">Model size</label>' in html


def test_bad_keys_give_a_notice_and_defaults(client):
    html = client.get("/?n=99999&zz=%3Cb%3E").text
    assert "n=99999: above the maximum 16384; the default is used" in html
    assert "<code>zz=&lt;b&gt;</code>" in html
    assert page_data(html)["view"]["query"]["n"] == 8


def test_pages_revalidate_with_etags(client):
    r = client.get("/?p=7B")
    assert r.headers["cache-control"] == "public, no-cache"
    again = client.get("/?p=7B", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.view.value + ":" + e.query.canonical())
def test_examples_open_without_notices_on_their_view(client, example):
    path, _, view = example.href.partition("#")
    html = client.get(path).text
    assert 'id="notices"' not in html
    assert f'id="{view}"' in html
    assert page_data(html)["view"]["canonical"] == example.query.canonical()


def test_embed_shows_one_view_its_controls_and_a_link_back(client):
    html = client.get("/embed?view=sizes&controls=p,n&p=70B&unit=GB").text
    assert html.count('class="view"') == 1 and 'id="sizes"' in html
    assert 'id="slider-p"' in html and 'id="slider-n"' in html and 'id="slider-s"' not in html
    assert 'href="/?p=70B&amp;unit=GB#sizes"' in html
    assert '<input type="hidden" name="unit" value="GB">' in html


def test_embed_with_a_bad_view_falls_back_with_a_notice(client):
    html = client.get("/embed?view=everything").text
    assert "view=everything: not one of" in html
    assert 'id="wall"' in html


def test_oembed_answers_rich_as_oembed_com_specifies(client):
    r = client.get("/oembed", params={"url": "http://testserver/?p=7B&view=pile", "maxwidth": 600})
    assert r.status_code == 200
    body = r.json()
    assert {k: body[k] for k in ("type", "version", "provider_name", "width", "height")} == {
        "type": "rich", "version": "1.0", "provider_name": "Memory Wall", "width": 600, "height": 480}
    assert body["html"].startswith('<iframe src="http://testserver/embed?view=pile&amp;p=7B"')


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({"url": "https://elsewhere.example/?p=7B"}, 404),
        ({"url": "http://testserver/api/v1/view"}, 404),
        ({"url": "http://testserver/", "format": "xml"}, 501),
        ({}, 422),
    ],
)
def test_oembed_refusals(client, params, status):
    assert client.get("/oembed", params=params).status_code == status


def test_json_in_html_cannot_close_its_script_element(client):
    html = client.get("/", params={"zz</script><script>alert(1)</script>": "1"}).text
    data_block = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', html, re.DOTALL).group(1)
    assert "<" not in data_block
    assert any("</script>" in n["key"] for n in page_data(html)["notices"])
