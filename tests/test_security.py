"""Security headers and request limits (app/security.py), in-process and on a real socket."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import annotated_types
import pytest
from fastapi import FastAPI
from fastapi.responses import Response
from fastapi.testclient import TestClient

from app.main import app as main_app
from app.main import create_app
from app.schemas import EmbedQuery, MemoryQuery
from app.security import (
    DOCS_SCRIPT_SOURCE,
    MAX_HEADER_BYTES,
    MAX_HEADER_FIELD_BYTES,
    MAX_QUERY_PAIRS,
    MAX_URL_BYTES,
    SecurityMiddleware,
    check_limits,
    install,
    is_installed,
    parse_embed_origins,
)
from tests.live import LiveServer

STRICT_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'self'"
)
PERMISSIONS = (
    "accelerometer=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), "
    "magnetometer=(), microphone=(), midi=(), payment=(), usb=()"
)


def directives(csp: str) -> dict[str, list[str]]:
    parsed: dict[str, list[str]] = {}
    for part in csp.split(";"):
        name, *sources = part.split()
        assert name not in parsed, f"directive {name} twice in {csp!r}"
        parsed[name] = sources
    return parsed


def secured(**kwargs: str) -> FastAPI:
    app = create_app()
    install(app, **kwargs)
    return app


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(main_app) as c:
        yield c


def test_the_served_app_has_the_middleware():
    assert is_installed(main_app)


# -- headers ----------------------------------------------------------------------------------

PAGES = [
    "/",
    "/?p=70B&n=64&view=ladder",
    "/healthz",
    "/api/v1/view?p=7B",
    "/api/v1/memory?n=0",  # 422
    "/api/v1/openapi.json",
    "/api/v1/csv/ladder?p=7B",
    "/static/vendor/nothing.js",  # 404 from the static route
    "/no/such/page",  # 404 from the router
    "/embed/",  # not /embed
    "/embedded",
]


@pytest.mark.parametrize("url", PAGES)
def test_every_response_carries_the_strict_headers(client, url):
    r = client.get(url, follow_redirects=False)
    assert r.headers.get_list("content-security-policy") == [STRICT_CSP]
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "strict-origin-when-cross-origin"
    assert r.headers["permissions-policy"] == PERMISSIONS
    assert r.headers["cross-origin-opener-policy"] == "same-origin"
    assert r.headers.get_list("x-frame-options") == ["DENY"]
    assert "set-cookie" not in r.headers


def _routes(routes):
    # Included routers appear as one entry wrapping the router they were made from.
    for route in routes:
        original = getattr(route, "original_router", None)
        if original is not None:
            yield from _routes(original.routes)
        else:
            yield route


def route_urls() -> list[str]:
    """One URL for every GET route the app has, path parameters filled in."""
    fills = {"{name}": "ladder", "{path:path}": f"{main_app.state.assets.tree_hash}/css/app.css"}
    urls = []
    for route in _routes(main_app.routes):
        if "GET" not in getattr(route, "methods", ()):
            continue
        url = route.path
        for placeholder, value in fills.items():
            url = url.replace(placeholder, value)
        assert "{" not in url, f"no sample value for {route.path}"
        urls.append(url)
    return urls


def test_every_route_answers_with_the_security_headers(client):
    urls = route_urls()
    assert {"/", "/embed", "/oembed", "/healthz", "/api/v1/view", "/api/docs"} <= set(urls)
    for url in urls:
        r = client.get(url, follow_redirects=False)
        assert r.status_code < 500, url
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp, url
        assert "'unsafe-eval'" not in csp and "script-src 'self' 'unsafe-inline'" not in csp, url
        assert r.headers["x-content-type-options"] == "nosniff", url
        assert r.headers["referrer-policy"] == "strict-origin-when-cross-origin", url
        assert r.headers["permissions-policy"] == PERMISSIONS, url
        assert "set-cookie" not in r.headers, url
        if url == "/embed":
            assert "x-frame-options" not in r.headers and "frame-ancestors *" in csp
        else:
            assert r.headers["x-frame-options"] == "DENY", url
            assert "frame-ancestors 'self'" in csp, url


def test_the_strict_policy_allows_no_inline_or_foreign_script():
    policy = directives(STRICT_CSP)
    assert policy["script-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'self'"]
    assert policy["connect-src"] == ["'self'"]
    # Plotly: injected styles, and PNG download through data:/blob: images.
    assert policy["style-src"] == ["'self'", "'unsafe-inline'"]
    assert policy["img-src"] == ["'self'", "data:", "blob:"]
    assert not any("unsafe" in source for source in policy["script-src"] + policy["default-src"])


@pytest.mark.parametrize("url", ["/embed", "/embed?view=ladder&p=70B", "/embed?controls=p&controls=n"])
def test_embed_may_be_framed_by_any_origin_by_default(client, url):
    r = client.get(url)
    csp = directives(r.headers["content-security-policy"])
    assert csp["frame-ancestors"] == ["*"]
    assert csp["script-src"] == ["'self'"]
    assert "x-frame-options" not in r.headers
    assert "cross-origin-opener-policy" not in r.headers
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["permissions-policy"] == PERMISSIONS


def test_embed_origins_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("MEMWALL_EMBED_ORIGINS", "https://course.example.edu  https://*.wiki.example:8443")
    with TestClient(secured()) as c:
        embed = c.get("/embed?view=wall")
        page = c.get("/healthz")
    assert directives(embed.headers["content-security-policy"])["frame-ancestors"] == [
        "https://course.example.edu",
        "https://*.wiki.example:8443",
    ]
    assert "x-frame-options" not in embed.headers
    assert directives(page.headers["content-security-policy"])["frame-ancestors"] == ["'self'"]
    assert page.headers["x-frame-options"] == "DENY"


def test_an_explicit_embed_origin_list_overrides_the_environment(monkeypatch):
    monkeypatch.setenv("MEMWALL_EMBED_ORIGINS", "https://ignored.example")
    with TestClient(secured(embed_origins="'self'")) as c:
        csp = c.get("/embed").headers["content-security-policy"]
    assert directives(csp)["frame-ancestors"] == ["'self'"]


@pytest.mark.parametrize(
    "value",
    [
        "",
        "   ",
        "https://a.example; script-src *",  # would smuggle a directive in
        "https://a.example,https://b.example",
        "javascript:alert(1)",
        "a.example",
        "https://a.example/path",
        "'none' https://a.example",
        "'unsafe-inline'",
    ],
)
def test_bad_embed_origins_fail_at_start_up(value, monkeypatch):
    with pytest.raises(ValueError, match="MEMWALL_EMBED_ORIGINS"):
        parse_embed_origins(value)
    monkeypatch.setenv("MEMWALL_EMBED_ORIGINS", value)
    with pytest.raises(ValueError):
        install(create_app())


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, ("*",)),
        ("*", ("*",)),
        ("'none'", ("'none'",)),
        (
            "'self' https://a.example http://localhost:3000",
            ("'self'", "https://a.example", "http://localhost:3000"),
        ),
        ("https://a.example https://a.example", ("https://a.example",)),
    ],
)
def test_good_embed_origins(value, expected):
    assert parse_embed_origins(value) == expected


def test_the_docs_page_may_run_only_its_own_inline_script_and_the_pinned_cdn(client):
    r = client.get("/api/docs")
    assert r.status_code == 200
    html = r.text
    inline = re.findall(r"<script>(.*?)</script>", html, re.DOTALL)
    assert len(inline) == 1 and "SwaggerUIBundle(" in inline[0]
    digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
    csp = directives(r.headers["content-security-policy"])
    assert csp["script-src"] == ["'self'", DOCS_SCRIPT_SOURCE, f"'sha256-{digest}'"]
    assert "'unsafe-inline'" not in csp["script-src"] and "'unsafe-eval'" not in csp["script-src"]
    # Everything the page loads is allowed by the policy, and nothing more is.
    for src in re.findall(r'<script src="([^"]+)"', html):
        assert src.startswith(DOCS_SCRIPT_SOURCE)
    for href in re.findall(r'<link type="text/css" rel="stylesheet" href="([^"]+)"', html):
        assert href.startswith(DOCS_SCRIPT_SOURCE) and DOCS_SCRIPT_SOURCE in csp["style-src"]
    assert csp["frame-ancestors"] == ["'self'"]
    assert csp["object-src"] == ["'none'"]
    assert r.headers["x-frame-options"] == "DENY"
    # A tampered page would not run: its script's hash would not be in the policy.
    tampered = inline[0].replace("SwaggerUIBundle(", "alert(1);SwaggerUIBundle(")
    assert base64.b64encode(hashlib.sha256(tampered.encode()).digest()).decode() != digest


def test_the_strict_policy_stays_on_the_openapi_document(client):
    assert client.get("/api/v1/openapi.json").headers["content-security-policy"] == STRICT_CSP


def _tiny_app() -> FastAPI:
    app = FastAPI()

    @app.get("/own")
    async def own() -> Response:
        return Response(
            "x", headers={"Content-Security-Policy": "default-src 'none'", "X-Frame-Options": "SAMEORIGIN"}
        )

    @app.get("/boom")
    async def boom() -> Response:
        raise RuntimeError("boom")

    @app.get("/docs-like", include_in_schema=False)
    async def docs_like() -> Response:
        return Response("<script>a()</script>", media_type="text/html")

    install(app)
    return app


def test_a_header_the_route_set_is_kept_and_not_doubled():
    with TestClient(_tiny_app()) as c:
        r = c.get("/own")
    assert r.headers.get_list("content-security-policy") == ["default-src 'none'"]
    assert r.headers.get_list("x-frame-options") == ["SAMEORIGIN"]
    assert r.headers["x-content-type-options"] == "nosniff"


def test_a_server_error_carries_the_headers_too():
    with TestClient(_tiny_app(), raise_server_exceptions=False) as c:
        r = c.get("/boom")
    assert r.status_code == 500
    assert r.headers["content-security-policy"] == STRICT_CSP
    assert r.headers["x-frame-options"] == "DENY"


def test_installing_twice_wraps_once():
    app = _tiny_app()
    install(app)
    with TestClient(app) as c:
        r = c.get("/healthz-missing")
    assert r.headers.get_list("content-security-policy") == [STRICT_CSP]
    assert is_installed(app)


def test_no_cookies_anywhere(client):
    for url in [*PAGES, "/", "/embed", "/api/docs", "/api/v1/catalog"]:
        assert "set-cookie" not in client.get(url).headers, url


# -- limits -----------------------------------------------------------------------------------


def scope(
    path: str = "/healthz", query: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None
) -> dict:
    return {
        "type": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "headers": headers or [],
    }


def test_url_limit_counts_path_question_mark_and_query_as_sent():
    path = "/healthz"
    room = MAX_URL_BYTES - len(path) - 1
    assert check_limits(scope(path, b"q=" + b"a" * (room - 2))) is None
    status, message, figures = check_limits(scope(path, b"q=" + b"a" * (room - 1)))
    assert status == 414
    assert message == f"URL is {MAX_URL_BYTES + 1} bytes; the limit is 4096"
    assert figures == {"limit": "url_bytes", "max": 4096, "actual": 4097}
    # Percent-encoding counts as sent: %41 is three bytes, not one.
    assert check_limits(scope(path, b"q=" + b"%41" * ((room - 2) // 3))) is None
    assert check_limits(scope(path, b"q=" + b"%41" * ((room - 2) // 3 + 1)))[0] == 414
    # A long path alone is refused too.
    assert check_limits(scope("/" + "a" * MAX_URL_BYTES))[0] == 414


def test_query_pair_limit():
    assert check_limits(scope(query="&".join(["a=1"] * MAX_QUERY_PAIRS).encode())) is None
    status, message, figures = check_limits(scope(query="&".join(["a=1"] * (MAX_QUERY_PAIRS + 1)).encode()))
    assert (status, message) == (414, "query has 129 key=value pairs; the limit is 128")
    assert figures["limit"] == "query_pairs"
    # Empty pairs are not pairs (the parser skips them).
    assert check_limits(scope(query=b"&" * 300 + b"a=1")) is None
    assert check_limits(scope(query=b"&".join([b"k"] * 129)))[0] == 414


def test_header_limits():
    name = b"x-big"
    fits = MAX_HEADER_FIELD_BYTES - len(name) - 2
    assert check_limits(scope(headers=[(name, b"a" * fits)])) is None
    status, message, figures = check_limits(scope(headers=[(name, b"a" * (fits + 1))]))
    assert (status, message) == (431, "header x-big is 8193 bytes; the limit for one header is 8192")
    assert figures == {"limit": "header_field_bytes", "max": 8192, "actual": 8193}
    # In all: each field counts name + ": " + value + CRLF.
    four = [(b"x-%d" % i, b"a" * (MAX_HEADER_BYTES // 4 - 7)) for i in range(4)]
    assert sum(len(n) + len(v) + 4 for n, v in four) == MAX_HEADER_BYTES
    assert check_limits(scope(headers=four)) is None
    over = [*four, (b"x", b"")]
    status, message, figures = check_limits(scope(headers=over))
    assert (status, message) == (431, "headers are 16389 bytes; the limit is 16384")


def test_the_largest_meaningful_url_is_well_inside_the_limits():
    """Every key once, every value of every list key: what the page, /embed and the API need."""
    pairs: list[tuple[str, str]] = []
    for model in (MemoryQuery, EmbedQuery):
        schema = model.model_json_schema()
        for name, field in model.model_fields.items():
            prop = schema["properties"][name]
            if getattr(field.annotation, "__origin__", None) is list:
                ref = prop["items"]["$ref"].rsplit("/", 1)[-1]
                values = schema["$defs"][ref]["enum"]
                (max_len,) = [m.max_length for m in field.metadata if isinstance(m, annotated_types.MaxLen)]
                assert max_len <= len(values)
                pairs += [(name, v) for v in values[:max_len]]
            else:
                enum = next(
                    (
                        schema["$defs"][o["$ref"].rsplit("/", 1)[-1]]["enum"]
                        for o in prop.get("anyOf", [prop])
                        if "$ref" in o
                    ),
                    None,
                )
                pairs.append((name, max(enum, key=len) if enum else "1.2345678901234e+15"))
    url = "/embed?" + urlencode(pairs)
    assert len(pairs) == 70
    assert len(pairs) < MAX_QUERY_PAIRS
    assert len(url) < MAX_URL_BYTES // 2


def test_every_list_value_at_once_is_answered(client):
    r = client.get(
        "/api/v1/memory",
        params=[
            *[
                ("link", v)
                for v in ("nvlink3", "nvlink4", "nvlink5", "ib-hdr", "ib-ndr", "ib-xdr", "pcie4", "eth100")
            ],
            *[
                ("ceil", v)
                for v in (
                    "80gb",
                    "v100-16",
                    "v100-32",
                    "a100-40",
                    "a100-80",
                    "h100-80",
                    "h200-141",
                    "b200-180",
                    "mi300x-192",
                )
            ],
        ],
    )
    assert r.status_code == 200, r.text


def test_refusals_are_small_json_that_close_the_connection(client):
    long_url = "/api/v1/view?p=7B&pad=" + "a" * 5000
    r = client.get(long_url)
    assert r.status_code == 414
    assert r.json() == {
        "message": f"URL is {len(long_url)} bytes; the limit is 4096",
        "limit": "url_bytes",
        "max": 4096,
        "actual": len(long_url),
    }
    assert r.headers["content-type"] == "application/json"
    assert r.headers["cache-control"] == "no-store"
    assert r.headers["connection"] == "close"
    assert r.headers["content-security-policy"] == STRICT_CSP
    r = client.get("/api/v1/view?" + "&".join(f"k{i}=1" for i in range(200)))
    assert (r.status_code, r.json()["limit"], r.json()["actual"]) == (414, "query_pairs", 200)
    r = client.get("/healthz", headers={"x-big": "a" * 9000})
    assert (r.status_code, r.json()["limit"], r.json()["actual"]) == (431, "header_field_bytes", 9007)
    r = client.get("/healthz", headers={f"x-{i}": "a" * 4000 for i in range(5)})
    assert (r.status_code, r.json()["limit"]) == (431, "header_bytes")
    assert r.json()["actual"] > 20000


def test_the_openapi_document_names_the_refusals(client):
    doc = client.get("/api/v1/openapi.json").json()
    assert set(doc["components"]["schemas"]["LimitError"]["required"]) == {
        "message",
        "limit",
        "max",
        "actual",
    }
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            assert {"414", "431"} <= set(operation["responses"]), (method, path)
            schema = operation["responses"]["414"]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/LimitError"}


async def _pass_through(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"ok"})


def test_the_middleware_alone_on_a_bare_asgi_app():
    c = TestClient(SecurityMiddleware(_pass_through, embed_origins="https://a.example"))
    r = c.get("/embed")
    assert r.text == "ok"
    assert directives(r.headers["content-security-policy"])["frame-ancestors"] == ["https://a.example"]
    assert c.get("/x", headers={"x-big": "a" * 9000}).status_code == 431


# -- a real socket: what uvicorn and httptools do before the app sees anything ----------------


def vm_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(field)


def raw_request(port: int, data: bytes, timeout: float = 10.0) -> tuple[bytes, float, bool]:
    """Send bytes, read the answer; returns (answer, seconds, closed by the server)."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        chunks = []
        closed = False
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                closed = True
                break
            except TimeoutError:
                break
            if not chunk:
                closed = True
                break
            chunks.append(chunk)
            answer = b"".join(chunks)
            head, sep, body = answer.partition(b"\r\n\r\n")
            match = re.search(rb"(?i)content-length: *(\d+)", head)
            if (
                sep
                and match
                and len(body) >= int(match.group(1))
                and b"connection: close" not in head.lower()
            ):
                break
    return b"".join(chunks), time.monotonic() - start, closed


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


