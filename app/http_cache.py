"""HTTP caching for deterministic answers: ETags, 304s, and a bounded cache of encoded bodies.

Every GET answer is a pure function of the app version, the path and the canonical query, so
the ETag is a hash of those three and can be checked before anything is computed. Encoded
bodies are kept in a least-recently-used cache bounded in bytes, so a popular configuration
(a course page that a thousand students open) is computed once per process.

Bodies are kept gzipped only: nearly every client accepts gzip, and the rare one that does
not gets the body decompressed on the way out. The cache also remembers which exact request
URL led to which answer, so a URL seen before is answered without parsing its query at all
(``CachedRoute``), the way an HTTP cache in front of the app would answer it.
"""

from __future__ import annotations

import gzip
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

from app import __version__

CACHE_CONTROL = "public, max-age=3600"
"""An hour: answers never change within a version, and a deploy changes every ETag."""
GZIP_MINIMUM_BYTES = 1024
GZIP_LEVEL = 1
"""Every cache miss pays for compression before it can answer. For a view answer (47 kB of
JSON) level 1 takes 0.47 ms for 14.1 kB; level 6 takes 1.35 ms for 12.9 kB."""
CACHE_MAX_BYTES = 16 * 2**20
"""Gzipped answers are ~13 kB: room for over a thousand configurations per process."""
MAX_ALIASES = 8192


