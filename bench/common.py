"""What the benchmarks share: the configuration mix, a server process, wrk, and tables.

The mix is a fixed, seeded set of realistic configurations (what share links and the page's
controls produce), so every run and every benchmark asks the same questions and figures from
different runs compare. The server is the production command, `uvicorn app.main:app` with one
worker, started fresh for each benchmark and always stopped. wrk is driven by a Lua script
generated from the mix; its ``done()`` prints the figures as one JSON line, which is parsed
instead of wrk's human-readable report.
"""

from __future__ import annotations

import json
import math
import os
import platform
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

REPO_ROOT = Path(__file__).resolve().parent.parent


class BenchError(Exception):
    """A benchmark could not run (as opposed to running and missing a target)."""


@dataclass(frozen=True)
class Settings:
    """What every benchmark is given by the runner."""

    quick: bool
    """A smoke run: the same measurements over much shorter durations and fewer iterations."""
    out_dir: Path
    """Where the runner writes ``<name>.json``, and a benchmark any files of its own."""


# -- the configuration mix --------------------------------------------------------------------

MIX_SEED = 20_240_611
"""Any fixed value: the mix must be identical in every run for figures to compare."""
MIX_SIZE = 200

VIEW_PATH = "/api/v1/view"
HEALTH_PATH = "/healthz"

COLD_PARAMS_RANGE = (10**8, 2 * 10**12)
"""p of the cold requests, drawn log-uniformly: the model-size slider's range (100M to 2T)."""

# Sizes people actually type or pick, in the spellings the contract accepts.
COMMON_SIZES = (
    "125M", "350M", "760M", "1.3B", "2.7B", "6.7B", "7B", "8B", "13B", "30B", "30b", "34B",
    "70B", "175B", "405B", "1T", "1.8T",
)

Configuration = dict[str, str | list[str]]
"""A configuration as a URL carries it: key to text, or to a list of texts for repeated keys."""


def configuration_mix(count: int = MIX_SIZE, seed: int = MIX_SEED) -> list[Configuration]:
    """``count`` distinct, valid configurations drawn from a seeded generator.

    Keys appear only when they differ from the default, as in a share link, and with the
    probabilities below, which lean towards the page's common cases. Each configuration is
    validated against the query contract, and duplicates (same canonical query, hence same
    cache entry) are dropped, so ``count`` is also the number of distinct answers.
    """
    from app.schemas import MemoryQuery

    rng = random.Random(seed)
    mix: list[Configuration] = []
    seen: set[str] = set()
    while len(mix) < count:
        configuration = _draw_configuration(rng)
        canonical = MemoryQuery.model_validate(configuration).canonical()
        if canonical not in seen:
            seen.add(canonical)
            mix.append(configuration)
    return mix


def _draw_configuration(rng: random.Random) -> Configuration:
    from app.model.activations import Strategy
    from app.model.cards import Basis, CardId
    from app.model.comm import LinkId
    from app.model.recipes import RecipeId
    from app.model.states import Offload, Scheme
    from app.model.units import Unit
    from app.schemas import PresetId

    def maybe(probability: float) -> bool:
        return rng.random() < probability

    config: Configuration = {}
    if maybe(0.1):
        config["model"] = rng.choice(list(PresetId)).value
        if maybe(0.5):
            config["p"] = _param_count(rng)
    else:
        config["p"] = _param_count(rng)
    if maybe(0.85):
        power_of_two = maybe(0.75)
        n = 2 ** rng.randint(0, 14) if power_of_two else round(10 ** rng.uniform(0, math.log10(16384)))
        config["n"] = str(n)
    if maybe(0.5):
        common = rng.choice((512, 1024, 2048, 8192, 16384, 32768, 131072))
        config["s"] = str(common if maybe(0.8) else rng.randint(128, 2**20))
    if maybe(0.25):
        config["b"] = str(rng.choice((2, 4, 8, 16)))
    if maybe(0.6):
        config["card"] = rng.choice(list(CardId)).value
    if maybe(0.2):
        config["basis"] = Basis.DRIVER.value
    if maybe(0.2):
        config["use"] = str(rng.choice((0.8, 0.9, 0.95)))
    if maybe(0.3):
        config["unit"] = Unit.GB.value
    if maybe(0.5):
        config["opt"] = rng.choice(list(RecipeId)).value
    if maybe(0.1):
        config["w"] = str(rng.choice((2, 4)))
        config["k"] = str(rng.choice((4, 8, 12, 16)))
    if maybe(0.05):
        config["g"] = str(rng.choice((2, 4)))
    if maybe(0.6):
        config["ac"] = rng.choice(list(Strategy)).value
    if maybe(0.4):
        config["fa"] = "1"
    if maybe(0.5):
        config["acts"] = "1"
    if maybe(0.2):
        config["sp"] = str(rng.choice((2, 4, 8)))
    if maybe(0.25):
        config["off"] = rng.choice((Offload.OPTIMIZER, Offload.PARAMS)).value
    if maybe(0.15):
        config["gpn"] = str(rng.choice((4, 16)))
    if maybe(0.4):
        config["link"] = [link.value for link in rng.sample(list(LinkId), rng.randint(1, 3))]
    if maybe(0.3):
        config["ring"] = "1"
    if maybe(0.2):
        config["ceil"] = [card.value for card in rng.sample(list(CardId), rng.randint(1, 4))]
    if maybe(0.25):
        config["focus"] = rng.choice(list(Scheme)).value
    if maybe(0.05):
        config["L"] = str(rng.choice((24, 48, 96)))
        config["h"] = str(rng.choice((2048, 8192, 12288)))
    return config


