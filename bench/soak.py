"""`soak`: the server's resident memory before and after minutes of load; target < 10 % growth.

A fresh uvicorn process is warmed up until its body cache is full (every configuration of the
mix once, then cold requests, each a configuration never seen, for long enough to fill the
cache to its byte bound, then a few seconds over the mix), its resident set (VmRSS) is read,
and then wrk drives it for the
soak's length in alternating segments: a new p on every request (the model computed each time,
and the body cache filling with answers nobody asks for again) and the mix of configurations
(answers from the cache, when the cold segment has not evicted them). RSS is sampled throughout
and read again at the end.

The cache is bounded in bytes (``app.api.cache.max_bytes``) and a server in service runs with it
full, so the reading before is taken once it is full: what the soak then measures is whether
memory stays put under churn (a bounded cache) or keeps climbing (a leak). The samples, and the
growth over the second half alone, show which.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from bench.common import (
    BROWSER_HEADERS,
    WRK_THREADS,
    BenchError,
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
TARGET_GROWTH_PCT = 10.0

FULL = {"duration_s": 300, "segment_s": 30, "sample_every_s": 10, "warmup_s": 5, "fill_s": 20}
QUICK = {"duration_s": 20, "segment_s": 5, "sample_every_s": 2, "warmup_s": 2, "fill_s": 5}

SETTLE_S = 1.0
"""A pause before each RSS reading, so in-flight requests finish and their buffers are freed."""

MIB = 2**20


class RssSampler(threading.Thread):
    """Reads a process's RSS every ``interval`` seconds until stopped."""

    def __init__(self, pid: int, interval: float) -> None:
        super().__init__(name="rss-sampler", daemon=True)
        self.pid = pid
        self.interval = interval
        self.samples: list[tuple[float, int]] = []
        self.error: BenchError | None = None
        self._stop_event = threading.Event()

    def run(self) -> None:
        start = time.monotonic()
        while not self._stop_event.is_set():
            try:
                self.samples.append((time.monotonic() - start, rss_bytes(self.pid)))
            except BenchError as error:  # the server died; the main thread reports it
                self.error = error
                return
            self._stop_event.wait(self.interval)

    def stop(self) -> None:
        self._stop_event.set()
        self.join(timeout=self.interval + 5)


def run(settings: Settings) -> dict[str, Any]:
    from app.api import cache

    plan = QUICK if settings.quick else FULL
    mix = configuration_mix()
    mix_paths = [view_path(c) for c in mix]
    loads = {"cold": cold_script(mix), "mix": cycling_script(mix_paths)}
    segments = max(2, plan["duration_s"] // plan["segment_s"])
    segment_s = plan["duration_s"] // segments

    with running_server() as server:
        print(
            f"soak: {segments * segment_s} s of wrk ({CONNECTIONS} connections, {WRK_THREADS} thread) in "
            f"{segments} segments of {segment_s} s alternating cold (new p each request) and the mix "
            f"of {len(mix)} configurations, against uvicorn pid {server.pid}; RSS every "
            f"{plan['sample_every_s']} s; the body cache is bounded at {cache.max_bytes / MIB:.0f} MiB",
            flush=True,
        )

        def load(kind: str, seconds: int) -> WrkResult:
            return run_wrk(
                server, loads[kind],
                duration_s=seconds, connections=CONNECTIONS, headers=BROWSER_HEADERS,
            )

        fetch_all(server, mix_paths, BROWSER_HEADERS)
        load("cold", plan["fill_s"])
        load("mix", plan["warmup_s"])
        time.sleep(SETTLE_S)
        before = rss_bytes(server.pid)

        sampler = RssSampler(server.pid, plan["sample_every_s"])
        sampler.start()
        runs = []
        try:
            for index in range(segments):
                kind = ("cold", "mix")[index % 2]
                result = load(kind, segment_s)
                server.ensure_alive()
                runs.append({"segment": index, "load": kind, **result.as_json()})
                cpu = result.cpu_cores
                print(
                    f"  segment {index + 1}/{segments} ({kind}): {result.rps:.0f} req/s, "
                    f"{result.error_count} errors, RSS {rss_bytes(server.pid) / MIB:.1f} MiB, "
                    f"CPU server {cpu['server']:.2f} / others {cpu['others']:.2f} cores",
                    flush=True,
                )
        finally:
            sampler.stop()
        if sampler.error is not None:
            raise sampler.error
        time.sleep(SETTLE_S)
        after = rss_bytes(server.pid)
        peak = rss_bytes(server.pid, "VmHWM")

    growth_pct = 100 * (after - before) / before
    samples = sampler.samples
    # Growth over the second half alone: near zero if the first half's growth was the bounded
    # cache filling, about half the total if memory grows steadily.
    midpoint = min(samples, key=lambda s: abs(s[0] - samples[-1][0] / 2))
    second_half_pct = 100 * (after - midpoint[1]) / midpoint[1]
    errors = sum(r["errors"] for r in runs)
    requests = sum(r["requests"] for r in runs)

    print_table(
        "soak: the server's resident memory (VmRSS)",
        ("reading", "MiB", "growth vs before"),
        [
            ("before (after the warm-up)", f"{before / MIB:.1f}", ""),
            (f"midpoint sample (t = {midpoint[0]:.0f} s)", f"{midpoint[1] / MIB:.1f}",
             f"{100 * (midpoint[1] - before) / before:+.1f}%"),
            ("after", f"{after / MIB:.1f}", f"{growth_pct:+.1f}%"),
            ("peak (VmHWM)", f"{peak / MIB:.1f}", f"{100 * (peak - before) / before:+.1f}%"),
        ],
    )
    print(f"second half alone: {second_half_pct:+.1f}%; {requests} requests, {errors} errors")
    print("samples (s: MiB): " + ", ".join(f"{t:.0f}: {rss / MIB:.1f}" for t, rss in samples))
    return {
        "connections": CONNECTIONS,
        "wrk_threads": WRK_THREADS,
        "plan": plan,
        "segments": runs,
        "body_cache_max_bytes": cache.max_bytes,
        "rss_bytes": {"before": before, "after": after, "peak": peak},
        "growth_pct": round(growth_pct, 2),
        "second_half_growth_pct": round(second_half_pct, 2),
        "rss_samples": [{"t_s": round(t, 1), "rss_bytes": rss} for t, rss in samples],
        "requests": requests,
        "errors": errors,
        "checks": [
            check("RSS growth over the soak (%)", f"< {TARGET_GROWTH_PCT:g}", round(growth_pct, 2),
                  growth_pct < TARGET_GROWTH_PCT),
            check("errors over the soak", "0", errors, errors == 0),
        ],
    }
