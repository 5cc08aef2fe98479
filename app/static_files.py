"""Static files under immutable URLs, served from memory, gzipped once.

The app's own files live under ``/static/<tree hash>/``: one hash of the whole ``static/``
tree, so that ES modules' relative imports stay inside the same immutable prefix and every
change to any file moves every URL. Plotly.js, copied from the installed ``plotly`` package,
lives at ``/static/vendor/plotly-<version>.min.js`` so an app release does not make browsers
fetch its 4.8 MB again.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

import plotly
from starlette.requests import Request
from starlette.responses import Response

from app.http_cache import accepts_gzip

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
IMMUTABLE = "public, max-age=31536000, immutable"
_COMPRESSIBLE = re.compile(r"^(text/|application/(javascript|json)|image/svg)")


@dataclass(frozen=True)
class Asset:
    body: bytes
    gzipped: bytes | None
    media_type: str
    etag: str


def _asset(body: bytes, media_type: str) -> Asset:
    gz = gzip.compress(body, compresslevel=9, mtime=0) if _COMPRESSIBLE.match(media_type) else None
    if gz is not None and len(gz) >= len(body):
        gz = None
    etag = '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'
    return Asset(body, gz, media_type, etag)


def _media_type(path: str) -> str:
    if path.endswith(".js"):
        return "text/javascript; charset=utf-8"
    if path.endswith(".css"):
        return "text/css; charset=utf-8"
    guessed, _ = mimetypes.guess_type(path)
    return guessed or "application/octet-stream"


def plotly_js_version() -> str:
    head = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_bytes()[:200]
    match = re.search(rb"plotly\.js v([0-9][0-9A-Za-z.\-]*)", head)
    return match.group(1).decode() if match else plotly.__version__


class StaticAssets:
    """Every static file, loaded once at start-up."""

    def __init__(self, root: Path = STATIC_DIR) -> None:
        files = sorted(p for p in root.rglob("*") if p.is_file())
        tree = hashlib.blake2b(digest_size=6)
        self.assets: dict[str, Asset] = {}
        for path in files:
            rel = path.relative_to(root).as_posix()
            body = path.read_bytes()
            tree.update(rel.encode() + b"\x00" + body + b"\x00")
            self.assets[rel] = _asset(body, _media_type(rel))
        self.tree_hash = tree.hexdigest()
        self.plotly_version = plotly_js_version()
        self.plotly_name = f"plotly-{self.plotly_version}.min.js"
        plotly_body = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_bytes()
        self.vendor = {self.plotly_name: _asset(plotly_body, "text/javascript; charset=utf-8")}

    def url(self, rel: str) -> str:
        """The immutable URL of one of the app's static files."""
        if rel not in self.assets:
            raise KeyError(f"no static file {rel!r}")
        return f"/static/{self.tree_hash}/{rel}"

    @property
    def plotly_url(self) -> str:
        return f"/static/vendor/{self.plotly_name}"

    def lookup(self, path: str) -> Asset | None:
        prefix, _, rest = path.partition("/")
        if prefix == "vendor":
            return self.vendor.get(rest)
        if prefix == self.tree_hash:
            return self.assets.get(rest)
        return None

    def response(self, request: Request, path: str) -> Response:
        asset = self.lookup(path)
        if asset is None:
            return Response("Not found", status_code=404, media_type="text/plain")
        headers = {"Cache-Control": IMMUTABLE, "ETag": asset.etag, "Vary": "Accept-Encoding"}
        if request.headers.get("if-none-match") == asset.etag:
            return Response(status_code=304, headers=headers)
        body = asset.body
        if asset.gzipped is not None and accepts_gzip(request.headers.get("accept-encoding")):
            body = asset.gzipped
            headers["Content-Encoding"] = "gzip"
        return Response(body, media_type=asset.media_type, headers=headers)
