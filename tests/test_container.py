"""The container image, without a Docker engine: hadolint, the Dockerfile's shape, the build
context .dockerignore lets through, and the image's files and command run here as they would
in the image."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.live import ROOT, LiveServer, free_port

DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
HADOLINT = Path(sys.executable).parent / "hadolint"
RUNTIME_FILES = {"app", "static", "templates", "pyproject.toml", "README.md", "constraints.txt"}


# -- a small Dockerfile reader ----------------------------------------------------------------


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order; continuation lines joined, comments dropped."""
    result: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue  # a comment inside a continued instruction is dropped too, as Docker does
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        keyword, _, rest = line.partition(" ")
        result.append((keyword.upper(), rest.strip()))
    assert not pending, "the Dockerfile ends inside a continued line"
    return result


def exec_form(arguments: str) -> list[str]:
    value = json.loads(arguments)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value), arguments
    return value


def env_of(steps: list[tuple[str, str]]) -> dict[str, str]:
    env: dict[str, str] = {}
    for keyword, arguments in steps:
        if keyword == "ENV":
            for item in shlex.split(arguments):
                key, _, value = item.partition("=")
                env[key] = value
    return env


STEPS = instructions(DOCKERFILE.read_text())


def only(keyword: str) -> str:
    found = [arguments for k, arguments in STEPS if k == keyword]
    assert len(found) == 1, f"expected one {keyword}, found {found}"
    return found[0]


# -- hadolint and the Dockerfile's shape ------------------------------------------------------


