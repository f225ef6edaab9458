"""kgadvise's readers on the exact texts the official client printed against the stand-in
(tests/fixtures/kaggle-client/, recorded by test_standin_client.py): the quota in its three forms, every
status line, and a session's status with its log."""

from __future__ import annotations

import json
import os

import pytest
from conftest import FIXTURES, run

KGADVISE = os.environ.get("KGADVISE_BIN", "")
NOW = "2026-12-07T08:00:00Z"


def kgadvise(*args):
    if not os.access(KGADVISE, os.X_OK):
        pytest.fail(f"KGADVISE_BIN={KGADVISE!r} is not an executable: scripts/test-loop.sh builds it")
    r = run([KGADVISE, *args, "--json", "--now", NOW], dict(os.environ), timeout=60)
    assert r.stdout.startswith("{"), r
    return r, json.loads(r.stdout)


def fixture(name):
    return os.path.join(FIXTURES, f"{name}.stdout.txt")


@pytest.mark.parametrize("name", [
    "quota-json", "quota-table", "quota-csv",
    "quota-json-outdated-warning",
])
def test_quota_in_every_form(name):
    r, report = kgadvise("quota", fixture(name))
    assert r.returncode == 0, r
    gpu = report["gpu"]
    assert (gpu["used"], gpu["remaining"], gpu["total"]) == (2.42, 27.58, 30.0), r
    assert gpu["refresh_at"] == "2026-12-12T00:00:00Z" and report["tpu"]["total"] == 20.0, r


@pytest.mark.parametrize("name,outcome", [
    ("status-queued", "queued"), ("status-running", "running"), ("status-complete", "complete"),
    ("status-error", "error"), ("status-cancelled", "cancelled"),
])
def test_every_status_line(name, outcome):
    r, report = kgadvise("collect", "--status", fixture(name))
    assert report["session"]["outcome"] == outcome, r
    if outcome == "error":
        assert report["session"]["failure_message"].startswith("Your notebook tried to allocate more memory"), r


@pytest.mark.parametrize("status,log,hours", [
    ("status-complete", "logs-complete", 0.5),
    ("status-cancelled", "logs-cancelled-at-cap", 1.0),
])
def test_a_session_from_its_status_and_log(status, log, hours):
    r, report = kgadvise("collect", "--status", fixture(status), "--log", fixture(log), "--timeout-seconds", "3600")
    assert round(report["session"]["hours"], 2) == hours, r
    stopped = [f for f in report["findings"] if f["rule"] == "KR005"]
    assert bool(stopped) == (status == "status-cancelled"), r
    if stopped:
        assert "Stopped by the cap" == stopped[0]["title"], r
