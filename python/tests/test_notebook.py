"""python/tests/watch.ipynb run through nbclient in a kernel of this environment (the installed wheel),
with a fake nvidia-smi: the watch cell prints the verdicts and `w.report` renders as the HTML report."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbclient
import nbformat
import pytest

from conftest import FAKE_NVSMI, assert_alarm_within_two_minutes

NOTEBOOK = Path(__file__).with_name("watch.ipynb")


def test_the_notebook_shows_the_html_report(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A kernel spec of this very interpreter, first on the Jupyter path: never a `python3` of the machine.
    spec = tmp_path / "jupyter" / "kernels" / "kgadvise-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "kgadvise test",
                "language": "python",
            }
        )
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("KGADVISE_NVIDIA_SMI", str(FAKE_NVSMI))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=120, kernel_name="kgadvise-test", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()

    watch_cell, report_cell, cap_cell = nb.cells[2], nb.cells[3], nb.cells[4]
    printed = "".join(o.get("text", "") for o in watch_cell.outputs if o.output_type == "stream")
    assert "Verdicts (fix first): " in printed and "second-gpu-idle" in printed, printed
    html = [o.data["text/html"] for o in report_cell.outputs if "text/html" in o.get("data", {})]
    assert html, report_cell.outputs
    assert 'class="kgadvise-diagnose"' in html[0] and "<table" in html[0] and "second-gpu-idle" in html[0]
    assert "wasted quota" in html[0]
    assert (tmp_path / "gpu.csv").read_bytes(), "save= wrote nothing"
    assert cap_cell.outputs[0].data["text/plain"].isdigit()


LIVE_NOTEBOOK = Path(__file__).with_name("watch_live.ipynb")
REPLAY = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "live"


def test_the_live_view_is_updated_in_place_with_one_alarm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    spec = tmp_path / "jupyter" / "kernels" / "kgadvise-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "kgadvise test",
                "language": "python",
            }
        )
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("KGADVISE_NVIDIA_SMI", str(REPLAY / "fake-nvidia-smi-replay.sh"))
    monkeypatch.setenv("FAKE_NVSMI_LOG", str(REPLAY / "second-gpu-idle-2xT4.csv"))
    monkeypatch.setenv("FAKE_NVSMI_DONE", str(tmp_path / "done"))
    nb = nbformat.read(LIVE_NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=120, kernel_name="kgadvise-test", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()

    def texts(cell: nbformat.NotebookNode, kind: str) -> list:
        return [o.data["text/plain"] for o in cell.outputs if o.output_type == kind and "text/plain" in o.get("data", {})]

    watch_cell, magic_cell = nb.cells[2], nb.cells[4]
    shown = texts(watch_cell, "display_data")
    views = [t for t in shown if t.startswith("kgadvise live: ")]
    # Three refreshes or more (the cell waited for them), one output: updated, not appended.
    assert len(views) == 1, watch_cell.outputs
    assert "[settled] second-gpu-idle" in views[0] and "last minutes" in views[0], views[0]
    alarms = [t for t in shown if "kgadvise ALARM" in t]
    assert len(alarms) == 1 and "second-gpu-idle" in alarms[0], shown
    assert_alarm_within_two_minutes(alarms[0])
    printed = "".join(o.get("text", "") for o in watch_cell.outputs if o.output_type == "stream")
    assert "Verdicts (fix first): second-gpu-idle" in printed, printed
    # %%kgwatch: the same view and final report around the cell, the log saved.
    assert any(t.startswith("kgadvise live: ") for t in texts(magic_cell, "display_data")), magic_cell.outputs
    printed = "".join(o.get("text", "") for o in magic_cell.outputs if o.output_type == "stream")
    assert "Verdicts (fix first): second-gpu-idle" in printed, printed
    assert (tmp_path / "live.csv").read_bytes()