def _param_count(rng: random.Random) -> str:
    """p in one of the spellings the contract accepts: 30B, 30b, 350M, 1.5T, 3.5e10, 30000000000."""
    if rng.random() < 0.35:
        return rng.choice(COMMON_SIZES)
    low, high = COLD_PARAMS_RANGE
    value = 10 ** rng.uniform(math.log10(low), math.log10(high))
    style = rng.choice(("suffix", "suffix", "lower", "plain", "exponent"))
    if style == "plain":
        return str(int(value))
    if style == "exponent":
        exponent = math.floor(math.log10(value))
        return f"{round(value / 10**exponent, 2):g}e{exponent}"
    scale, suffix = next((s, x) for s, x in ((10**12, "T"), (10**9, "B"), (10**6, "M")) if value >= s)
    text = f"{round(value / scale, 2):g}{suffix}"
    return text.lower() if style == "lower" else text


def query_string(config: Configuration) -> str:
    return urlencode(config, doseq=True)


def view_path(config: Configuration) -> str:
    return f"{VIEW_PATH}?{query_string(config)}"


# -- the server process -----------------------------------------------------------------------

SERVER_START_TIMEOUT_S = 30.0
SERVER_STOP_TIMEOUT_S = 10.0


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def ensure_alive(self) -> None:
        """Raise with the server's output if it has exited (crashed under load, say)."""
        code = self.process.poll()
        if code is not None:
            raise BenchError(
                f"the server (pid {self.pid}) exited with status {code}; its output:\n{self.log()}"
            )


def free_port() -> int:
    # The port is free now; that nothing takes it before the server binds is merely likely,
    # and if something does, the server's output says so.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_command(port: int) -> list[str]:
    # One worker, as `make run` serves; sys.executable is the venv's Python, and `-m uvicorn`
    # (rather than the uvicorn script) keeps the PID we hold the server's own.
    return [
        sys.executable, "-m", "uvicorn", "app.main:app",
        "--host", "127.0.0.1", "--port", str(port), "--workers", "1", "--log-level", "warning",
        "--loop", "asyncio",
    ]


