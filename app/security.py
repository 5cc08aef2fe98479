"""Security headers on every response, and limits on what a request may ask for.

One pure ASGI middleware (no ``BaseHTTPMiddleware``, so no extra task or body copy per request):

* Before the app sees a request, its size is checked: a request target over
  ``MAX_URL_BYTES`` or with more than ``MAX_QUERY_PAIRS`` query pairs is refused with 414, header
  fields over ``MAX_HEADER_BYTES`` in all or ``MAX_HEADER_FIELD_BYTES`` in one with 431. The
  refusal is a small JSON body whose ``message`` names the limit, and closes the connection.
* Every response then carries the security headers: a Content-Security-Policy under which
  scripts come from the app's own origin only, X-Content-Type-Options, Referrer-Policy,
  Permissions-Policy, and, except on ``/embed``, Cross-Origin-Opener-Policy and
  X-Frame-Options. ``/embed`` may be framed by the origins in ``MEMWALL_EMBED_ORIGINS``
  (space-separated; ``*``, the default, means any); every other page only by the app itself.
* ``/api/docs`` (FastAPI's Swagger UI) loads its script and stylesheet from jsDelivr and starts
  with an inline script. Its policy allows that one CDN path and exactly that inline script, by
  its SHA-256 hash computed from the page as served; nothing else on the page may run.

A header the app already set on a response is left as it is, so a route can send a stricter
(or nonce-carrying) policy of its own. Nothing here sets a cookie or keeps state between
requests.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from fastapi import FastAPI

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_URL_BYTES = 4096
"""Path and query as sent (percent-encoded), ``?`` included; a link setting every key is < 1 KiB."""
MAX_QUERY_PAIRS = 128
"""``&``-separated pairs. A URL naming every key once, and every list value, has 70."""
MAX_HEADER_BYTES = 16 * 1024
"""All header fields, counted as sent: ``name: value\\r\\n`` each."""
MAX_HEADER_FIELD_BYTES = 8 * 1024
"""One header field, ``name: value``."""

EMBED_ORIGINS_ENV = "MEMWALL_EMBED_ORIGINS"
EMBED_PATHS = frozenset({"/embed"})
DOCS_PATH = "/api/docs"
DOCS_SCRIPT_SOURCE = "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/"
"""Where FastAPI's Swagger UI page loads swagger-ui-bundle.js and swagger-ui.css from."""
DOCS_FAVICON_SOURCE = "https://fastapi.tiangolo.com/img/favicon.png"

PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "usb",
    )
)

_ORIGIN = re.compile(r"^(https?)://(\*\.)?[A-Za-z0-9.-]+(:[0-9]{1,5})?$")
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)


def parse_embed_origins(value: str | None) -> tuple[str, ...]:
    """``MEMWALL_EMBED_ORIGINS``: space-separated origins allowed to frame /embed.

    Each is ``*`` (any origin), ``'self'``, or ``http(s)://host[:port]`` (``https://*.host`` for
    subdomains); ``'none'`` alone forbids framing /embed at all. Anything else (a ``;`` that
    would start a new directive, a path, a bare host) is an error at start-up rather than a
    silently broken policy.
    """
    tokens = (value if value is not None else "*").split()
    if not tokens:
        raise ValueError(f"{EMBED_ORIGINS_ENV} is empty; use * for any origin or 'none' for none")
    if "'none'" in tokens and len(tokens) > 1:
        raise ValueError(f"{EMBED_ORIGINS_ENV}: 'none' cannot be combined with origins")
    for token in tokens:
        if token not in ("*", "'self'", "'none'") and not _ORIGIN.match(token):
            raise ValueError(
                f"{EMBED_ORIGINS_ENV}: {token!r} is not an origin such as https://example.org, 'self' or *"
            )
    return tuple(dict.fromkeys(tokens))


