"""A real uvicorn server on 127.0.0.1 for tests that need a socket: browsers, proxies, limits.

Usage::

    from tests.live import live_server

    with live_server() as base_url:             # e.g. "http://127.0.0.1:41237"
        urllib.request.urlopen(base_url + "/healthz")

    with live_server(env={"MEMWALL_EMBED_ORIGINS": "https://a.example"}) as base_url:
        ...

As a pytest fixture (one server per module; mark the tests ``@pytest.mark.live``)::

    @pytest.fixture(scope="module")
    def base_url():
        with live_server() as url:
            yield url

When a test needs the process itself (its PID, to read its memory; its output), use
``LiveServer`` directly: ``with LiveServer() as server: server.url, server.pid, server.output()``.

The server is ``sys.executable -m uvicorn app.main:app --host 127.0.0.1 --port <free port>
--log-level warning --loop asyncio``, run from the repository root in its own process group. Start-up waits
for ``GET /healthz`` to answer 200 for at most ``startup_timeout`` seconds; if the process dies
or the deadline passes, ``LiveServerError`` is raised carrying everything the server printed.
On exit the server is stopped by its PID: SIGTERM, then SIGKILL to its process group (which
also reaches ``--workers`` children) if it has not exited within ``stop_timeout`` seconds.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import IO, Self

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"

__all__ = ["LiveServer", "LiveServerError", "free_port", "live_server"]


class LiveServerError(RuntimeError):
    """The server did not come up; the message carries its captured output."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class LiveServer:
    """One uvicorn process serving ``app`` on a free port of 127.0.0.1.

    ``env`` is added to (and overrides) this process's environment; ``args`` are extra uvicorn
    options, e.g. ``["--http", "h11"]``; ``cwd`` is where the server runs (the repository root
    by default). ``app`` is uvicorn's import string.
    """

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        app: str = "app.main:app",
        args: Sequence[str] = (),
        cwd: Path | str = ROOT,
        startup_timeout: float = 15.0,
        stop_timeout: float = 5.0,
    ) -> None:
        self.env = dict(env or {})
        self.app = app
        self.args = list(args)
        self.cwd = Path(cwd)
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.returncode: int | None = None
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def pid(self) -> int:
        assert self.process is not None, "the server is not running"
        return self.process.pid

    def output(self) -> str:
        """Everything the server has printed so far (stdout and stderr, interleaved)."""
        if self._log is None:
            return ""
        self._log.flush()
        self._log.seek(0)
        return self._log.read().decode(errors="replace")

    def start(self) -> Self:
        # A free port can be taken between probing and binding; try a few before giving up.
        for attempt in range(3):
            self.port = free_port()
            if self._log is not None:
                self._log.close()
            self._log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server)
            command = [
                sys.executable,
                "-m",
                "uvicorn",
                self.app,
                "--host",
                HOST,
                "--port",
                str(self.port),
                "--log-level",
                "warning",
                "--loop",
                "asyncio",  # as served: see app.cli.SERVER_LOOP
                *self.args,
            ]
            self.process = subprocess.Popen(
                command,
                cwd=self.cwd,
                env={**os.environ, **self.env},
                stdin=subprocess.DEVNULL,
                stdout=self._log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                self._wait_until_healthy()
                return self
            except LiveServerError:
                output = self.output()
                self.stop()
                if "address already in use" in output.lower() and attempt < 2:
                    continue
                raise
            except BaseException:  # e.g. KeyboardInterrupt while waiting: never leave it running
                self.stop()
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _wait_until_healthy(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + self.startup_timeout
        last_error = "no answer yet"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise LiveServerError(
                    f"uvicorn exited with status {self.process.returncode} before answering "
                    f"/healthz:\n{self.output()}"
                )
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as response:
                    if response.status == 200:
                        return
                    last_error = f"status {response.status}"
            except (OSError, urllib.error.URLError) as exc:
                last_error = str(exc)
            time.sleep(0.05)
        raise LiveServerError(
            f"uvicorn did not answer /healthz within {self.startup_timeout} s ({last_error}):\n"
            f"{self.output()}"
        )

    def stop(self) -> None:
        """Stop the server by its PID; idempotent."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                # The process group has the server's PID as its id (start_new_session).
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:  # pragma: no cover
                    pass
                process.wait(timeout=self.stop_timeout)
        if process is not None:
            self.returncode = process.returncode
        # The log stays readable after stop (for error messages); __exit__ closes it.

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
        if self._log is not None:
            self._log.close()
            self._log = None


@contextmanager
def live_server(
    env: Mapping[str, str] | None = None,
    *,
    app: str = "app.main:app",
    args: Sequence[str] = (),
    startup_timeout: float = 15.0,
) -> Iterator[str]:
    """Run the app under uvicorn for the duration of the block; yield its base URL."""
    with LiveServer(env, app=app, args=args, startup_timeout=startup_timeout) as server:
        yield server.url