@contextmanager
def running_server() -> Iterator[Server]:
    """A fresh server on a free port, answering /healthz; stopped however the block ends."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-server-") as tmp:
        log_path = Path(tmp) / "server.log"
        # Output goes to a file, not a pipe: nobody reads a pipe during a run, and a full pipe
        # would block the server mid-benchmark.
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                server_command(port), cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        server = Server(process, port, log_path)
        try:
            _wait_until_healthy(server)
            yield server
        finally:
            _stop(process)


def _wait_until_healthy(server: Server) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        server.ensure_alive()
        try:
            with urllib.request.urlopen(server.base_url + HEALTH_PATH, timeout=1) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.1)
    raise BenchError(
        f"the server (pid {server.pid}) did not answer {HEALTH_PATH} within {SERVER_START_TIMEOUT_S:.0f} s;"
        f" its output:\n{server.log()}"
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)  # uvicorn shuts down gracefully on SIGTERM
    try:
        process.wait(timeout=SERVER_STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=SERVER_STOP_TIMEOUT_S)


def fetch_all(server: Server, paths: Sequence[str], headers: dict[str, str] | None = None) -> None:
    """GET each path once, in order, and insist on a 200: warms the server's body cache and
    proves every configuration of the mix is accepted before any timing starts."""
    for path in paths:
        request = urllib.request.Request(server.base_url + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                response.read()
        except urllib.error.HTTPError as error:
            raise BenchError(f"GET {path} answered {error.code}: {error.read()[:500]!r}") from None


def rss_bytes(pid: int, field_name: str = "VmRSS") -> int:
    """Resident memory of a process from /proc (VmRSS now, or VmHWM: the peak)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError as error:
        raise BenchError(f"cannot read the memory of pid {pid}: {error}") from None
    for line in status.splitlines():
        name, _, value = line.partition(":")
        if name == field_name:
            amount, unit = value.split()
            if unit != "kB":
                raise BenchError(f"unexpected unit {unit!r} for {field_name} in /proc/{pid}/status")
            return int(amount) * 1024
    raise BenchError(f"no {field_name} in /proc/{pid}/status")


# -- CPU accounting -----------------------------------------------------------------------------
# The machine may be shared: a run during which other work took CPU time is worth less, and
# saying how much the server itself used shows whether it, or wrk, was the bottleneck.

CLOCK_TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def _machine_ticks() -> tuple[int, int]:
    """Busy and total CPU time of the whole machine so far, in clock ticks (/proc/stat)."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    total = sum(fields[:8])  # user … steal; guest time is already counted in user time
    idle = fields[3] + fields[4]  # idle and iowait
    return total - idle, total


def _process_ticks(pid: int) -> int:
    """User and system CPU time of a process so far, in clock ticks (/proc/<pid>/stat)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError as error:
        raise BenchError(f"cannot read the CPU time of pid {pid}: {error}") from None
    fields = stat.rpartition(")")[2].split()  # the command name, in parentheses, may hold spaces
    return int(fields[11]) + int(fields[12])  # utime and stime: fields 14 and 15 of proc(5)


@dataclass(frozen=True)
class CpuClock:
    """CPU seconds used so far by the machine, by the server, and by this process's finished
    children (wrk, once it has been waited for)."""

    wall: float
    machine: float
    server: float
    children: float

    @classmethod
    def read(cls, server_pid: int) -> CpuClock:
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return cls(
            wall=time.monotonic(),
            machine=_machine_ticks()[0] / CLOCK_TICKS_PER_S,
            server=_process_ticks(server_pid) / CLOCK_TICKS_PER_S,
            children=children.ru_utime + children.ru_stime,
        )

    def cores_since(self, before: CpuClock) -> dict[str, float]:
        """Average CPUs busy since ``before`` (1.0: one core all the time)."""
        wall = self.wall - before.wall
        server = (self.server - before.server) / wall
        wrk = (self.children - before.children) / wall
        machine = (self.machine - before.machine) / wall
        return {"server": server, "wrk": wrk, "others": max(0.0, machine - server - wrk)}


# -- wrk ---------------------------------------------------------------------------------------

WRK_THREADS = 1
"""The machine this was written for has 2 cores: one for wrk, one for the server."""
WRK_TIMEOUT = "2s"
"""wrk's own default, stated: a response slower than this counts as an error (a timeout), and
wrk leaves it out of its latency percentiles."""
WRK_GRACE_S = 60
"""How long past its duration a wrk run may take before it is killed as hung."""
WRK_JSON_MARKER = "BENCH_WRK_JSON "
BROWSER_HEADERS = {"Accept-Encoding": "gzip"}
"""What a browser sends that changes the answer: the view runs ask for gzip, as a page would."""

