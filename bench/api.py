"""`api`: the server-side time of GET /api/v1/view, in-process, and where that time goes.

Requests are made by calling the ASGI application directly (no socket, no HTTP client), so the
figures are the app's own time: routing, query validation, the model, serialisation, gzip and
the response. Three kinds of request, over the configuration mix:

    cold     the body cache is cleared before each call, so the model is computed every time
    warm     the answer comes from the body cache (every configuration was answered once)
    healthz  the cheapest route of the same app, as the yardstick for ratios

Each path is also taken apart, stage by stage, outside the framework: for a miss, query
validation, ``to_config``, the model (``Evaluation.view``, and each view inside it), the
envelope, orjson and gzip; for a hit, the lookup of the request's URL in the cache (a URL seen
before is answered without parsing its query) and the response. What the stages leave of the
whole request is the framework's share.

Every measurement of a configuration is taken back to back with the others of that
configuration (healthz, warm request, warm stages; then cold request, cold stages, the model's
parts), so other work on the machine, which comes and goes, weighs on all of them alike and the
differences between them stay meaningful. The garbage collector stays on: collections are part
of a request's real cost, and the p95 shows them.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from app import api
from app.http_cache import GZIP_LEVEL, Encoded
from app.main import app as asgi_app
from app.model.report import Evaluation
from app.schemas import MemoryQuery
from bench.common import (
    BROWSER_HEADERS,
    HEALTH_PATH,
    VIEW_PATH,
    BenchError,
    Configuration,
    Settings,
    configuration_mix,
    print_table,
    query_string,
)

# Rounds over the mix: a cold round takes milliseconds per configuration, a warm one well under
# one, so warm rounds are more numerous for the same stability of the p95.
FULL = {"warm_rounds": 25, "cold_rounds": 5}
QUICK = {"warm_rounds": 3, "cold_rounds": 1}

COLD_STAGES = ("validate", "to_config", "model_view", "envelope", "orjson", "gzip")
"""What a cache miss does besides the framework's work, in order; the stages do not overlap."""
WARM_STAGES = ("url_lookup",)
"""What a cache hit does besides the framework's work, in order."""
VIEW_PARTS = ("facts", "units", "shape", "recipe", "memory", "ladder", "wall", "pile", "seq", "sizes",
              "comm", "findings")
"""Evaluation.view() in its parts: the per-scheme facts every view shares (a cached property),
then each view in the order view() calls them."""


def run(settings: Settings) -> dict[str, Any]:
    plan = QUICK if settings.quick else FULL
    mix = configuration_mix()
    print(
        f"api: in-process ASGI calls over a mix of {len(mix)} configurations, {plan['warm_rounds']} warm "
        f"and {plan['cold_rounds']} cold rounds; view requests send Accept-Encoding: gzip; times in µs",
        flush=True,
    )
    times, sizes = asyncio.run(_measure(mix, plan))
    figures = {name: summary(values) for name, values in times.items()}

    requests = {name: figures[name] for name in ("healthz", "view_warm", "view_cold")}
    cold_stages = {name: figures[f"cold.{name}"] for name in ("model_call", *COLD_STAGES)}
    warm_stages = {name: figures[f"warm.{name}"] for name in WARM_STAGES}
    parts = {name: figures[f"part.{name}"] for name in VIEW_PARTS}
    cold_stages["framework_remainder"] = _remainder(cold_stages, COLD_STAGES, requests["view_cold"])
    warm_stages["framework_remainder"] = _remainder(warm_stages, WARM_STAGES, requests["view_warm"])
    health = requests["healthz"]
    ratios = {
        f"{name}_over_healthz_{stat}": requests[name][f"{stat}_us"] / health[f"{stat}_us"]
        for name in ("view_warm", "view_cold")
        for stat in ("median", "p95")
    }
    body_sizes = {name: statistics.median(values) for name, values in sizes.items()}

    _print_requests(requests, ratios, body_sizes)
    _print_stages(
        "api: the cold path, stage by stage",
        cold_stages,
        {
            "model_call": "model call: Evaluation(MemoryQuery.model_validate(q).to_config()).view()",
            "validate": "  MemoryQuery.model_validate",
            "to_config": "  MemoryQuery.to_config",
            "model_view": "  Evaluation.view",
            "envelope": "envelope (model_dump + canonical)",
            "orjson": f"orjson dumps (to {body_sizes['json']:.0f} B median)",
            "gzip": f"gzip level {GZIP_LEVEL} (to {body_sizes['gzip']:.0f} B median)",
        },
        requests["view_cold"],
        "cold",
    )
    _print_parts(parts)
    _print_stages(
        "api: the warm path, stage by stage",
        warm_stages,
        {"url_lookup": "body cache: the request URL's answer"},
        requests["view_warm"],
        "warm",
    )
    return {
        "configurations": len(mix),
        "plan": plan,
        "requests": requests,
        "ratios": {k: round(v, 2) for k, v in ratios.items()},
        "median_body_bytes": body_sizes,
        "cold_stages": cold_stages,
        "view_parts": parts,
        "warm_stages": warm_stages,
    }


