"""The wheel's `kgadvise` command is the CLI: the same output, exit codes and --json as the binary cargo
builds, `sample` and `bench` included (with a fake nvidia-smi), and Ctrl-C reaches `bench`'s child."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FAKE_NVSMI, FIXTURES, NOW, ROOT, run

#: Command lines whose whole output (stdout, stderr, exit code) must be the same from both.
SAME = [
    ["--version"],
    ["--help"],
    ["cap", "--help"],
    ["cap", "--measured", "3.5", "--now", NOW],
    ["cap", "--fold-hours", "4", "--folds", "7", "--now", NOW, "--json"],
    ["cap", "--measured", "-1"],
    ["cap", "--measured", "3.5", "--set", "nope=1", "--json"],
    ["cap"],
    ["matrix", "--platform", "t4x2", "--capability", "bf16", "--now", NOW],
    ["diagnose", str(FIXTURES / "diagnose" / "second-gpu-idle.csv"), "--now", NOW],
    ["diagnose", str(FIXTURES / "diagnose" / "input-bound-utf16le.csv"), "--json", "--now", NOW],
    ["quota", str(FIXTURES / "quota" / "api.json"), "--live", "--now", NOW, "--json"],
    ["explain", "KQ021"],
    ["no-such-command"],
]


def test_the_command_is_the_native_binary(wheel_cli: Path) -> None:
    # Not a Python launcher: signals, exit codes and start-up are the binary's own.
    assert wheel_cli.read_bytes()[:4] == b"\x7fELF"


@pytest.mark.parametrize("args", SAME, ids=" ".join)
def test_same_output_and_exit_code(args: list, wheel_cli: Path, cargo_cli: Path) -> None:
    ours, theirs = run(wheel_cli, args, cwd=ROOT), run(cargo_cli, args, cwd=ROOT)
    assert (ours.returncode, ours.stdout, ours.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr)


def test_exit_codes(wheel_cli: Path) -> None:
    assert run(wheel_cli, ["cap", "--measured", "3.5"]).returncode == 0
    assert run(wheel_cli, ["cap", "--measured", "-1"]).returncode == 2
    out = run(wheel_cli, ["cap", "--measured", "-1", "--json"])
    assert json.loads(out.stdout)["schema"] == "kgadvise.error/1"


def test_sample_with_a_fake_nvidia_smi(wheel_cli: Path, cargo_cli: Path, tmp_path: Path) -> None:
    env = {"KGADVISE_NVIDIA_SMI": str(FAKE_NVSMI), "FAKE_NVSMI_ARGS": str(tmp_path / "args")}
    saved = tmp_path / "gpu.csv"
    out = run(wheel_cli, ["sample", "--seconds", "1", "--interval-ms", "50", "--save", str(saved), "--json"], env)
    assert out.returncode in (0, 1), out.stderr
    report = json.loads(out.stdout)
    assert "second-gpu-idle" in report["verdicts"]
    assert (tmp_path / "args").read_text().split()[-2:] == ["-lms", "50"]
    # What it saved reads back to the same answer through the reference CLI.
    again = run(cargo_cli, ["diagnose", str(saved), "--json"])
    assert json.loads(again.stdout) == report


def test_sample_without_nvidia_smi(wheel_cli: Path, cargo_cli: Path) -> None:
    env = {"KGADVISE_NVIDIA_SMI": "/nonexistent/nvidia-smi"}
    ours = run(wheel_cli, ["sample", "--seconds", "1"], env)
    theirs = run(cargo_cli, ["sample", "--seconds", "1"], env)
    assert ours.returncode == theirs.returncode == 2
    assert ours.stderr == theirs.stderr and "not found" in ours.stderr


def test_bench_runs_a_command(wheel_cli: Path, tmp_path: Path) -> None:
    env = {"KGADVISE_NVIDIA_SMI": str(FAKE_NVSMI)}
    out = run(wheel_cli, ["bench", "--name", "echo", "--run", "echo hello", "--interval-ms", "50", "--json"], env, cwd=tmp_path)
    assert out.returncode in (0, 1), out.stderr
    report = json.loads(out.stdout)
    assert report["schema"].startswith("kgadvise.bench/")
    assert (tmp_path / "reports" / "bench.jsonl").exists()


def test_ctrl_c_reaches_the_benched_command(wheel_cli: Path, tmp_path: Path) -> None:
    env = {"KGADVISE_NVIDIA_SMI": str(FAKE_NVSMI)}
    proc = subprocess.Popen(
        [str(wheel_cli), "bench", "--name", "long", "--run", "sleep 30", "--json"],
        cwd=tmp_path,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(0.8)
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=20)
    assert time.monotonic() - started < 10
    report = json.loads(stdout)
    assert report["runs"][0]["interrupted"] is True, stderr
    assert proc.returncode == 1, "an interrupted run is a failed run"


def test_python_dash_m_is_the_command(cargo_cli: Path) -> None:
    args = ["cap", "--measured", "-1"]
    ours = subprocess.run([sys.executable, "-m", "kgadvise", *args], capture_output=True, text=True)
    theirs = run(cargo_cli, args)
    assert (ours.returncode, ours.stdout, ours.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr)
