"""Schemathesis against the live server (issue 4): uvicorn on 127.0.0.1 with the security
middleware and its limits, every operation, every check, positive and negative data, within a
fixed time budget. The settings (statuses that count as rejections, oEmbed's 501) are those of
schemathesis.toml, shared with the in-process run."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.live import ROOT, LiveServer

pytestmark = pytest.mark.live

TIME_BUDGET_S = 60
SEED = 20261129


def test_schemathesis_against_the_live_server_finds_nothing(tmp_path):
    cli = Path(sys.executable).parent / "schemathesis"
    with LiveServer() as server:
        with urllib.request.urlopen(f"{server.url}/api/v1/openapi.json") as response:
            operations = sum(len(path) for path in json.load(response)["paths"].values())
        result = subprocess.run(
            [
                str(cli), "run", f"{server.url}/api/v1/openapi.json",
                "--checks", "all",
                "--mode", "all",
                "--max-time", str(TIME_BUDGET_S),
                "--seed", str(SEED),
                "--report", "junit", "--report-dir", str(tmp_path),
                "--no-color",
            ],
            cwd=ROOT,
            check=False,
            capture_output=True,
            text=True,
            timeout=TIME_BUDGET_S * 4,
        )
    summary = "\n".join(result.stdout.splitlines()[-40:])
    assert result.returncode == 0, summary
    reports = list(tmp_path.glob("*.xml"))
    assert reports, "schemathesis wrote no report"
    report = reports[0].read_text()
    assert 'failures="0"' in report and 'errors="0"' in report, summary
    # Every operation was exercised, not just the schema loaded.
    assert operations >= 13
    assert report.count("<testcase") == operations, summary