def content_security_policy(
    frame_ancestors: Iterable[str] = ("'self'",), *, docs_script_hashes: Iterable[str] | None = None
) -> str:
    """The policy of a response; ``docs_script_hashes`` (base64 SHA-256) makes the /api/docs one."""
    docs = docs_script_hashes is not None
    script = ["'self'"]
    style = ["'self'", "'unsafe-inline'"]  # Plotly injects <style> elements and style attributes.
    img = ["'self'", "data:", "blob:"]  # Plotly's PNG download draws through data: and blob: URLs.
    if docs:
        script += [DOCS_SCRIPT_SOURCE, *(f"'sha256-{h}'" for h in docs_script_hashes or ())]
        style.append(DOCS_SCRIPT_SOURCE)
        img.append(DOCS_FAVICON_SOURCE)
    directives = [
        ("default-src", ["'self'"]),
        ("script-src", script),
        ("style-src", style),
        ("img-src", img),
        ("font-src", ["'self'"]),
        ("connect-src", ["'self'"]),
        ("object-src", ["'none'"]),
        ("base-uri", ["'none'"]),
        ("form-action", ["'self'"]),
        ("frame-ancestors", list(frame_ancestors)),
    ]
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives)


def inline_script_hashes(html: bytes) -> list[str]:
    """Base64 SHA-256 of each inline ``<script>`` element's text, as CSP hash sources."""
    return [base64.b64encode(hashlib.sha256(body).digest()).decode() for body in _INLINE_SCRIPT.findall(html)]


def _headers(csp: str, *, embed: bool) -> list[tuple[bytes, bytes]]:
    headers = [
        ("content-security-policy", csp),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "strict-origin-when-cross-origin"),
        ("permissions-policy", PERMISSIONS_POLICY),
    ]
    if not embed:
        headers += [("cross-origin-opener-policy", "same-origin"), ("x-frame-options", "DENY")]
    return [(name.encode(), value.encode()) for name, value in headers]


def _with_headers(message: Message, extra: list[tuple[bytes, bytes]]) -> Message:
    headers = list(message.get("headers", ()))
    present = {name.lower() for name, _ in headers}
    headers.extend(header for header in extra if header[0] not in present)
    return {**message, "headers": headers}


def check_limits(scope: Scope) -> tuple[int, str, dict[str, Any]] | None:
    """The status, message and figures of the first limit a request exceeds, or None."""
    raw_path = scope.get("raw_path") or scope.get("path", "").encode("utf-8", "surrogateescape")
    query: bytes = scope.get("query_string", b"")
    url_bytes = len(raw_path) + (1 + len(query) if query else 0)
    if url_bytes > MAX_URL_BYTES:
        return (
            414,
            f"URL is {url_bytes} bytes; the limit is {MAX_URL_BYTES}",
            {"limit": "url_bytes", "max": MAX_URL_BYTES, "actual": url_bytes},
        )
    if query.count(b"&") >= MAX_QUERY_PAIRS:
        pairs = sum(1 for part in query.split(b"&") if part)
        if pairs > MAX_QUERY_PAIRS:
            return (
                414,
                f"query has {pairs} key=value pairs; the limit is {MAX_QUERY_PAIRS}",
                {"limit": "query_pairs", "max": MAX_QUERY_PAIRS, "actual": pairs},
            )
    total = 0
    for name, value in scope.get("headers", ()):
        field = len(name) + 2 + len(value)
        if field > MAX_HEADER_FIELD_BYTES:
            shown = bytes(name[:64]).decode("latin-1")
            return (
                431,
                (f"header {shown} is {field} bytes; the limit for one header is {MAX_HEADER_FIELD_BYTES}"),
                {"limit": "header_field_bytes", "max": MAX_HEADER_FIELD_BYTES, "actual": field},
            )
        total += field + 2
    if total > MAX_HEADER_BYTES:
        return (
            431,
            f"headers are {total} bytes; the limit is {MAX_HEADER_BYTES}",
            {"limit": "header_bytes", "max": MAX_HEADER_BYTES, "actual": total},
        )
    return None


