"""HTTP caching for deterministic answers: ETags, 304s, and a bounded cache of encoded bodies.

Every GET answer is a pure function of the app version, the path and the canonical query, so
the ETag is a hash of those three and can be checked before anything is computed. Encoded
bodies are kept in a least-recently-used cache bounded in bytes, so a popular configuration
(a course page that a thousand students open) is computed once per process.
"""

from __future__ import annotations

import gzip
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

from app import __version__

CACHE_CONTROL = "public, max-age=3600"
"""An hour: answers never change within a version, and a deploy changes every ETag."""
GZIP_MINIMUM_BYTES = 1024
GZIP_LEVEL = 6


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


@dataclass
class Encoded:
    """A body and its gzip form, compressed once when the body is built."""

    raw: bytes
    media_type: str
    gzipped: bytes | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.gzipped is None and len(self.raw) >= GZIP_MINIMUM_BYTES:
            self.gzipped = gzip.compress(self.raw, compresslevel=GZIP_LEVEL, mtime=0)

    @property
    def size(self) -> int:
        return len(self.raw) + len(self.gzipped or b"")


class BodyCache:
    """A byte-bounded LRU of encoded bodies, safe to share between threads."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, Encoded] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get_or_build(self, key: str, build: Callable[[], Encoded]) -> Encoded:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                return entry
        entry = build()
        with self._lock:
            if key not in self._entries:
                self._entries[key] = entry
                self._bytes += entry.size
                while self._bytes > self.max_bytes and self._entries:
                    _, evicted = self._entries.popitem(last=False)
                    self._bytes -= evicted.size
        return entry

    @property
    def bytes_used(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0


def cached_response(
    request: Request,
    cache: BodyCache | None,
    key: str,
    build: Callable[[], Encoded],
    *,
    cache_control: str = CACHE_CONTROL,
) -> Response:
    """A 304 when the client's ETag matches, else the (cached) body, gzipped if accepted."""
    etag = etag_for(key)
    headers = {"ETag": etag, "Cache-Control": cache_control, "Vary": "Accept-Encoding"}
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    entry = cache.get_or_build(key, build) if cache is not None else build()
    body = entry.raw
    if accepts_gzip(request.headers.get("accept-encoding")) and entry.gzipped is not None:
        body = entry.gzipped
        headers["Content-Encoding"] = "gzip"
    return Response(body, media_type=entry.media_type, headers=headers)