# -- measuring ---------------------------------------------------------------------------------


class AsgiClient:
    """GETs from an ASGI app called as uvicorn calls it, minus the socket."""

    def __init__(self, asgi_app: Any) -> None:
        self.app = asgi_app

    async def get(
        self, path: str, query: bytes = b"", headers: Sequence[tuple[bytes, bytes]] = ()
    ) -> tuple[float, int]:
        """Microseconds the app took to answer, and the body's size; anything but 200 is an error."""
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": query,
            "headers": [(b"host", b"127.0.0.1"), *headers],
            "client": ("127.0.0.1", 50_000),
            "server": ("127.0.0.1", 8000),
        }
        status = 0
        size = 0

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status, size
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                size += len(message.get("body", b""))

        start = time.perf_counter_ns()
        await self.app(scope, receive, send)
        elapsed_us = (time.perf_counter_ns() - start) / 1e3
        if status != 200:
            raise BenchError(f"in-process GET {path}?{query.decode()} answered {status}")
        return elapsed_us, size


class Laps:
    """A stopwatch whose every lap is named: the time since the previous lap, in µs."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self._last = time.perf_counter_ns()

    def lap(self, name: str) -> None:
        now = time.perf_counter_ns()
        self.times[name] = (now - self._last) / 1e3
        self._last = now


async def _measure(
    mix: Sequence[Configuration], plan: dict[str, int]
) -> tuple[dict[str, list[float]], dict[str, list[int]]]:
    client = AsgiClient(asgi_app)
    queries = [query_string(c).encode() for c in mix]
    gzip = [(name.lower().encode(), value.encode()) for name, value in BROWSER_HEADERS.items()]
    times: dict[str, list[float]] = defaultdict(list)
    sizes: dict[str, list[int]] = defaultdict(list)

    def record(prefix: str, laps: dict[str, float]) -> None:
        for name, elapsed in laps.items():
            times[f"{prefix}.{name}"].append(elapsed)

    # One untimed pass: imports, first-call set-up and the allocator's growth are not what
    # this measures. It also fills the body cache, which the warm rounds rely on.
    api.cache.clear()
    for query in queries:
        await client.get(VIEW_PATH, query, gzip)
    await client.get(HEALTH_PATH)

    for _ in range(plan["warm_rounds"]):
        for config, query in zip(mix, queries, strict=True):
            times["healthz"].append((await client.get(HEALTH_PATH))[0])
            elapsed, size = await client.get(VIEW_PATH, query, gzip)
            times["view_warm"].append(elapsed)
            sizes["served_gzip"].append(size)
            record("warm", _warm_stages(config))

    for _ in range(plan["cold_rounds"]):
        for config, query in zip(mix, queries, strict=True):
            api.cache.clear()  # outside the timing: what is timed is a miss, not the clearing
            times["view_cold"].append((await client.get(VIEW_PATH, query, gzip))[0])
            laps, json_bytes, gzip_bytes = _cold_stages(config)
            record("cold", laps)
            sizes["json"].append(json_bytes)
            sizes["gzip"].append(gzip_bytes)
            record("part", _view_parts(config))
    api.cache.clear()
    return times, sizes


def _cold_stages(config: Configuration) -> tuple[dict[str, float], int, int]:
    """What the view route does on a miss, stage by stage; and the body's size, plain and gzipped."""
    laps = Laps()
    Evaluation(MemoryQuery.model_validate(config).to_config()).view()  # as a caller of the model would
    laps.lap("model_call")
    query = MemoryQuery.model_validate(config)
    laps.lap("validate")
    resolved = query.to_config()
    laps.lap("to_config")
    report = Evaluation(resolved).view()
    laps.lap("model_view")
    head = api.envelope(query)
    laps.lap("envelope")
    body = api.dumps({**head, **report})
    laps.lap("orjson")
    encoded = Encoded.build(body, "application/json", f"{VIEW_PATH}?{query.canonical()}")
    laps.lap("gzip")
    return laps.times, len(body), len(encoded.body)


