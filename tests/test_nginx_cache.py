"""Scale-out: Debian's nginx, configured from deploy/nginx.conf.template, caching the live app.

nginx runs as the current user with everything it writes (pid, logs, temporary files, the cache)
under the test's temporary directory, and is stopped by its PID.
"""

from __future__ import annotations

import getpass
import gzip
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.live import ROOT, LiveServer, free_port

pytestmark = pytest.mark.live

NGINX = Path("/usr/sbin/nginx")
TEMPLATE = ROOT / "deploy" / "nginx.conf.template"
PLACEHOLDER = re.compile(r"\$\{([A-Z_]+)\}")


def render(template: str, values: Mapping[str, str]) -> str:
    """envsubst restricted to the template's placeholders; a missing value is an error."""
    missing = sorted(set(PLACEHOLDER.findall(template)) - set(values))
    if missing:
        raise KeyError(f"no value for {', '.join(missing)}")
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


@dataclass
class Proxy:
    url: str
    process: subprocess.Popen[bytes]
    runtime: Path


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def cache(self) -> str | None:
        return self.headers.get("x-cache-status")


def get(base: str, path: str, headers: Mapping[str, str] | None = None) -> Answer:
    request = urllib.request.Request(base + path, headers=dict(headers or {}))
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return Answer(
                response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
            )
    except urllib.error.HTTPError as error:
        return Answer(error.code, {k.lower(): v for k, v in error.headers.items()}, error.read())


@pytest.fixture(scope="module")
def app_server() -> Iterator[LiveServer]:
    with LiveServer() as server:
        yield server


def start_nginx(runtime: Path, upstream_port: int) -> Proxy:
    port = free_port()
    runtime.mkdir(parents=True, exist_ok=True)
    config = runtime / "nginx.conf"
    config.write_text(
        render(
            TEMPLATE.read_text(),
            {
                "NGINX_USER": getpass.getuser(),
                "RUNTIME_DIR": str(runtime),
                "CACHE_DIR": str(runtime / "cache"),
                "LISTEN": f"127.0.0.1:{port}",
                "UPSTREAM": f"127.0.0.1:{upstream_port}",
            },
        )
    )
    # -p: prefix for relative paths, -e: the start-up error log, so nothing touches /etc or /var.
    command = [str(NGINX), "-p", str(runtime), "-c", str(config), "-e", str(runtime / "error.log")]
    check = subprocess.run([*command, "-t"], check=False, capture_output=True, text=True, timeout=10)
    assert check.returncode == 0, check.stderr
    process = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return Proxy(f"http://127.0.0.1:{port}", process, runtime)
        except OSError:
            time.sleep(0.05)
    stop_nginx(process)
    log = (runtime / "error.log").read_text() if (runtime / "error.log").exists() else ""
    raise RuntimeError(f"nginx did not start:\n{log}")


def stop_nginx(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGQUIT)  # graceful: the master stops its worker
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@pytest.fixture(scope="module")
def proxy(app_server, tmp_path_factory) -> Iterator[Proxy]:
    if not NGINX.exists():
        pytest.skip("nginx is not installed: run `make system-deps` (Debian package nginx-light)")
    proxy = start_nginx(tmp_path_factory.mktemp("nginx"), app_server.port)
    try:
        yield proxy
    finally:
        stop_nginx(proxy.process)


