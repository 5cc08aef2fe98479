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

    def response(self, request: Request, cache_control: str, extra_headers: dict[str, str] | None = None) -> Response:
        """A 304 when the client holds this ETag, else the body, gzipped if accepted."""
        headers = {"ETag": self.etag, "Cache-Control": cache_control, "Vary": "Accept-Encoding"}
        if etag_matches(request.headers.get("if-none-match"), self.etag):
            return Response(status_code=304, headers=headers)
        headers.update(extra_headers or {})
        body = self.body
        if self.gzipped:
            if accepts_gzip(request.headers.get("accept-encoding")):
                headers["Content-Encoding"] = "gzip"
            else:
                body = gzip.decompress(body)
        return Response(body, media_type=self.media_type, headers=headers)


@dataclass(frozen=True)
class Cached:
    entry: Encoded
    cache_control: str
    extra_headers: dict[str, str] | None = None


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

    @property
    def bytes_used(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._aliases.clear()
            self._bytes = 0


def request_url_key(request: Request) -> str:
    """The request as an HTTP cache keys it: host, path and query exactly as sent."""
    return f"{request.headers.get('host', '')}{request.url.path}?{request.url.query}"


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
    cached = cache.get(key)
    if cached is None:
        etag = etag_for(key)
        if etag_matches(request.headers.get("if-none-match"), etag):
            return Response(status_code=304, headers={"ETag": etag, "Cache-Control": cache_control, "Vary": "Accept-Encoding"})
        cached = Cached(build(), cache_control, extra_headers)
    cache.put(key, cached, url=request_url_key(request))
    return cached.entry.response(request, cached.cache_control, cached.extra_headers)


class CachedRoute(APIRoute):
    """A GET route whose answer depends on its URL alone: a URL answered before is answered
    again from the cache before FastAPI parses and validates its query."""

    cache: BodyCache | None = None

    def get_route_handler(self) -> Callable[[Request], Any]:
        handler = super().get_route_handler()
        cache = self.cache

        async def route(request: Request) -> Response:
            if cache is not None:
                cached = cache.get_by_url(request_url_key(request))
                if cached is not None:
                    return cached.entry.response(request, cached.cache_control, cached.extra_headers)
            return await handler(request)

        return route


def cached_route_class(cache: BodyCache) -> type[CachedRoute]:
    return type("CachedRoute", (CachedRoute,), {"cache": cache})