def _warm_stages(config: Configuration) -> dict[str, float]:
    """What the view route does on a hit, stage by stage, against the app's own cache."""

    laps = Laps()
    # The key as the route forms it: the Host header AsgiClient sends, the path, the query.
    hit = api.cache.get_by_url(f"127.0.0.1{VIEW_PATH}?{query_string(config)}")
    laps.lap("url_lookup")
    if hit is None:
        raise BenchError(f"expected a body-cache hit for {query_string(config)!r}")
    return laps.times


def _view_parts(config: Configuration) -> dict[str, float]:
    evaluation = Evaluation(MemoryQuery.model_validate(config).to_config())
    laps = Laps()
    evaluation.facts  # noqa: B018 - a cached property: this computes it
    laps.lap("facts")
    for name in VIEW_PARTS[1:]:
        getattr(evaluation, name)()
        laps.lap(name)
    return laps.times


# -- figures -------------------------------------------------------------------------------------


def summary(samples_us: Sequence[float]) -> dict[str, Any]:
    ordered = sorted(samples_us)
    return {
        "samples": len(ordered),
        "median_us": round(statistics.median(ordered), 1),
        "p95_us": round(_nearest_rank(ordered, 95), 1),
        "mean_us": round(statistics.fmean(ordered), 1),
        "max_us": round(ordered[-1], 1),
    }


def _nearest_rank(ordered: Sequence[float], percent: float) -> float:
    rank = max(1, -(-len(ordered) * percent // 100))  # ceil(n × percent / 100)
    return ordered[int(rank) - 1]


def _remainder(
    stages: dict[str, dict[str, Any]], names: Sequence[str], whole: dict[str, Any]
) -> dict[str, Any]:
    """What the stages leave of the whole request's median: routing, FastAPI's own parsing of
    the query and the response, mostly. Medians do not add exactly, so this is an estimate."""
    return {"median_us": round(whole["median_us"] - sum(stages[name]["median_us"] for name in names), 1)}


def _print_requests(
    requests: dict[str, dict[str, Any]], ratios: dict[str, float], body_sizes: dict[str, float]
) -> None:
    labels = {
        "healthz": "GET /healthz",
        "view_warm": "GET /api/v1/view, warm (body cache)",
        "view_cold": "GET /api/v1/view, cold (model computed)",
    }
    rows = []
    for name, r in requests.items():
        over_median = ratios.get(f"{name}_over_healthz_median", 1.0)
        over_p95 = ratios.get(f"{name}_over_healthz_p95", 1.0)
        rows.append((
            labels[name], r["samples"], f"{r['median_us']:.1f}", f"{r['p95_us']:.1f}", f"{r['max_us']:.0f}",
            f"{over_median:.1f}", f"{over_p95:.1f}",
        ))
    print_table(
        "api: whole requests, in-process",
        ("request", "samples", "median µs", "p95 µs", "max µs", "median ÷ healthz", "p95 ÷ healthz"),
        rows,
    )
    json_bytes, served_bytes = body_sizes["json"], body_sizes["served_gzip"]
    print(f"view answers: median {json_bytes:.0f} bytes of JSON, {served_bytes:.0f} served gzipped")


def _print_stages(
    title: str, stages: dict[str, dict[str, Any]], labels: dict[str, str], whole: dict[str, Any], what: str
) -> None:
    def share(median_us: float) -> str:
        return f"{100 * median_us / whole['median_us']:.0f}%"

    rows = [
        (label, f"{stages[k]['median_us']:.1f}", f"{stages[k]['p95_us']:.1f}", share(stages[k]["median_us"]))
        for k, label in labels.items()
    ]
    remainder = stages["framework_remainder"]["median_us"]
    label = f"framework and the rest ({what} median − stage medians)"
    rows.append((label, f"{remainder:.1f}", "", share(remainder)))
    rows.append((f"whole {what} request", f"{whole['median_us']:.1f}", f"{whole['p95_us']:.1f}", "100%"))
    print_table(title, ("stage", "median µs", "p95 µs", f"of {what} median"), rows)


def _print_parts(parts: dict[str, dict[str, Any]]) -> None:
    # Shares of the parts' own total: Evaluation.view in the stage table was timed in one piece,
    # and medians of parts do not add up to the median of the whole.
    total = sum(p["median_us"] for p in parts.values())
    rows = [
        (f"Evaluation.{name}{'' if name == 'memories' else '()'}", f"{p['median_us']:.1f}",
         f"{p['p95_us']:.1f}", f"{100 * p['median_us'] / total:.0f}%")
        for name, p in sorted(parts.items(), key=lambda item: -item[1]["median_us"])
    ]
    rows.append(("sum of the parts' medians", f"{total:.1f}", "", "100%"))
    print_table(
        "api: inside Evaluation.view (memories first, then each view with it cached)",
        ("part", "median µs", "p95 µs", "of the sum"),
        rows,
    )