MIB = 1 << 20


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer() as s:
        yield s


@pytest.mark.live
def test_a_live_response_carries_the_headers(server):
    answer, _, _ = raw_request(server.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert status_of(answer) == 200
    head = answer.partition(b"\r\n\r\n")[0].decode().split("\r\n")[1:]
    headers = [tuple(part.strip() for part in line.split(":", 1)) for line in head]
    assert ("content-security-policy", STRICT_CSP) in headers
    assert ("x-frame-options", "DENY") in headers
    assert not any(name == "set-cookie" for name, _ in headers)


@pytest.mark.live
def test_a_1_mib_header_is_refused_at_once_without_the_memory_jumping(server):
    ok = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    for _ in range(3):  # warm up: first requests allocate buffers that stay
        raw_request(server.port, ok)
        raw_request(server.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n")
    rss, peak = vm_kib(server.pid, "VmRSS"), vm_kib(server.pid, "VmHWM")
    for _ in range(3):
        answer, seconds, closed = raw_request(
            server.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * MIB + b"\r\n\r\n"
        )
        assert status_of(answer) == 431
        assert b'"limit": "header_field_bytes"' in answer
        assert b"connection: close" in answer.lower() and closed
        assert seconds < 2
    # httptools buffers the whole header before the app can refuse it: about two copies of it.
    assert vm_kib(server.pid, "VmRSS") - rss < 16 * 1024
    assert vm_kib(server.pid, "VmHWM") - peak < 16 * 1024
    assert status_of(raw_request(server.port, ok)[0]) == 200


@pytest.mark.live
def test_a_1_mib_url_is_refused_by_uvicorn_itself(server):
    rss = vm_kib(server.pid, "VmRSS")
    answer, seconds, closed = raw_request(
        server.port, b"GET /healthz?q=" + b"a" * MIB + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    # httptools.parse_url cannot represent a target over ~64 KiB: uvicorn answers 400 itself.
    assert status_of(answer) == 400 and answer.endswith(b"Invalid HTTP request received.")
    assert closed and seconds < 2
    # Under that size, the app's own limit answers.
    answer, seconds, closed = raw_request(
        server.port, b"GET /healthz?q=" + b"a" * 60000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    assert status_of(answer) == 414 and b'"limit": "url_bytes"' in answer and closed
    assert vm_kib(server.pid, "VmRSS") - rss < 16 * 1024


@pytest.mark.live
def test_under_h11_uvicorn_refuses_big_headers_before_the_app():
    """The alternative parser (UVICORN_HTTP=h11) bounds a request head at 16 KiB by itself."""
    with LiveServer(args=["--http", "h11"]) as s:
        rss = vm_kib(s.pid, "VmRSS")
        answer, seconds, closed = raw_request(
            s.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * MIB + b"\r\n\r\n"
        )
        assert status_of(answer) == 400 and closed and seconds < 2
        assert vm_kib(s.pid, "VmRSS") - rss < 4 * 1024
        # A head under h11's bound still reaches the app, which applies its own limits.
        answer, _, _ = raw_request(
            s.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n"
        )
        assert status_of(answer) == 431


# -- URL values in HTML and in JSON-in-HTML -----------------------------------------------------

HOSTILE = "</script><script>alert(1)</script>\"'><img src=x onerror=alert(2)>\u2028<!--"


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


@pytest.mark.parametrize("path", ["/", "/embed"])
def test_url_values_reach_the_page_escaped_and_its_data_intact(client, path):
    r = client.get(path, params=[("p", HOSTILE), ("zz" + HOSTILE, HOSTILE), ("view", HOSTILE)])
    assert r.status_code == 200
    html = r.text
    for raw in (HOSTILE, "<script>alert", "<img src=x", "onerror=alert(2)>", "'><img"):
        assert raw not in html, raw
    # The page's data is a JSON block that cannot end early, and reads back exactly.
    blocks = re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', html, re.DOTALL)
    assert blocks
    for block in blocks:
        assert "<" not in block and "\u2028" not in block
    decoded = [json.loads(block) for block in blocks]
    assert any(s == HOSTILE for data in decoded for s in _strings(data))
    # Nothing that runs is inline: every <script> has a src or is a JSON data block.
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert " src=" in tag or 'type="application/json"' in tag, tag
    # No tag carries an event handler attribute (the escaped payload is text, not a tag).
    for tag in re.findall(r"<[a-zA-Z][^>]*>", html):
        assert not re.search(r"\son[a-z]+\s*=", tag), tag