def etag_for(*parts: str) -> str:
    digest = hashlib.blake2b("\x00".join((__version__, *parts)).encode(), digest_size=12)
    return f'W/"{digest.hexdigest()}"'


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """RFC 9110 weak comparison against an If-None-Match list."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    wanted = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == wanted for tag in if_none_match.split(","))


def accepts_gzip(accept_encoding: str | None) -> bool:
    for part in (accept_encoding or "").split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            q = params.strip().removeprefix("q=").strip() if params.strip().startswith("q=") else "1"
            try:
                return float(q) > 0
            except ValueError:
                return False
    return False


@dataclass(frozen=True)
class Encoded:
    """One answer: its body (gzipped when that pays), media type and ETag."""

    body: bytes
    media_type: str
    gzipped: bool
    etag: str

    @classmethod
    def build(cls, raw: bytes, media_type: str, key: str) -> Encoded:
        if len(raw) >= GZIP_MINIMUM_BYTES:
            return cls(gzip.compress(raw, compresslevel=GZIP_LEVEL, mtime=0), media_type, True, etag_for(key))
        return cls(raw, media_type, False, etag_for(key))

    def plain_body(self) -> bytes:
        """The body for a client that does not accept gzip."""
        return gzip.decompress(self.body) if self.gzipped else self.body


@dataclass(frozen=True)
class Heads:
    """The request headers an answer from the cache depends on, read from the ASGI scope in
    one pass (Starlette's Request would build a URL and a header mapping for them)."""

    host: str = ""
    if_none_match: str | None = None
    accept_encoding: str | None = None

    @classmethod
    def of(cls, scope: dict[str, Any]) -> Heads:
        host = if_none_match = accept_encoding = None
        for name, value in scope["headers"]:
            if name == b"host":
                host = value.decode("latin-1")
            elif name == b"if-none-match":
                if_none_match = value.decode("latin-1")
            elif name == b"accept-encoding":
                accept_encoding = value.decode("latin-1")
        return cls(host or "", if_none_match, accept_encoding)


class Prepared(Response):
    """A response whose headers were encoded once, when its answer was cached."""

    def __init__(self, status_code: int, body: bytes, raw_headers: list[tuple[bytes, bytes]]) -> None:
        self.status_code = status_code
        self.body = body
        self.background = None
        self.raw_headers = list(raw_headers)  # middleware may append to it


def _raw(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]


class Cached:
    """An answer as the cache keeps it: its body and its response headers, encoded."""

    def __init__(self, entry: Encoded, cache_control: str, extra_headers: dict[str, str] | None = None) -> None:
        self.entry = entry
        base = {"ETag": entry.etag, "Cache-Control": cache_control, "Vary": "Accept-Encoding"}
        self.not_modified = _raw(base)
        full = {**base, **(extra_headers or {}), "Content-Type": _content_type(entry.media_type)}
        self.plain = _raw({**full, "Content-Length": str(len(entry.plain_body()))}) if entry.gzipped else None
        self.as_stored = _raw(
            {**full, **({"Content-Encoding": "gzip"} if entry.gzipped else {}), "Content-Length": str(len(entry.body))}
        )

    def response(self, heads: Heads) -> Response:
        """A 304 when the client holds this ETag, else the body, gzipped if accepted."""
        if etag_matches(heads.if_none_match, self.entry.etag):
            return Prepared(304, b"", self.not_modified)
        if self.entry.gzipped and not accepts_gzip(heads.accept_encoding):
            return Prepared(200, self.entry.plain_body(), self.plain or [])
        return Prepared(200, self.entry.body, self.as_stored)


def _content_type(media_type: str) -> str:
    if media_type.startswith("text/") and "charset" not in media_type:
        return f"{media_type}; charset=utf-8"
    return media_type


class BodyCache:
    """A byte-bounded LRU of answers by canonical key, and a bounded LRU of the request URLs
    that led to them. Safe to share between threads."""

    def __init__(self, max_bytes: int = CACHE_MAX_BYTES, max_aliases: int = MAX_ALIASES) -> None:
        self.max_bytes = max_bytes
        self.max_aliases = max_aliases
        self._entries: OrderedDict[str, Cached] = OrderedDict()
        self._aliases: OrderedDict[str, str] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> Cached | None:
        with self._lock:
            cached = self._entries.get(key)
            if cached is not None:
                self._entries.move_to_end(key)
            return cached

    def get_by_url(self, url: str) -> Cached | None:
        """The answer last given to this exact request URL, if it is still cached."""
        with self._lock:
            key = self._aliases.get(url)
            if key is None:
                return None
            cached = self._entries.get(key)
            if cached is None:
                del self._aliases[url]
                return None
            self._aliases.move_to_end(url)
            self._entries.move_to_end(key)
            return cached

    def put(self, key: str, cached: Cached, url: str | None = None) -> None:
        with self._lock:
            if key not in self._entries:
                self._entries[key] = cached
                self._bytes += len(cached.entry.body)
                while self._bytes > self.max_bytes and self._entries:
                    _, evicted = self._entries.popitem(last=False)
                    self._bytes -= len(evicted.entry.body)
            if url is not None:
                self._aliases[url] = key
                self._aliases.move_to_end(url)
                while len(self._aliases) > self.max_aliases:
                    self._aliases.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._aliases.clear()
            self._bytes = 0


def request_url_key(scope: dict[str, Any], heads: Heads) -> str:
    """The request as an HTTP cache keys it: host, path and query exactly as sent."""
    return f"{heads.host}{scope['path']}?{scope['query_string'].decode('latin-1')}"


def cached_response(
    request: Request,
    cache: BodyCache,
    key: str,
    build: Callable[[], Encoded],
    *,
    cache_control: str = CACHE_CONTROL,
    extra_headers: dict[str, str] | None = None,
) -> Response:
    """The answer for canonical ``key``: a 304 if the client holds it, else from the cache,
    built on a miss. The request's URL is remembered as leading to it."""
    heads = Heads.of(request.scope)
    cached = cache.get(key)
    if cached is None:
        etag = etag_for(key)
        if etag_matches(heads.if_none_match, etag):
            headers = {"ETag": etag, "Cache-Control": cache_control, "Vary": "Accept-Encoding"}
            return Prepared(304, b"", _raw(headers))
        cached = Cached(build(), cache_control, extra_headers)
    cache.put(key, cached, url=request_url_key(request.scope, heads))
    return cached.response(heads)


class CachedRoute(APIRoute):
    """A GET route whose answer depends on its URL alone: a URL answered before is answered
    again from the cache before FastAPI parses and validates its query."""

    cache: BodyCache | None = None

    def get_route_handler(self) -> Callable[[Request], Any]:
        handler = super().get_route_handler()
        cache = self.cache

        async def route(request: Request) -> Response:
            if cache is not None:
                heads = Heads.of(request.scope)
                cached = cache.get_by_url(request_url_key(request.scope, heads))
                if cached is not None:
                    return cached.response(heads)
            return await handler(request)

        return route


def cached_route_class(cache: BodyCache) -> type[CachedRoute]:
    return type("CachedRoute", (CachedRoute,), {"cache": cache})
