"""The explorer's pages: ``/`` (every view), ``/embed`` (one view) and ``/oembed``.

A page opened from a link renders whatever it can: bad or unknown keys fall back to their
defaults and come back as a visible notice. The first view is drawn from data embedded in the
HTML (the same bytes ``/api/v1/view`` would send), so no round trip precedes the first chart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape
from pydantic import ValidationError

from app import __version__
from app.api import cache, catalog_data, dumps, envelope, view_answer
from app.controls import GROUPS, controls, strategy_help
from app.examples import EXAMPLES
from app.http_cache import Encoded, cached_response, cached_route_class
from app.model.report import Evaluation
from app.schemas import CONTROL_KEYS, PAGE_KEYS, EmbedQuery, MemoryQuery, Notice, View, lenient_query

TEMPLATES = Jinja2Templates(directory=Path(__file__).resolve().parent.parent / "templates")
PAGE_CACHE_CONTROL = "public, no-cache"
"""Revalidate every time: a repeat visit costs a 304, and a new release is seen at once."""

VIEW_TITLES = {
    View.LADDER: "The memory ladder",
    View.WALL: "The memory wall",
    View.PILE: "The pile",
    View.SEQ: "The pile against sequence length",
    View.SIZES: "Savings across model sizes",
    View.COMM: "Communication per step",
    View.FINDINGS: "Findings",
}
EMBED_SIZE = (800, 480)

router = APIRouter(route_class=cached_route_class(cache))
OEmbedFormat = Literal["json", "xml"]


def json_script(data: bytes) -> Markup:
    """JSON bytes made safe inside a <script type="application/json"> element: no "</script>",
    no "<!--", and no U+2028/2029 survive as such."""
    text = data.decode()
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return Markup(text)


def _page_key(request: Request) -> str:
    # The page names its own absolute URL (for oEmbed discovery), so the host is part of it.
    return f"{request.headers.get('host', '')}{request.url.path}?{request.url.query}"


def _common(request: Request, query: MemoryQuery, notices: list[Any]) -> dict[str, Any]:
    view = {**envelope(query), **view_answer(Evaluation(query.to_config()))}
    assets = request.app.state.assets
    canonical = query.canonical()
    page_data = {
        "view": view,
        "notices": [n.model_dump() for n in notices],
        "catalog": {**catalog_data(), "strategy_help": strategy_help()},
        "stops": {k: c.stops for k, c in controls(query).items() if c.stops},
        "api": "/api/v1/view",
        "page_keys": list(PAGE_KEYS),
        "view_key": next(iter(EmbedQuery.model_fields)),
    }
    return {
        "request": request,
        "version": __version__,
        "assets": assets,
        "query": query,
        "controls": controls(query),
        "groups": GROUPS,
        "notices": notices,
        "canonical": canonical,
        "page_data": json_script(dumps(page_data)),
        "view_titles": {v.value: t for v, t in VIEW_TITLES.items()},
        "findings": view["findings"],
        "examples": EXAMPLES,
        "oembed_href": "/oembed?" + urlencode({"url": str(request.base_url).rstrip("/") + "/" + (f"?{canonical}" if canonical else ""), "format": "json"}),
    }


def _render(request: Request, template: str, context: dict[str, Any]) -> Encoded:
    html = TEMPLATES.get_template(template).render(context)
    return Encoded.build(html.encode(), "text/html; charset=utf-8", _page_key(request))


@router.get("/", include_in_schema=False)
async def index(request: Request) -> Response:
    """The explorer: every view, every control."""

    def build() -> Encoded:
        query, notices = lenient_query(list(request.query_params.multi_items()))
        return _render(request, "index.html", _common(request, query, notices))

    return cached_response(request, cache, _page_key(request), build, cache_control=PAGE_CACHE_CONTROL)


@router.get("/embed", include_in_schema=False)
async def embed(request: Request) -> Response:
    """One view for a course page's iframe, with the controls named by ``controls=``."""

    def build() -> Encoded:
        pairs = list(request.query_params.multi_items())
        query, notices = lenient_query(pairs)
        embed_query, embed_notices = _embed_keys(pairs)
        context = _common(request, query, notices + embed_notices)
        shown = [k.value for k in embed_query.controls]
        context.update(
            view_name=embed_query.view.value,
            shown_controls=shown,
            hidden_items=[(k, v) for k, v in query.canonical_items() if k not in shown],
            full_url="/" + (f"?{context['canonical']}" if context["canonical"] else "") + f"#{embed_query.view.value}",
        )
        return _render(request, "embed.html", context)

    return cached_response(request, cache, _page_key(request), build, cache_control=PAGE_CACHE_CONTROL)