_LUA_COMMON = r"""
-- Per-thread counters are globals so that done(), in wrk's main Lua state, can read them with
-- thread:get(). Every response goes through response(), for /healthz and for the view alike,
-- so both runs pay the same client-side cost.
local threads = {}

function setup(thread)
  thread:set("thread_id", #threads)
  table.insert(threads, thread)
end

function init(args)
  non2xx = 0
  gzipped = 0
  cursor = thread_id * 7919  -- threads start at different places in the list
  math.randomseed(SEED + thread_id)
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  end
  if headers["content-encoding"] == "gzip" or headers["Content-Encoding"] == "gzip" then
    gzipped = gzipped + 1
  end
end

function done(summary, latency, requests)
  local non2xx_total, gzipped_total = 0, 0
  for _, thread in ipairs(threads) do
    non2xx_total = non2xx_total + thread:get("non2xx")
    gzipped_total = gzipped_total + thread:get("gzipped")
  end
  local e = summary.errors
  io.write(string.format(
    "\nMARKER{\"duration_us\":%.0f,\"requests\":%.0f,\"bytes\":%.0f," ..
    "\"errors\":{\"connect\":%.0f,\"read\":%.0f,\"write\":%.0f,\"status\":%.0f,\"timeout\":%.0f}," ..
    "\"non2xx\":%.0f,\"gzipped\":%.0f," ..
    "\"latency_us\":{\"min\":%.0f,\"mean\":%.1f,\"stdev\":%.1f,\"max\":%.0f," ..
    "\"p50\":%.0f,\"p90\":%.0f,\"p99\":%.0f}}\n",
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    non2xx_total, gzipped_total,
    latency.min, latency.mean, latency.stdev, latency.max,
    latency:percentile(50), latency:percentile(90), latency:percentile(99)))
end
"""

_LUA_CYCLE = r"""
-- Each request takes the next path of the list, round and round.
function request()
  cursor = cursor + 1
  return wrk.format("GET", paths[(cursor % #paths) + 1])
end
"""

_LUA_COLD = r"""
-- Each request takes the next configuration of the list without its p, and a p drawn
-- log-uniformly from P_LOW to P_HIGH: practically never the same twice, so the server computes
-- the model for every request instead of answering from its body cache.
local log_low, log_high = math.log(P_LOW), math.log(P_HIGH)

function request()
  cursor = cursor + 1
  local p = math.floor(math.exp(log_low + math.random() * (log_high - log_low)))
  return wrk.format("GET", paths[(cursor % #paths) + 1] .. string.format("p=%.0f", p))
end
"""


def _lua_list(name: str, items: Sequence[str]) -> str:
    quoted = ",\n".join("  " + json.dumps(item) for item in items)  # JSON strings are Lua strings here
    return f"{name} = {{\n{quoted}\n}}\n"


def cycling_script(paths: Sequence[str], seed: int = MIX_SEED) -> str:
    """A wrk script that requests ``paths`` in turn."""
    return _script(_lua_list("paths", paths) + _LUA_CYCLE, seed)


def cold_script(mix: Sequence[Configuration], seed: int = MIX_SEED) -> str:
    """A wrk script whose every request is a configuration of the mix with a fresh random p."""
    prefixes = []
    for config in mix:
        rest = query_string({k: v for k, v in config.items() if k != "p"})
        prefixes.append(f"{VIEW_PATH}?{rest}&" if rest else f"{VIEW_PATH}?")
    low, high = COLD_PARAMS_RANGE
    body = _LUA_COLD.replace("P_LOW", f"{low:.1f}").replace("P_HIGH", f"{high:.1f}")
    return _script(_lua_list("paths", prefixes) + body, seed)


def _script(body: str, seed: int) -> str:
    common = _LUA_COMMON.replace("SEED", str(seed)).replace("MARKER", WRK_JSON_MARKER)
    return "-- Generated by bench/common.py for one benchmark run.\n" + body + common


@dataclass
class WrkResult:
    duration_s: float
    requests: int
    bytes: int
    errors: dict[str, int]
    """wrk's socket errors and its count of status >= 400, as it reports them."""
    non2xx: int
    gzipped: int
    latency_us: dict[str, float]
    cpu_cores: dict[str, float]
    """CPUs busy on average during the run: the server, wrk, and everything else on the machine
    (the kernel's interrupt handling, loopback traffic included, counts as "others")."""
    command: list[str] = field(default_factory=list)

    @property
    def rps(self) -> float:
        return self.requests / self.duration_s

    @property
    def error_count(self) -> int:
        """Every request that failed: socket errors, timeouts, and any status outside 2xx
        (wrk's own "status" count is only >= 400, so non2xx replaces it rather than adds)."""
        e = self.errors
        return e["connect"] + e["read"] + e["write"] + e["timeout"] + self.non2xx

    def as_json(self) -> dict[str, Any]:
        return {
            "duration_s": round(self.duration_s, 3),
            "requests": self.requests,
            "rps": round(self.rps, 1),
            "bytes": self.bytes,
            "errors": self.error_count,
            "error_breakdown": {**self.errors, "non2xx": self.non2xx},
            "gzipped_responses": self.gzipped,
            "latency_us": self.latency_us,
            "cpu_cores": {k: round(v, 3) for k, v in self.cpu_cores.items()},
            "command": self.command,
        }