class SecurityMiddleware:
    """Refuses oversized requests and adds the security headers to every response."""

    def __init__(self, app: ASGIApp, embed_origins: str | None = None) -> None:
        self.app = app
        origins = parse_embed_origins(
            embed_origins if embed_origins is not None else os.environ.get(EMBED_ORIGINS_ENV)
        )
        self.embed_origins = origins
        self.page_headers = _headers(content_security_policy(), embed=False)
        self.embed_headers = _headers(content_security_policy(origins), embed=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = check_limits(scope)
        if refusal is not None:
            await self._refuse(send, *refusal)
            return
        path = scope.get("path", "")
        root = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        if path == DOCS_PATH or path.startswith(DOCS_PATH + "/"):
            await self._docs(scope, receive, send)
            return
        extra = self.embed_headers if path in EMBED_PATHS else self.page_headers

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = _with_headers(message, extra)
            await send(message)

        await self.app(scope, receive, send_with_headers)

    async def _refuse(self, send: Send, status: int, message: str, figures: dict[str, Any]) -> None:
        body = json.dumps({"message": message, **figures}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"),
            (b"connection", b"close"),
            *self.page_headers,
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _docs(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Hold the docs page (about 1 KB) until its inline scripts can be hashed."""
        start: Message | None = None
        chunks: list[bytes] = []

        async def send_hashed(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            if message["type"] != "http.response.body" or start is None:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = b"".join(chunks)
            encoded = any(
                bytes(name).lower() == b"content-encoding" and bytes(value).lower() != b"identity"
                for name, value in start.get("headers", ())
            )
            hashes = [] if encoded else inline_script_hashes(body)
            csp = content_security_policy(docs_script_hashes=hashes)
            await send(_with_headers(start, _headers(csp, embed=False)))
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, send_hashed)


LIMIT_RESPONSES: dict[str, dict[str, Any]] = {
    "414": {"description": "The URL is longer than 4096 bytes or has more than 128 query pairs."},
    "431": {"description": "A header is over 8 KiB, or all headers together over 16 KiB."},
}


def _document_limits(app: FastAPI) -> None:
    """Add the 414 and 431 answers to every operation of the OpenAPI document."""
    original = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = original()
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components["LimitError"] = {
                "title": "LimitError",
                "type": "object",
                "required": ["message", "limit", "max", "actual"],
                "properties": {
                    "message": {
                        "type": "string",
                        "description": "Which limit, the request's size and the limit.",
                    },
                    "limit": {
                        "type": "string",
                        "enum": ["url_bytes", "query_pairs", "header_field_bytes", "header_bytes"],
                    },
                    "max": {"type": "integer"},
                    "actual": {"type": "integer"},
                },
            }
            content = {"application/json": {"schema": {"$ref": "#/components/schemas/LimitError"}}}
            for item in schema.get("paths", {}).values():
                for operation in item.values():
                    if isinstance(operation, dict) and "responses" in operation:
                        for status, response in LIMIT_RESPONSES.items():
                            operation["responses"].setdefault(status, {**response, "content": content})
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def is_installed(app: FastAPI) -> bool:
    return bool(getattr(app.state, "memwall_security", False))


def install(app: FastAPI, *, embed_origins: str | None = None) -> None:
    """Wrap the whole app, error pages included, in the middleware, and document its refusals.

    The middleware goes outside Starlette's ServerErrorMiddleware (which ``add_middleware``
    cannot reach), so a 500 carries the headers too. ``embed_origins`` defaults to
    ``MEMWALL_EMBED_ORIGINS``, read and checked here, at start-up. The app is wrapped once;
    installing again only replaces the embed origins.
    """
    app.state.memwall_embed_origins = " ".join(
        parse_embed_origins(embed_origins if embed_origins is not None else os.environ.get(EMBED_ORIGINS_ENV))
    )
    if not is_installed(app):
        build = app.build_middleware_stack

        def build_middleware_stack() -> ASGIApp:
            return SecurityMiddleware(build(), embed_origins=app.state.memwall_embed_origins)

        app.build_middleware_stack = build_middleware_stack  # type: ignore[method-assign]
        app.state.memwall_security = True
        _document_limits(app)
    app.middleware_stack = None  # built again, with these settings, on the next request