def _embed_keys(pairs: list[tuple[str, str]]) -> tuple[EmbedQuery, list[Notice]]:
    raw: dict[str, Any] = {}
    notices = []
    for key, value in pairs:
        if key == "view":
            raw["view"] = value
        elif key == "controls":
            raw.setdefault("controls", []).extend(v for v in value.split(",") if v)
    try:
        return EmbedQuery.model_validate(raw), notices
    except ValidationError:
        view = raw.get("view")
        valid_views = [v.value for v in View]
        if view not in valid_views:
            notices.append(Notice(key="view", value=str(view), message=f"view={view}: not one of {', '.join(valid_views)}; the default is used"))
            raw.pop("view", None)
        bad = [c for c in raw.get("controls", []) if c not in CONTROL_KEYS]
        if bad:
            notices.append(Notice(key="controls", value=",".join(bad), message=f"controls: unknown keys {', '.join(bad)} ignored"))
            raw["controls"] = [c for c in raw.get("controls", []) if c in CONTROL_KEYS]
        return EmbedQuery.model_validate(raw), notices


@router.get(
    "/oembed",
    tags=["embed"],
    operation_id="oembed",
    responses={404: {"description": "The URL is not a Memory Wall page."},
               501: {"description": "Only format=json is offered."}},
)
async def oembed(
    request: Request,
    url: Annotated[
        str,
        Query(max_length=1024, pattern=r"^[!-~]+$", description="A Memory Wall page or embed URL (printable ASCII)."),
    ],
    format: Annotated[OEmbedFormat, Query(description="Only json is offered; xml answers 501.")] = "json",
    maxwidth: Annotated[int | None, Query(ge=1, le=10000)] = None,
    maxheight: Annotated[int | None, Query(ge=1, le=10000)] = None,
) -> Response:
    """oEmbed (oembed.com, type "rich"): an iframe of /embed for a page of this site."""
    if format != "json":
        return JSONResponse({"message": f"format={format}: only json is offered"}, status_code=501)
    parts = urlsplit(url)
    base = str(request.base_url).rstrip("/")
    if parts.scheme not in ("http", "https") or f"{parts.scheme}://{parts.netloc}" != base or parts.path not in ("/", "", "/embed"):
        return JSONResponse({"message": f"url={url}: not a page of {base}"}, status_code=404)
    pairs = [(k, v) for k, v in parse_qsl(parts.query) if k in CONTROL_KEYS or k in PAGE_KEYS]
    query, _ = lenient_query(pairs)
    view = next((v for k, v in pairs if k == "view" and v in {x.value for x in View}), View.WALL.value)
    width = min(EMBED_SIZE[0], maxwidth or EMBED_SIZE[0])
    height = min(EMBED_SIZE[1], maxheight or EMBED_SIZE[1])
    src_query = urlencode([("view", view), *query.canonical_items()])
    title = f"Memory Wall: {VIEW_TITLES[View(view)].lower()}"
    html = (
        f'<iframe src="{base}/embed?{_attr(src_query)}" width="{width}" height="{height}" '
        f'style="border:0;max-width:100%" loading="lazy" title="{_attr(title)}"></iframe>'
    )
    return JSONResponse(
        {
            "type": "rich",
            "version": "1.0",
            "title": title,
            "provider_name": "Memory Wall",
            "provider_url": base + "/",
            "html": html,
            "width": width,
            "height": height,
            "cache_age": 3600,
        },
        headers={"Cache-Control": "public, max-age=3600"},
    )


def _attr(text: str) -> str:
    return str(escape(text))