def wrk_binary() -> str:
    binary = shutil.which("wrk")
    if binary is None:
        raise BenchError("wrk is not installed; `make system-deps` installs it (Debian package wrk)")
    return binary


def run_wrk(
    server: Server,
    script: str,
    *,
    duration_s: int,
    connections: int,
    headers: dict[str, str] | None = None,
) -> WrkResult:
    """Run wrk with a generated script against the server, and account for the CPU time."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", prefix="bench-wrk-") as script_file:
        script_file.write(script)
        script_file.flush()
        command = [
            wrk_binary(), "--threads", str(WRK_THREADS), "--connections", str(connections),
            "--duration", f"{duration_s}s", "--timeout", WRK_TIMEOUT, "--latency",
            "--script", script_file.name,
        ]
        for name, value in (headers or {}).items():
            command += ["--header", f"{name}: {value}"]
        command.append(server.base_url)
        before = CpuClock.read(server.pid)
        try:
            # check=False: a failed run is reported below with wrk's own output.
            completed = subprocess.run(
                command, capture_output=True, text=True, timeout=duration_s + WRK_GRACE_S, check=False
            )
        except subprocess.TimeoutExpired:
            limit = duration_s + WRK_GRACE_S
            raise BenchError(f"wrk did not finish within {limit} s: {' '.join(command)}") from None
        cpu = CpuClock.read(server.pid).cores_since(before)
    line = next((ln for ln in completed.stdout.splitlines() if ln.startswith(WRK_JSON_MARKER)), None)
    if completed.returncode != 0 or line is None:
        raise BenchError(
            f"wrk failed (status {completed.returncode}): {' '.join(command)}\n"
            f"{completed.stdout}\n{completed.stderr}"
        )
    data = json.loads(line.removeprefix(WRK_JSON_MARKER))
    return WrkResult(
        duration_s=data["duration_us"] / 1e6,
        requests=int(data["requests"]),
        bytes=int(data["bytes"]),
        errors={k: int(v) for k, v in data["errors"].items()},
        non2xx=int(data["non2xx"]),
        gzipped=int(data["gzipped"]),
        latency_us=data["latency_us"],
        cpu_cores=cpu,
        command=[Path(c).name if c == script_file.name else c for c in command],
    )


def wrk_version() -> str:
    try:
        completed = subprocess.run(
            [wrk_binary(), "--version"], capture_output=True, text=True, timeout=10, check=False
        )
    except (BenchError, OSError, subprocess.TimeoutExpired):
        return "unavailable"
    # wrk prints its version as the first line of its usage text (and exits non-zero).
    lines = (completed.stdout + completed.stderr).splitlines()
    return lines[0].strip() if lines else "unknown"


# -- reporting ---------------------------------------------------------------------------------


def environment() -> dict[str, Any]:
    """Where the figures were measured, stored beside them."""
    import uvicorn

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "uvicorn": uvicorn.__version__,
        "wrk": wrk_version(),
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
    }


def cpu_busy_fraction(interval_s: float = 1.0) -> float:
    """How busy the machine's CPUs are over ``interval_s``, from /proc/stat (0 to 1)."""
    busy_before, total_before = _machine_ticks()
    time.sleep(interval_s)
    busy_after, total_after = _machine_ticks()
    total = total_after - total_before
    return (busy_after - busy_before) / total if total else 0.0


def _git(*args: str) -> str:
    try:
        completed = subprocess.run(
            ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return completed.stdout.strip() if completed.returncode == 0 else ""


def check(name: str, target: str, value: float, passed: bool) -> dict[str, Any]:
    return {"name": name, "target": target, "value": value, "passed": passed}


def verdict(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A plain-text table: first column left-aligned, the figures right-aligned."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]

    def line(row: Sequence[str]) -> str:
        parts = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        return "  ".join(parts).rstrip()

    print(f"\n{title}")
    print(line(cells[0]))
    print("  ".join("-" * w for w in widths))
    for row in cells[1:]:
        print(line(row))
    sys.stdout.flush()
