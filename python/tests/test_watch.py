"""`kgadvise.watch` around a short sleep with a fake nvidia-smi (tests/fixtures/diagnose: two T4s, the
second idle): the report has the verdicts, equals the CLI's diagnose of what was saved, and the block's
exception goes on; without nvidia-smi the block runs unwatched with a message, not an exception."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

import kgadvise
from conftest import FAKE_NVSMI, FAKE_NVSMI_NO_DEVICES, assert_alarm_within_two_minutes, run


@pytest.fixture
def fake_gpus(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("KGADVISE_NVIDIA_SMI", str(FAKE_NVSMI))
    monkeypatch.setenv("FAKE_NVSMI_ARGS", str(tmp_path / "args"))
    return tmp_path / "args"


def test_watch_reports_the_verdicts(fake_gpus: Path, tmp_path: Path, cargo_cli: Path, capsys: pytest.CaptureFixture) -> None:
    saved = tmp_path / "gpu.csv"
    with kgadvise.watch(interval_s=0.05, save=saved) as w:
        assert w.running
        time.sleep(1.0)
    assert not w.running
    report = w.report
    assert report is not None and report["schema"] == "kgadvise.diagnose/1"
    assert "second-gpu-idle" in report["verdicts"] and report.verdicts == report["verdicts"]
    assert [g["index"] for g in report["gpus"]] == [0, 1]
    assert w.seconds >= 1.0
    # Run as `kgadvise sample` runs it.
    args = fake_gpus.read_text().split()
    assert args[0].startswith("--query-gpu=timestamp,index,name,utilization.gpu") and args[1:] == ["--format=csv", "-lms", "50"]
    # Saved, and the CLI's diagnose of the saved output is the same report.
    assert saved.read_bytes() == w.raw and w.raw
    out = run(cargo_cli, ["diagnose", str(saved), "--json"])
    assert json.loads(out.stdout) == report
    printed = capsys.readouterr().out
    assert "Verdicts (fix first): " in printed and "second-gpu-idle" in printed
    html = w._repr_html_()
    assert html == report._repr_html_()
    assert "<table" in html and "second-gpu-idle" in html and "wasted quota" in html and "Tesla T4" in html


def test_an_exception_in_the_block_stops_sampling_and_goes_on(fake_gpus: Path) -> None:
    with pytest.raises(RuntimeError, match="training failed"):
        with kgadvise.watch(interval_s=0.05, quiet=True) as w:
            time.sleep(0.5)
            raise RuntimeError("training failed")
    assert not w.running
    assert w.report is not None and "second-gpu-idle" in w.report["verdicts"]


def test_without_nvidia_smi_the_block_runs_unwatched(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("KGADVISE_NVIDIA_SMI", "/nonexistent/nvidia-smi")
    ran = False
    with kgadvise.watch(interval_s=0.05) as w:
        ran = True
    assert ran and w.report is None and not w.running
    assert w.error is not None and "not found" in w.error
    printed = capsys.readouterr().out
    assert "not sampling" in printed and "KGADVISE_NVIDIA_SMI" in printed
    assert "not found" in w._repr_html_()


def test_no_gpus_is_no_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGADVISE_NVIDIA_SMI", str(FAKE_NVSMI_NO_DEVICES))
    with kgadvise.watch(interval_s=0.05, quiet=True) as w:
        time.sleep(0.3)
    assert w.report is not None
    assert w.report["verdicts"] == ["no-data"]
    assert any("No devices were found" in e for e in w.report["errors"])


def test_a_bad_interval_is_an_input_error() -> None:
    for bad in (0, -1, float("nan"), "1"):
        with pytest.raises(kgadvise.InputError, match="interval_s"):
            kgadvise.watch(interval_s=bad)  # type: ignore[arg-type]


REPLAY = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "live"


def _replay(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capture: str) -> Path:
    monkeypatch.setenv("KGADVISE_NVIDIA_SMI", str(REPLAY / "fake-nvidia-smi-replay.sh"))
    monkeypatch.setenv("FAKE_NVSMI_LOG", str(REPLAY / capture))
    monkeypatch.setenv("FAKE_NVSMI_DONE", str(tmp_path / "done"))
    return tmp_path / "done"


def test_live_without_ipython_prints_plain_lines_and_one_alarm(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cargo_cli: Path, capsys: pytest.CaptureFixture
) -> None:
    done = _replay(monkeypatch, tmp_path, "second-gpu-idle-2xT4.csv")
    with kgadvise.watch(interval_s=1, live=True) as w:
        while not done.exists() or w.views < 1:
            time.sleep(0.02)
    printed = capsys.readouterr().out
    assert printed.count("kgadvise ALARM") == 1 and len(w.alarms) == 1, printed
    assert "second-gpu-idle" in w.alarms[0]
    assert_alarm_within_two_minutes(w.alarms[0])
    assert "kgadvise live [" in printed, printed
    # The final report is the CLI's diagnose of the same capture.
    out = run(cargo_cli, ["diagnose", str(REPLAY / "second-gpu-idle-2xT4.csv"), "--json"])
    assert json.loads(out.stdout) == w.report


def test_live_raises_no_alarm_on_a_dip_that_recovers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    done = _replay(monkeypatch, tmp_path, "dip-recovers-2xT4.csv")
    with kgadvise.watch(interval_s=1, live=True) as w:
        while not done.exists() or w.views < 1:
            time.sleep(0.02)
    assert w.alarms == [] and "ALARM" not in capsys.readouterr().out


def test_python_m_kgadvise_watch_carries_the_alarm_into_a_kernel_log(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A Kaggle kernel's log is a file: plain lines, the alarm once, then the final diagnosis.
    done = _replay(monkeypatch, tmp_path, "second-gpu-idle-2xT4.csv")
    train = f"import pathlib, time\nwhile not pathlib.Path({str(done)!r}).exists(): time.sleep(0.02)\nprint('epoch 1 done')"
    out = subprocess.run(
        [sys.executable, "-m", "kgadvise", "watch", "--", sys.executable, "-c", train],
        capture_output=True, text=True, timeout=120,
    )
    assert out.stdout.count("kgadvise ALARM") == 1, out.stdout + out.stderr
    assert_alarm_within_two_minutes(out.stdout)
    assert "epoch 1 done" in out.stdout and "Verdicts (fix first): second-gpu-idle" in out.stdout
    assert "\x1b[" not in out.stdout
