"""`python -m bench [name ...] [--quick] [--out DIR]`: run benchmarks, write their figures.

Exit status: 0 when every benchmark ran and met its targets, 1 when one could not run or
missed a target (the summary at the end says which).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import api, browser, load, soak
from bench.common import REPO_ROOT, BenchError, Settings, cpu_busy_fraction, environment, verdict

Benchmark = Callable[[Settings], dict[str, Any]]

BENCHMARKS: dict[str, Benchmark] = {
    "api": api.run,
    "load": load.run,
    "browser": browser.run,
    "soak": soak.run,
}
"""Every benchmark by name, in the order a plain `python -m bench` runs them. To add one,
write a module with ``run(settings) -> figures`` and register it here."""

DEFAULT_OUT = REPO_ROOT / "bench" / "results"
BUSY_CPU_FRACTION = 0.25
"""Busy from here: measured while no benchmark process runs, so it is someone else's work."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Benchmarks of the Memory Wall server. Each prints tables and writes "
        "<out>/<name>.json.",
    )
    parser.add_argument(
        "names", nargs="*", metavar="name",
        help=f"benchmarks to run (default: all of {', '.join(BENCHMARKS)})",
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run: short durations, few iterations")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
        help="directory for the JSON figures (default: bench/results in the repository)",
    )
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
    args.names = list(dict.fromkeys(args.names)) or list(BENCHMARKS)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    settings = Settings(quick=args.quick, out_dir=args.out)
    settings.out_dir.mkdir(parents=True, exist_ok=True)
    host = environment()
    failures: list[str] = []
    for name in args.names:
        print(f"\n=== {name}{' (quick)' if settings.quick else ''} ===", flush=True)
        started = datetime.now(UTC)
        busy = cpu_busy_fraction()
        if busy >= BUSY_CPU_FRACTION:
            print(f"note: the CPUs were {100 * busy:.0f}% busy just before this benchmark: other work on "
                  f"this machine competes with it and skews every figure", flush=True)
        clock = time.monotonic()
        try:
            figures = BENCHMARKS[name](settings)
        except BenchError as error:
            print(f"\n{name}: could not run: {error}", file=sys.stderr, flush=True)
            failures.append(f"{name}: could not run")
            continue
        path = settings.out_dir / f"{name}.json"
        record = {
            "benchmark": name,
            "quick": settings.quick,
            "started": started.isoformat(timespec="seconds"),
            "seconds": round(time.monotonic() - clock, 1),
            "environment": host,
            "cpu_busy_before": round(busy, 3),
            "figures": figures,
        }
        path.write_text(json.dumps(record, indent=2) + "\n")
        print(f"\n{name}: figures written to {_shown(path)}", flush=True)
        for c in figures.get("checks", []):
            print(f"  {verdict(c['passed'])}  {c['name']}: {c['value']} (target {c['target']})")
            if not c["passed"]:
                failures.append(f"{name}: missed {c['name']}: {c['value']} (target {c['target']})")

    print()
    if failures:
        print("bench:\n  " + "\n  ".join(failures), file=sys.stderr)
        return 1
    print(f"bench: {', '.join(args.names)}: every benchmark ran and no target was missed")
    return 0


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
