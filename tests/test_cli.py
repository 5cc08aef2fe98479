"""The command line (issue 2): `memwall table` prints the first seed's table."""

import subprocess
import sys

from app.cli import main

SEED1_TABLE = """\
| | 8 GPUs | 16 GPUs | 32 GPUs | 64 GPUs |
|---|---|---|---|---|
| data parallelism | 447.0 GiB | 447.0 GiB | 447.0 GiB | 447.0 GiB |
| ZeRO-1 | 153.7 GiB | 132.7 GiB | 122.2 GiB | 117.0 GiB |
| ZeRO-2 | 104.8 GiB | 80.3 GiB | 68.1 GiB | 62.0 GiB |
| ZeRO-3 | 55.9 GiB | 27.9 GiB | 14.0 GiB | 7.0 GiB |
"""


def test_table_prints_seed1_ladder(capsys):
    """Seed 1, "The memory ladder", from `memwall table --params 30e9 --gpus 8,16,32,64`."""
    assert main(["table", "--params", "30e9", "--gpus", "8,16,32,64"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(SEED1_TABLE)
    assert "A card holds 74.5 GiB" in out


def test_table_in_gb_for_seed2(capsys):
    """Seed 2: 7B at 2 GPUs → 70 / 63 / 56 GB for ZeRO-1/2/3."""
    assert main(["table", "--params", "7B", "--gpus", "2", "--unit", "GB"]) == 0
    out = capsys.readouterr().out
    assert "| ZeRO-1 | 70.0 GB |" in out and "| ZeRO-3 | 56.0 GB |" in out


def test_curve_csv(capsys):
    assert main(["curve", "--view", "sizes", "--csv", "--query", "n=64"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "params,scheme,bytes,GiB,fits"
    assert "70000000000,zero3,17500000000,16.298,yes" in lines


def test_bad_option_exits_2_with_the_key_value_and_bound(capsys):
    assert main(["table", "--params", "1e400"]) == 2
    assert "p=1e400: out of range" in capsys.readouterr().err


def test_python_dash_m_app_runs():
    result = subprocess.run([sys.executable, "-m", "app", "table"], capture_output=True, text=True, check=True)
    assert result.stdout.startswith(SEED1_TABLE)