def test_hadolint_finds_nothing(tmp_path):
    assert HADOLINT.exists(), f"{HADOLINT} is missing: pip install -c constraints.txt '.[test]'"
    config = tmp_path / "hadolint.yaml"
    config.write_text("ignored: []\n")  # no repository or user config may hide a rule
    env = {k: v for k, v in os.environ.items() if not k.startswith("HADOLINT_")}
    result = subprocess.run(
        [
            str(HADOLINT),
            "--config",
            str(config),
            "--disable-ignore-pragma",
            "--no-color",
            "--format",
            "json",
            str(DOCKERFILE),
        ],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert json.loads(result.stdout) == [], result.stdout
    assert result.returncode == 0, result.stderr


def test_hadolint_would_catch_a_bad_dockerfile(tmp_path):
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python\nRUN pip install fastapi\nCMD uvicorn app.main:app\n")
    result = subprocess.run(
        [str(HADOLINT), "--format", "json", str(bad)], check=False, capture_output=True, text=True
    )
    assert {f["code"] for f in json.loads(result.stdout)} >= {"DL3006", "DL3013", "DL3042", "DL3025"}
    assert result.returncode != 0


def test_a_slim_python_3_11_base():
    assert only("FROM") == "python:3.11-slim"


def test_runs_as_a_non_root_user_from_before_the_command():
    users = [i for i, (k, _) in enumerate(STEPS) if k == "USER"]
    assert users, "no USER"
    user = STEPS[users[-1]][1]
    name, _, group = user.partition(":")
    assert name not in ("root", "0") and group not in ("root", "0")
    assert name.isdigit() and int(name) >= 1000, "a numeric UID lets Kubernetes check runAsNonRoot"
    assert all(k != "RUN" for k, _ in STEPS[users[-1] :]), "nothing may run as root after USER"
    cmd_index = next(i for i, (k, _) in enumerate(STEPS) if k == "CMD")
    assert users[-1] < cmd_index
    # The user is created with that UID.
    assert f"--uid {name} " in only("RUN")


def test_the_command_is_exec_form_uvicorn_with_workers_from_the_environment():
    cmd = exec_form(only("CMD"))
    assert cmd[:2] == ["uvicorn", "app.main:app"]
    assert cmd[cmd.index("--host") + 1] == "0.0.0.0"
    assert cmd[cmd.index("--port") + 1] == "8000"
    assert not any(arg.startswith("--workers") for arg in cmd), "--workers would override WEB_CONCURRENCY"
    assert "WEB_CONCURRENCY" in env_of(STEPS)
    assert all(k != "ENTRYPOINT" for k, _ in STEPS) or exec_form(only("ENTRYPOINT"))
    assert "8000" in only("EXPOSE").split()


def test_uvicorn_takes_workers_from_web_concurrency():
    """What the CMD relies on: uvicorn's --workers defaults to $WEB_CONCURRENCY."""
    from uvicorn.config import Config

    previous = os.environ.get("WEB_CONCURRENCY")
    os.environ["WEB_CONCURRENCY"] = "3"
    try:
        assert Config("app.main:app").workers == 3
        assert Config("app.main:app", workers=2).workers == 2
    finally:
        if previous is None:
            del os.environ["WEB_CONCURRENCY"]
        else:
            os.environ["WEB_CONCURRENCY"] = previous


def healthcheck() -> tuple[dict[str, str], list[str]]:
    arguments = only("HEALTHCHECK")
    options = dict(re.findall(r"--([a-z-]+)=(\S+)", arguments))
    command = arguments[arguments.index("CMD ") + 4 :]
    return options, exec_form(command)


def test_the_healthcheck_asks_healthz_with_the_standard_library():
    options, command = healthcheck()
    assert command[:2] == ["python", "-c"]
    assert "urllib.request" in command[2] and "http://127.0.0.1:8000/healthz" in command[2]
    assert "curl" not in command[2] and "wget" not in command[2]
    assert {"interval", "timeout", "start-period", "retries"} <= set(options)
    # The request's own timeout is shorter than Docker's, so a hung server fails cleanly.
    request_timeout = float(re.search(r"timeout=(\d+(?:\.\d+)?)\)", command[2]).group(1))
    assert request_timeout < float(options["timeout"].rstrip("s"))


def test_only_the_runtime_is_installed():
    run = only("RUN")
    install = re.search(r"pip install ([^&]+)", run).group(1).split()
    assert install[-1] == "." and "-c" in install and install[install.index("-c") + 1] == "constraints.txt"
    assert "--no-cache-dir" in install
    assert not any("[" in arg for arg in install), "no extras: the test extra stays out of the image"
    sources = {src for k, a in STEPS if k == "COPY" for src in a.split()[:-1]}
    assert sources == RUNTIME_FILES


# -- the build context ------------------------------------------------------------------------


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            out += ".*"
            i += 2
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            out += "[^/]"
            i += 1
        elif pattern[i] == "[":
            end = pattern.index("]", i)
            out += pattern[i : end + 1]
            i = end + 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return re.compile(out + r"\Z")


def dockerignore_rules() -> list[tuple[bool, re.Pattern[str]]]:
    rules = []
    for line in DOCKERIGNORE.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = line.lstrip("!").strip().strip("/")
        rules.append((negate, _pattern_regex(pattern)))
    return rules


def in_context(path: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Docker's rule: the last pattern matching the path or one of its parents decides."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    included = True
    for negate, regex in rules:
        if any(regex.match(p) for p in prefixes):
            included = negate
    return included


def context_files() -> list[str]:
    rules = dockerignore_rules()
    files = []
    for top in sorted(RUNTIME_FILES):
        path = ROOT / top
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        files += [c.relative_to(ROOT).as_posix() for c in candidates]
    return [f for f in files if in_context(f, rules)]


def test_the_context_is_the_runtime_and_nothing_else():
    rules = dockerignore_rules()
    for path in [
        "app/main.py",
        "app/model/__init__.py",
        "app/security.py",
        "pyproject.toml",
        "README.md",
        "constraints.txt",
    ]:
        assert in_context(path, rules), path
    for path in [
        ".venv/bin/python",
        ".git/HEAD",
        "tests/test_api.py",
        "tests/live.py",
        "bench/api.py",
        "scripts/system-deps.sh",
        "Makefile",
        "Dockerfile",
        ".dockerignore",
        ".hypothesis/x",
        "memory_wall.egg-info/PKG-INFO",
        "deploy/nginx.conf.template",
        "docs/deployment-security.md",
        "app/__pycache__/main.cpython-311.pyc",
        "app/model/__pycache__/x.pyc",
        "static/js/x.pyc",
        ".pytest_cache/v",
        ".ci/run",
        ".env",
    ]:
        assert not in_context(path, rules), path
    # Every file COPY names is in the context.
    for top in RUNTIME_FILES:
        assert in_context(top if (ROOT / top).is_file() else f"{top}/x", rules), top


# -- the image's files and command, run here --------------------------------------------------


def image_tree(root: Path) -> Path:
    """The WORKDIR of the image: what the COPY lines take from the filtered context."""
    workdir = Path(only("WORKDIR"))
    target = root / workdir.relative_to("/")
    files = context_files()
    for keyword, arguments in STEPS:
        if keyword != "COPY":
            continue
        *sources, dest = arguments.split()
        dest_dir = target / dest
        for src in sources:
            for f in files:
                if f == src:
                    (dest_dir / Path(src).name if dest.endswith("/") else dest_dir).parent.mkdir(
                        parents=True, exist_ok=True
                    )
                    shutil.copy2(ROOT / f, dest_dir / Path(src).name if dest.endswith("/") else dest_dir)
                elif f.startswith(src + "/"):
                    out = dest_dir / f[len(src) + 1 :]
                    out.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(ROOT / f, out)
    return target


def image_env(workdir: Path) -> dict[str, str]:
    env = env_of(STEPS)
    image_workdir = only("WORKDIR")
    return {k: v.replace(image_workdir, str(workdir)) for k, v in env.items()}


def worker_pids(parent: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and b"spawn_main" in cmdline:
            pids.append(int(entry.name))
    return pids


@pytest.mark.live
def test_the_image_files_and_command_serve_with_workers_from_the_environment(tmp_path):
    workdir = image_tree(tmp_path)
    assert {p.name for p in workdir.iterdir()} == RUNTIME_FILES
    env = {**image_env(workdir), "WEB_CONCURRENCY": "2"}
    assert env["PYTHONPATH"] == str(workdir)

    # The copied sources, not the repository's, are what Python imports there.
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import app.main, app.static_files as s; print(app.main.__file__); print(s.STATIC_DIR)",
        ],
        cwd=workdir,
        env={**os.environ, **env},
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert probe.returncode == 0, probe.stderr
    main_file, static_dir = probe.stdout.split()
    assert Path(main_file) == workdir / "app" / "main.py"
    assert Path(static_dir) == workdir / "static"

    cmd = exec_form(only("CMD"))
    options = cmd[2:]
    for flag in ("--host", "--port"):
        at = options.index(flag)
        del options[at : at + 2]
    with LiveServer(env=env, app=cmd[1], args=options, cwd=workdir) as server:
        deadline = time.monotonic() + 20
        while len(worker_pids(server.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(worker_pids(server.pid)) == 2, server.output()
        with urllib.request.urlopen(server.url + "/api/v1/view?p=7B") as response:
            assert response.status == 200
            assert "server" not in response.headers  # --no-server-header
        with urllib.request.urlopen(server.url + "/") as response:
            assert response.status == 200 and b"<html" in response.read().lower()

        # The HEALTHCHECK's own command, pointed at this server: healthy, then unhealthy.
        _, check = healthcheck()
        code = check[2].replace("127.0.0.1:8000", f"127.0.0.1:{server.port}")
        healthy = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, timeout=30)
        assert healthy.returncode == 0, healthy.stderr
    dead = check[2].replace("127.0.0.1:8000", f"127.0.0.1:{free_port()}")
    assert (
        subprocess.run([sys.executable, "-c", dead], check=False, capture_output=True, timeout=30).returncode
        != 0
    )



def test_every_way_of_serving_uses_the_same_event_loop():
    """The choice of asyncio over uvloop (app.cli.SERVER_LOOP) holds wherever the app is
    served: the container, `make run`, the benchmarks' server and the tests' live server."""
    from app.cli import SERVER_LOOP
    from bench.common import server_command

    assert exec_form(only("CMD"))[-2:] == ["--loop", SERVER_LOOP]
    assert f"--port $(PORT) --loop {SERVER_LOOP}" in (ROOT / "Makefile").read_text()
    command = server_command(8000)
    assert command[command.index("--loop") + 1] == SERVER_LOOP
    assert f'"{SERVER_LOOP}",  # as served' in (ROOT / "tests" / "live.py").read_text()
