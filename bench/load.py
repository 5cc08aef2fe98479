"""`load`: throughput and latency of the running server under wrk, as ratios to /healthz.

One uvicorn process (the production command, one worker) on 127.0.0.1, and three wrk runs of
the same length and concurrency against it, one after another:

    healthz     GET /healthz: what the server and the HTTP stack cost with no work behind them
    view mix    GET /api/v1/view cycling through the configuration mix, every answer already
                in the body cache (each configuration was fetched once beforehand): the case of
                many readers opening the same few share links
    view cold   GET /api/v1/view with a fresh p on every request, so the model is computed for
                every one: the worst case, someone dragging a slider through new values

The targets are on the mix: requests per second at least 0.8 of /healthz's, and no errors.
The cold run is reported beside it with the same ratios, as what the cache does not cover.
"""

from __future__ import annotations

from typing import Any

from bench.common import (
    BROWSER_HEADERS,
    HEALTH_PATH,
    WRK_THREADS,
    Settings,
    WrkResult,
    check,
    cold_script,
    configuration_mix,
    cycling_script,
    fetch_all,
    print_table,
    rss_bytes,
    run_wrk,
    running_server,
    view_path,
)

CONNECTIONS = 64
DURATION_S = 60
QUICK_DURATION_S = 10
WARMUP_S = 5
QUICK_WARMUP_S = 2
TARGET_RPS_RATIO = 0.8
OTHERS_CPU_NOTED = 0.1
"""Cores of other work during a run from which the run is noted as skewed."""

LABELS = {
    "healthz": "GET /healthz",
    "view_mix": "GET /api/v1/view, mix (cached)",
    "view_cold": "GET /api/v1/view, new p each (cold)",
}


def run(settings: Settings) -> dict[str, Any]:
    duration = QUICK_DURATION_S if settings.quick else DURATION_S
    warmup = QUICK_WARMUP_S if settings.quick else WARMUP_S
    mix = configuration_mix()
    mix_paths = [view_path(c) for c in mix]
    scripts = {
        "healthz": cycling_script([HEALTH_PATH]),
        "view_mix": cycling_script(mix_paths),
        "view_cold": cold_script(mix),
    }
    with running_server() as server:
        print(
            f"load: wrk, {CONNECTIONS} connections, {WRK_THREADS} thread, {duration} s per run, against "
            f"uvicorn (1 worker, pid {server.pid}) on {server.base_url}; every request sends "
            f"Accept-Encoding: gzip, as a browser does; {len(mix)} configurations in the mix",
            flush=True,
        )

        def load(name: str, seconds: int) -> WrkResult:
            return run_wrk(
                server, scripts[name],
                duration_s=seconds, connections=CONNECTIONS, headers=BROWSER_HEADERS,
            )

        fetch_all(server, mix_paths, BROWSER_HEADERS)
        # Untimed: the first seconds of a fresh process pay for connection set-up and the
        # interpreter's first allocations, which no later request sees.
        for name in ("healthz", "view_mix"):
            load(name, warmup)
        results: dict[str, WrkResult] = {}
        for name in scripts:
            print(f"  {LABELS[name]}: {duration} s ...", flush=True)
            results[name] = load(name, duration)
            server.ensure_alive()
        server_rss = rss_bytes(server.pid)

    health = results["healthz"]
    ratios = {name: ratios_to(health, result) for name, result in results.items() if name != "healthz"}
    _print(results, ratios)
    views = ("view_mix", "view_cold")
    gzipped = (f"{LABELS[n]}: {results[n].gzipped} of {results[n].requests}" for n in views)
    print("gzipped answers: " + "; ".join(gzipped))
    total_errors = sum(r.error_count for r in results.values())
    mix_ratio = ratios["view_mix"]["rps"]
    return {
        "connections": CONNECTIONS,
        "wrk_threads": WRK_THREADS,
        "duration_s": duration,
        "configurations": len(mix),
        "request_headers": BROWSER_HEADERS,
        "runs": {name: result.as_json() for name, result in results.items()},
        "ratios_to_healthz": {name: {k: round(v, 3) for k, v in r.items()} for name, r in ratios.items()},
        "server_rss_bytes_after": server_rss,
        "checks": [
            check("view (mix) req/s ÷ healthz req/s", f"≥ {TARGET_RPS_RATIO}", round(mix_ratio, 3),
                  mix_ratio >= TARGET_RPS_RATIO),
            check("errors over every run", "0", total_errors, total_errors == 0),
        ],
    }


def ratios_to(health: WrkResult, result: WrkResult) -> dict[str, float]:
    """Throughput as a fraction of /healthz's (higher is better), latencies as multiples of
    /healthz's (lower is better)."""
    return {
        "rps": result.rps / health.rps,
        "p50": result.latency_us["p50"] / health.latency_us["p50"],
        "p99": result.latency_us["p99"] / health.latency_us["p99"],
    }


def _print(results: dict[str, WrkResult], ratios: dict[str, dict[str, float]]) -> None:
    def ms(value: float) -> str:
        return f"{value / 1000:.2f}"

    rows = []
    for name, r in results.items():
        ratio = ratios.get(name, {"rps": 1.0, "p50": 1.0, "p99": 1.0})
        rows.append((
            LABELS[name], r.requests, f"{r.rps:.0f}", ms(r.latency_us["p50"]), ms(r.latency_us["p90"]),
            ms(r.latency_us["p99"]), ms(r.latency_us["max"]), r.error_count,
            f"{ratio['rps']:.2f}", f"{ratio['p50']:.2f}", f"{ratio['p99']:.2f}",
            f"{r.cpu_cores['server']:.2f}", f"{r.cpu_cores['wrk']:.2f}", f"{r.cpu_cores['others']:.2f}",
        ))
    print_table(
        "load: wrk against one uvicorn worker (latencies in ms; ratios to /healthz in this run; "
        "CPU in cores busy on average)",
        ("run", "requests", "req/s", "p50", "p90", "p99", "max", "errors",
         "req/s ÷ hz", "p50 ÷ hz", "p99 ÷ hz", "CPU server", "CPU wrk", "CPU others"),
        rows,
    )
    for name, r in results.items():
        if r.cpu_cores["others"] >= OTHERS_CPU_NOTED:
            print(f"note: other work on this machine kept {r.cpu_cores['others']:.2f} cores busy during "
                  f"{LABELS[name]}: that run's figures are skewed")