def test_nginx_version_is_known():
    out = subprocess.run([str(NGINX), "-v"], check=False, capture_output=True, text=True).stderr
    # Vary handling (1.7.7+) and proxy_cache_background_update (1.11.10+) are needed.
    version = tuple(int(x) for x in re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", out).groups())
    assert version >= (1, 11, 10), out


def test_the_template_renders_every_placeholder_and_nothing_else():
    text = TEMPLATE.read_text()
    assert set(PLACEHOLDER.findall(text)) == {"NGINX_USER", "RUNTIME_DIR", "CACHE_DIR", "LISTEN", "UPSTREAM"}
    with pytest.raises(KeyError, match="UPSTREAM"):
        render(text, {"NGINX_USER": "u", "RUNTIME_DIR": "/r", "CACHE_DIR": "/c", "LISTEN": "1"})


def test_a_repeated_view_is_served_from_the_cache(proxy, app_server):
    gz = {"Accept-Encoding": "gzip"}
    first = get(proxy.url, "/api/v1/view?p=7B", gz)
    second = get(proxy.url, "/api/v1/view?p=7B", gz)
    assert (first.status, first.cache) == (200, "MISS")
    assert (second.status, second.cache) == (200, "HIT")
    assert second.body == first.body
    assert second.headers["etag"] == first.headers["etag"]
    # What the cache holds is what the app sends.
    direct = get(app_server.url, "/api/v1/view?p=7B", gz)
    assert direct.body == first.body and direct.headers["etag"] == first.headers["etag"]
    assert "x-cache-status" not in direct.headers
    # Another query is another entry.
    other = get(proxy.url, "/api/v1/view?p=13B", gz)
    assert (other.status, other.cache) == (200, "MISS")
    assert other.body != first.body
    assert get(proxy.url, "/api/v1/view?p=13B", gz).cache == "HIT"


def test_the_key_is_the_full_url(proxy):
    assert get(proxy.url, "/api/v1/memory?p=7B&n=16").cache == "MISS"
    assert get(proxy.url, "/api/v1/memory?p=7B&n=16").cache == "HIT"
    # Same answer, different URL: the proxy does not canonicalise queries.
    assert get(proxy.url, "/api/v1/memory?n=16&p=7B").cache == "MISS"
    assert get(proxy.url, "/api/v1/memory?p=7B&n=16").cache == "HIT"


def test_a_forged_host_fills_only_its_own_entry(proxy):
    """The app builds absolute URLs (oEmbed) from Host, so Host is part of the cache key."""
    forged_path = "/oembed?url=" + urllib.parse.quote("http://evil.example/?p=7B", safe="")
    forged = get(proxy.url, forged_path, {"Host": "evil.example"})
    assert (forged.status, forged.cache) == (200, "MISS")
    assert b"http://evil.example/embed?" in forged.body
    assert get(proxy.url, forged_path, {"Host": "evil.example"}).cache == "HIT"
    # The same URL with the real Host is not served the forged entry.
    real = get(proxy.url, forged_path)
    assert (real.status, real.cache) == (404, "MISS")
    own_path = "/oembed?url=" + urllib.parse.quote(proxy.url + "/?p=7B", safe="")
    own = get(proxy.url, own_path)
    assert (own.status, own.cache) == (200, "MISS")
    assert (proxy.url + "/embed?").encode() in own.body and b"evil" not in own.body


def test_gzip_and_identity_are_two_variants_whatever_the_spelling(proxy):
    path = "/api/v1/wall?p=70B"
    plain1 = get(proxy.url, path, {"Accept-Encoding": "identity"})
    zipped1 = get(proxy.url, path, {"Accept-Encoding": "gzip"})
    assert (plain1.cache, zipped1.cache) == ("MISS", "MISS")
    assert "content-encoding" not in plain1.headers
    assert zipped1.headers["content-encoding"] == "gzip"
    assert gzip.decompress(zipped1.body) == plain1.body
    assert plain1.headers["vary"] == zipped1.headers["vary"] == "Accept-Encoding"
    # Every spelling that accepts gzip shares the gzip entry; every other one the plain entry.
    for spelling in ("gzip", "gzip, deflate, br", "br, gzip;q=0.8", "deflate, gzip, zstd", "*"):
        hit = get(proxy.url, path, {"Accept-Encoding": spelling})
        assert (hit.cache, hit.headers.get("content-encoding"), hit.body) == ("HIT", "gzip", zipped1.body), (
            spelling
        )
    for spelling in ("identity", "", "br", "gzip;q=0", "deflate, gzip;q=0.0"):
        hit = get(proxy.url, path, {"Accept-Encoding": spelling})
        assert (hit.cache, hit.headers.get("content-encoding"), hit.body) == ("HIT", None, plain1.body), (
            spelling
        )


def test_a_matching_etag_is_answered_304_from_the_cache(proxy):
    path = "/api/v1/ladder?p=7B"
    first = get(proxy.url, path, {"Accept-Encoding": "gzip"})
    assert first.cache == "MISS"
    again = get(proxy.url, path, {"Accept-Encoding": "gzip", "If-None-Match": first.headers["etag"]})
    assert (again.status, again.cache, again.body) == (304, "HIT", b"")
    stale = get(proxy.url, path, {"Accept-Encoding": "gzip", "If-None-Match": 'W/"nope"'})
    assert (stale.status, stale.cache, stale.body) == (200, "HIT", first.body)


def test_only_what_the_app_marks_cacheable_is_cached(proxy):
    # /healthz says no-store; a 422 says nothing; neither is ever a HIT.
    for path in ("/healthz", "/api/v1/memory?n=0"):
        answers = [get(proxy.url, path) for _ in range(2)]
        assert [a.cache for a in answers] == ["MISS", "MISS"], path
    assert [get(proxy.url, "/api/v1/memory?n=0").status] == [422]


def test_security_headers_are_cached_with_the_body(proxy):
    get(proxy.url, "/api/v1/sizes?p=7B")
    hit = get(proxy.url, "/api/v1/sizes?p=7B")
    assert hit.cache == "HIT"
    assert "script-src 'self';" in hit.headers["content-security-policy"]
    assert hit.headers["x-frame-options"] == "DENY"
    assert "set-cookie" not in hit.headers
    assert "server" not in hit.headers or hit.headers["server"] == "nginx"  # server_tokens off


def test_the_proxy_and_the_app_share_the_limits(proxy):
    # Over the app's 4096 bytes but under nginx's 8 KiB: the app's 414, passed through.
    long = get(proxy.url, "/api/v1/view?pad=" + "a" * 5000)
    assert long.status == 414 and b'"limit": "url_bytes"' in long.body
    # Over nginx's 8 KiB: refused by nginx without reaching the app.
    longer = get(proxy.url, "/api/v1/view?pad=" + "a" * 10000)
    assert longer.status == 414 and b"url_bytes" not in longer.body
    huge_header = get(proxy.url, "/healthz", {"X-Big": "a" * (1 << 20)})
    assert huge_header.status == 400 and b"Header" in huge_header.body
    over_app = get(proxy.url, "/healthz", {"X-Big": "a" * 8000})
    assert over_app.status == 200  # 8007 bytes: under both per-header limits
    too_many = get(proxy.url, "/healthz", {f"X-{i}": "a" * 4000 for i in range(5)})
    assert too_many.status == 431 and b'"limit": "header_bytes"' in too_many.body
