"""kgadvise's loop (quota -> push -> status / wait -> collect -> log) driven through the unmodified official
client against the Kaggle stand-in, on its simulated clock: every kgadvise command gets `--now` = the
stand-in's clock, and `wait --interval S` runs while the stand-in moves its clock S seconds per status call.
In every scenario where a run ends, the hours kgadvise's ledger records equal what the stand-in charged, to the
hundredth: from the run's log when `status` or `wait` sees it end, from its outputs when it is collected.

A command missing from the kgadvise binary under test fails its test, naming it."""

from __future__ import annotations

import json
import os
import signal
import subprocess

import pytest
from conftest import KAGGLE, USER, make_kernel, run

KGADVISE = os.environ.get("KGADVISE_BIN", "")
_commands: dict[str, bool] = {}


def require(*commands: str) -> None:
    """Fails (naming it) when the binary has no such command."""
    if not KGADVISE or not os.access(KGADVISE, os.X_OK):
        pytest.fail(f"KGADVISE_BIN={KGADVISE!r} is not an executable: scripts/test-loop.sh builds it")
    for c in commands:
        if c not in _commands:
            r = subprocess.run([KGADVISE, c, "--help"], capture_output=True, timeout=30)
            _commands[c] = r.returncode == 0
        if not _commands[c]:
            pytest.fail(f"`kgadvise {c} --help` failed: the binary under test has no such command")


class Kgadvise:
    """kgadvise with the client's environment, its own state folder, and the stand-in's clock as --now."""

    def __init__(self, standin, client_env, tmp_path):
        self.standin = standin
        self.state_dir = tmp_path / "state"
        self.cwd = tmp_path
        self.env = dict(client_env, KGADVISE_KAGGLE=KAGGLE, KGADVISE_STATE_DIR=str(self.state_dir))

    def args(self, args, now):
        when = self.standin.state()["now"] if now is True else now
        return [KGADVISE, *map(str, args)] + (["--now", when] if when else [])

    def __call__(self, *args, now=True, env=None, json_out=True):
        r = run(self.args(list(args) + (["--json"] if json_out else []), now), env or self.env, cwd=self.cwd,
                timeout=120)
        r.json = json.loads(r.stdout) if json_out and r.stdout.strip().startswith("{") else None
        return r

    def popen(self, *args):
        return subprocess.Popen(self.args(list(args) + ["--json"], True), env=self.env, cwd=self.cwd,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)

    def runs(self) -> list[dict]:
        path = self.state_dir / "gpu_runs.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def wait(self, kernel, interval, *more):
        """`kgadvise wait` with the stand-in's clock moving `interval` per status call, as kgadvise's does."""
        self.standin.status_step(interval)
        try:
            return self(*("wait", kernel, "--interval", interval, *more))
        finally:
            self.standin.status_step(0)


@pytest.fixture
def kg(standin, client_env, tmp_path):
    return Kgadvise(standin, client_env, tmp_path)


def rows_of(report: dict, kernel: str) -> list[dict]:
    return [r for r in report["rows"] if r["kernel"] == kernel]


def assert_ledger_equals_charged(kg, kernels) -> dict:
    """The ledger: `kgadvise status` shows nothing of these kernels holding hours any more, and `kgadvise
    log` records for each the hours the stand-in charged, to the hundredth of an hour."""
    status = kg("status")
    assert status.returncode == 0, status
    held = [r for r in status.json["rows"] if r["kernel"] in kernels and r["held_hours"]]
    assert held == [], status
    log = kg("log")
    assert log.returncode == 0, log
    charged = kg.standin.state()["charged_h"]
    for kernel in kernels:
        rows = rows_of(log.json, kernel)
        assert rows, f"{kernel} not in the runs log:\n{log}"
        ran = sum(r["gpu_hours"] or 0 for r in rows)
        assert round(ran, 2) == round(charged.get(kernel, 0.0), 2), (kernel, ran, charged, str(log))
    return log.json


def test_the_loop_quota_push_status_wait_collect_quota(kg, standin, tmp_path):
    """quota -> three GPU pushes (the third refused, nothing logged) -> status -> wait -> collect -> quota
    shows the hours charged and no reservation left."""
    require("push", "status", "wait", "log")
    standin.quota(gpu_used_h=2.0)
    q = kg("quota")
    assert q.returncode == 0 and q.json["live"] is True, q
    assert q.json["gpu"]["used"] == 2.0 and q.json["gpu"]["total"] == 30.0
    assert len(standin.requests("GetAcceleratorQuotaStatistics")) == 1

    a, b, c = (f"{USER}/{s}" for s in ("train-a", "train-b", "train-c"))
    standin.script(a, runtime_s=1800, files={"submission.csv": "id,y\n1,0\n"})
    standin.script(b, runtime_s=2700)
    for kernel in (a, b):
        pushed = kg("push", make_kernel(tmp_path, kernel.split("/")[1]), "--hours", 1)
        assert pushed.returncode == 0, pushed
        assert pushed.json["logged"] == "pushed" and pushed.json["answer"]["answer"] == "pushed", pushed
    sent = [r["request"]["sessionTimeoutSeconds"] for r in standin.requests("SaveKernel")]
    assert sent == [3600, 3600]
    third = kg("push", make_kernel(tmp_path, "train-c"), "--hours", 1)
    assert third.returncode == 1, third
    assert [r["kernel"] for r in kg.runs()] == [a, b], "the refused push was logged"
    assert len(standin.state()["versions"]) == 2

    status = kg("status")
    assert status.returncode == 0, status
    assert [(r["kernel"], r["status"], r["held_hours"]) for r in status.json["rows"]] == [
        (a, "running", 1.0), (b, "running", 1.0)]
    assert status.json["held_gpu_hours"] == 2.0

    done = kg.wait(a, 900)
    assert done.returncode == 0 and done.json["status"] == "complete", done
    collected = kg("collect", a, "-p", tmp_path / "out-a")
    assert collected.returncode == 0, collected
    assert (tmp_path / "out-a" / "submission.csv").exists()
    done = kg.wait(b, 900, "--collect", "-p", tmp_path / "out-b")
    assert done.returncode == 0 and done.json["status"] == "complete", done

    log = assert_ledger_equals_charged(kg, [a, b])
    assert round(log["gpu_hours"], 2) == round(standin.charged_h(), 2) == 1.25
    standin.advance(20 * 60)  # past the cache's live limit: the next quota is read live again
    status = kg("status")
    assert status.json["held_gpu_hours"] == 0 and status.json["quota"]["live"] is True, status
    assert round(status.json["quota"]["gpu"]["used"], 2) == 3.25, status
    q = kg("quota")
    assert q.json["live"] is True, q
    assert round(q.json["gpu"]["used"], 2) == round(standin.state()["quota"]["gpu"]["used_h"], 2) == 3.25
    assert q.json["gpu"]["reserved"] == 0 and q.json["gpu"]["reservations"] == [], q


def test_status_alone_frees_a_finished_run_and_collect_records_its_hours(kg, standin, tmp_path):
    require("push", "status", "collect", "log")
    k = f"{USER}/train-a"
    standin.script(k, runtime_s=5400)
    assert kg("push", make_kernel(tmp_path, "train-a"), "--hours", 2).returncode == 0
    standin.advance(2 * 3600)
    status = kg("status")
    assert [(r["status"], r["held_hours"]) for r in rows_of(status.json, k)] == [("complete", 0.0)], status
    assert status.json["held_gpu_hours"] == 0
    # seen ended 2 h after its push: it ran 1.5 h, as its log says (not the 2 h since the push)
    assert [(r["gpu_hours"], r["gpu_hours_from"]) for r in kg.runs()] == [(1.5, "log")]
    assert_ledger_equals_charged(kg, [k])
    assert kg("collect", k, "-p", tmp_path / "out").returncode == 0
    assert_ledger_equals_charged(kg, [k])
    assert standin.charged_h(k) == 1.5


def test_kaggle_refuses_a_push_past_a_session_started_elsewhere(kg, standin, tmp_path):
    """A GPU session kgadvise did not push (the website, another machine) fills Kaggle's batch limit: Kaggle's
    refusal is read, the push exits 1 and nothing is logged."""
    require("push")
    elsewhere = run([KAGGLE, "kernels", "push", "-p", make_kernel(tmp_path, "by-hand"), "-t", "3600"], kg.env)
    assert "successfully pushed" in elsewhere.stdout, elsewhere
    first = kg("push", make_kernel(tmp_path, "train-a"), "--hours", 1)
    assert first.returncode == 0, first
    second = kg("push", make_kernel(tmp_path, "train-b"), "--hours", 1)
    assert second.returncode == 1, second
    assert second.json["answer"]["answer"] == "batch-limit", second
    assert any(f["rule"] == "KL001" for f in second.json["findings"]), second
    assert [r["kernel"] for r in kg.runs()] == [f"{USER}/train-a"]


def test_a_re_push_replaces_the_older_reservation(kg, standin, tmp_path):
    require("push", "status", "wait")
    k = f"{USER}/train-a"
    folder = make_kernel(tmp_path, "train-a")
    standin.script(k, runtime_s=3600)
    assert kg("push", folder, "--hours", 2).returncode == 0
    standin.advance(600)
    standin.script(k, runtime_s=1200)
    again = kg("push", folder, "--hours", 1)
    assert again.returncode == 0, again
    assert any(f["rule"] == "KL011" for f in again.json["findings"]), again
    status = kg("status")
    assert [r["held_hours"] for r in rows_of(status.json, k) if r["held_hours"]] == [1.0], status
    versions = standin.state()["versions"]
    assert [v["status"] for v in versions] == ["CANCEL_ACKNOWLEDGED", "RUNNING"]
    assert versions[0]["charged_h"] == pytest.approx(600 / 3600, abs=1e-5)
    standin.advance(1200)
    assert_ledger_equals_charged(kg, [k])  # the older run until the re-push, the newer from its log


def kill_a_push_before_kaggle_answers(kg, standin, folder, hours, reaches_kaggle: bool):
    """`kgadvise push` killed (with the client it ran) while Kaggle's answer is held back."""
    standin.hold("SaveKernel", accept=reaches_kaggle)
    p = kg.popen("push", folder, "--hours", hours)
    try:
        standin.wait_held(1, timeout_s=60)
        os.killpg(p.pid, signal.SIGKILL)
    finally:
        p.wait(30)
        standin.release()


def test_a_push_killed_before_kaggle_answered_is_pending_and_keeps_its_cap(kg, standin, tmp_path):
    require("push", "status", "release")
    k = f"{USER}/train-a"
    kill_a_push_before_kaggle_answers(kg, standin, make_kernel(tmp_path, "train-a"), 3, reaches_kaggle=False)
    assert [(r["kernel"], r["status"], r["hours"]) for r in kg.runs()] == [(k, "pending", 3.0)]
    status = kg("status")
    assert status.returncode == 0, status
    assert [r["held_hours"] for r in rows_of(status.json, k)] == [3.0], status
    released = kg("release", k)
    assert released.returncode == 0, released
    assert all(r["held_hours"] == 0 for r in kg("status").json["rows"])
    assert standin.state()["versions"] == []


def test_a_killed_push_that_reached_kaggle_is_settled_by_collect(kg, standin, tmp_path):
    require("push", "collect", "log")
    k = f"{USER}/train-a"
    standin.script(k, runtime_s=1800)
    kill_a_push_before_kaggle_answers(kg, standin, make_kernel(tmp_path, "train-a"), 3, reaches_kaggle=True)
    assert [r["status"] for r in kg.runs()] == ["pending"]
    standin.advance(1800)
    collected = kg("collect", k, "-p", tmp_path / "out")
    assert collected.returncode == 0, collected
    assert_ledger_equals_charged(kg, [k])


def test_status_settles_a_pending_push_once_kaggle_ran_it(kg, standin, tmp_path):
    require("push", "status")
    k = f"{USER}/train-a"
    standin.script(k, runtime_s=1800)
    kill_a_push_before_kaggle_answers(kg, standin, make_kernel(tmp_path, "train-a"), 3, reaches_kaggle=True)
    standin.advance(1800)
    status = kg("status")
    assert [(r["status"], r["held_hours"]) for r in rows_of(status.json, k)] == [("complete", 0.0)], status
    assert_ledger_equals_charged(kg, [k])


def test_a_run_cancelled_at_its_cap(kg, standin, tmp_path):
    require("push", "wait", "status")
    k = f"{USER}/train-a"
    standin.script(k, runtime_s=3 * 3600, files={"checkpoint.pt": "epoch 5"})
    pushed = kg("push", make_kernel(tmp_path, "train-a"), "--hours", 1)
    assert pushed.returncode == 0, pushed
    cap_s = standin.requests("SaveKernel")[0]["request"]["sessionTimeoutSeconds"]
    assert cap_s == pushed.json["timeout_seconds"] == 3600
    ended = kg.wait(k, 1200, "--collect", "-p", tmp_path / "out")
    assert ended.returncode == 1 and ended.json["status"] == "cancelled", ended
    session = json.dumps(ended.json.get("session"))
    assert "KR005" in session or "cap" in session, ended  # the cap stopped it: the log ends at the cap
    assert [f["name"] for f in ended.json["files"]["files"]] == ["checkpoint.pt"], ended  # kaggle kernels files
    assert standin.charged_h(k) == 1.0
    assert_ledger_equals_charged(kg, [k])


def test_a_run_that_errors_and_a_tpu_run(kg, standin, tmp_path):
    """An error: wait exits 1 with the log's tail and Kaggle's failure message; a TPU run (its log empty until the
    end) is charged to the TPU quota; the ledger equals both charges."""
    require("push", "wait", "collect", "log")
    g, t = f"{USER}/train-a", f"{USER}/tpu-a"
    standin.script(g, runtime_s=600, outcome="error", failure_message="Your notebook hit an error.")
    standin.script(t, runtime_s=1200)
    assert kg("push", make_kernel(tmp_path, "train-a"), "--hours", 1).returncode == 0
    tpu = kg("push", make_kernel(tmp_path, "tpu-a", "tpu"), "--hours", 2, "--accelerator", "TpuV5E8")
    assert tpu.returncode == 0, tpu
    failed = kg.wait(g, 600, "--collect", "-p", tmp_path / "out-a")
    assert failed.returncode == 1 and failed.json["status"] == "error", failed
    assert "RuntimeError: scripted failure" in json.dumps(failed.json), failed
    done = kg.wait(t, 600, "--collect", "-p", tmp_path / "out-t")
    assert done.returncode == 0 and done.json["status"] == "complete", done
    assert standin.state()["quota"]["tpu"]["used_h"] == pytest.approx(1200 / 3600)
    log = assert_ledger_equals_charged(kg, [g, t])
    assert round(log["tpu_hours"], 2) == 0.33 and round(log["gpu_hours"], 2) == 0.17, log


def test_two_pushes_at_once_lose_no_record(kg, standin, tmp_path):
    require("push")
    standin.hold("SaveKernel", accept=True, times=2, answer=True)
    procs = [kg.popen("push", make_kernel(tmp_path, s), "--hours", 1) for s in ("train-a", "train-b")]
    try:
        try:
            standin.wait_held(1, timeout_s=60)  # one is inside Kaggle's push, the other waits for the lock
        finally:
            standin.release()
        outs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
    assert [p.returncode for p in procs] == [0, 0], outs
    assert sorted(r["kernel"] for r in kg.runs()) == [f"{USER}/train-a", f"{USER}/train-b"]
    assert len(standin.state()["versions"]) == 2


def test_the_client_missing(kg, tmp_path):
    require("push", "status", "wait")
    env = {k: v for k, v in kg.env.items() if k != "KGADVISE_KAGGLE"}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                  if not os.path.exists(os.path.join(p, "kaggle")))
    folder = make_kernel(tmp_path, "train-a")
    for args in (["push", folder, "--hours", 1], ["status"], ["wait", f"{USER}/train-a"]):
        r = kg(*args, env=env)
        assert r.returncode == 2, r
        assert "the Kaggle CLI is not installed: pip install kaggle" in r.stdout + r.stderr, r
    r = kg("status", "--kaggle", str(tmp_path / "no-such-kaggle"))
    assert r.returncode == 2 and "pip install kaggle" in r.stdout + r.stderr, r


def test_quota_not_live_says_why_when_the_client_is_missing(kg, standin):
    require("push")
    assert kg("quota").json["live"] is True  # the cache
    standin.advance(3600)
    env = {k: v for k, v in kg.env.items() if k != "KGADVISE_KAGGLE"}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                  if not os.path.exists(os.path.join(p, "kaggle")))
    q = kg("quota", env=env)
    assert q.returncode == 0 and q.json["live"] is False, q
    assert any(f["rule"] == "KL008" and "pip install kaggle" in f["evidence"] for f in q.json["findings"]), q


def test_quota_not_live_says_why_without_credentials(kg, standin):
    require("push")
    assert kg("quota").json["live"] is True
    standin.advance(3600)
    env = {k: v for k, v in kg.env.items() if k not in ("KAGGLE_USERNAME", "KAGGLE_KEY")}
    q = kg("quota", env=env)
    assert q.returncode == 0 and q.json["live"] is False, q
    why = " ".join(f["evidence"] for f in q.json["findings"] if f["rule"] == "KL008")
    assert "Authentication required" in why or "credentials" in why, q


def test_the_stand_in_answering_http_500(kg, standin, tmp_path):
    require("push", "status")
    k = f"{USER}/train-a"
    assert kg("push", make_kernel(tmp_path, "train-a"), "--hours", 1).returncode == 0
    standin.fail("GetKernelSessionStatus", 500, times=-1)
    status = kg("status")
    assert [r["status"] for r in rows_of(status.json, k)] == ["pushed"], status
    assert [r["held_hours"] for r in rows_of(status.json, k)] == [1.0], status
    assert any(f["rule"] == "KL007" for f in status.json["findings"]), status

    standin.call("clear", {})
    standin.advance(20 * 60)
    standin.fail("GetAcceleratorQuotaStatistics", 500, times=-1)
    before = len(standin.requests("GetAcceleratorQuotaStatistics"))
    q = kg("quota")
    assert q.json is not None and q.json["live"] is False, q
    assert any(f["rule"] == "KL008" for f in q.json["findings"]), q
    assert len(standin.requests("GetAcceleratorQuotaStatistics")) - before == 2  # tried twice
    standin.call("clear", {})
    assert_ledger_equals_charged(kg, [k])  # its status answered again: it ended 10 minutes in


def test_the_weekly_quota_running_out(kg, standin, tmp_path):
    require("push")
    standin.quota(gpu_used_h=30.0)
    r = kg("push", make_kernel(tmp_path, "train-a"), "--hours", 1)
    assert r.returncode == 1, r
    assert kg.runs() == [] and standin.requests("SaveKernel") == []  # refused before Kaggle was asked


def test_kaggle_refuses_a_push_when_the_week_ran_out_since_the_cached_reading(kg, standin, tmp_path):
    """The cache is fresh (read 5 minutes ago) but the hours went elsewhere meanwhile: Kaggle's own refusal."""
    require("push")
    standin.quota(gpu_used_h=20.0)
    assert kg("quota").returncode == 0
    standin.quota(gpu_used_h=30.0)
    standin.advance(300)
    r = kg("push", make_kernel(tmp_path, "train-a"), "--hours", 1)
    assert r.returncode == 1, r
    assert r.json["answer"]["answer"] == "weekly-quota", r
    assert any(f["rule"] == "KL003" for f in r.json["findings"]), r
    assert kg.runs() == [] and standin.state()["versions"] == []


def test_a_wait_polls_on_the_simulated_clock(kg, standin, tmp_path):
    """`wait --now` never sleeps: the polls are the stand-in's status calls, `interval` apart."""
    require("push", "wait")
    k = f"{USER}/train-a"
    standin.script(k, runtime_s=900, queue_s=300)
    assert kg("push", make_kernel(tmp_path, "train-a"), "--hours", 1).returncode == 0
    done = kg.wait(k, 300)  # a real sleep of 5 x 300 s would outrun the process limit
    assert done.returncode == 0, done
    assert [p["status"] for p in done.json["polls"]] == ["queued", "running", "running", "running", "complete"]
    assert len(standin.requests("GetKernelSessionStatus")) >= 5
    # ended 20 minutes after its push, 5 of them queued: it ran 0.25 h (its log), no --collect needed
    assert [(r["gpu_hours"], r["gpu_hours_from"]) for r in kg.runs()] == [(0.25, "log")]
    assert_ledger_equals_charged(kg, [k])


def test_a_failed_status_call_names_the_http_status(kg, standin, tmp_path):
    require("push", "status")
    assert kg("push", make_kernel(tmp_path, "train-a"), "--hours", 1).returncode == 0
    standin.fail("GetKernelSessionStatus", 500, times=-1)
    status = kg("status")
    assert any(f["rule"] == "KL007" and "500" in f["evidence"] for f in status.json["findings"]), status


def test_a_re_push_leaves_the_ledger_equal_to_what_was_charged(kg, standin, tmp_path):
    require("push", "wait", "collect", "log")
    k = f"{USER}/train-a"
    folder = make_kernel(tmp_path, "train-a")
    standin.script(k, runtime_s=3600)
    assert kg("push", folder, "--hours", 2).returncode == 0
    standin.advance(600)
    standin.script(k, runtime_s=1200)
    assert kg("push", folder, "--hours", 1).returncode == 0
    assert kg.wait(k, 300).returncode == 0
    assert kg("collect", k, "-p", tmp_path / "out").returncode == 0
    assert_ledger_equals_charged(kg, [k])


def test_the_loop_reads_past_the_outdated_client_warning(kg, standin, tmp_path):
    """Kaggle announcing a newer client makes 2.2.5 print a warning line before every answer."""
    require("push", "status")
    standin.call("api_version", {"version": "2.3.0"})
    standin.quota(gpu_used_h=4.5)
    q = kg("quota")
    assert q.returncode == 0 and q.json["live"] is True and q.json["gpu"]["used"] == 4.5, q
    pushed = kg("push", make_kernel(tmp_path, "train-a"), "--hours", 1)
    assert pushed.returncode == 0 and pushed.json["answer"] == {
        "answer": "pushed", "version": 1, "url": f"https://www.kaggle.com/code/{USER}/train-a"}, pushed
    status = kg("status")
    assert [r["status"] for r in status.json["rows"]] == ["running"], status


def test_push_dry_run_measured_and_force(kg, standin, tmp_path):
    """--dry-run asks Kaggle nothing and logs nothing; --measured sets -t by the cap factor; a shape kgadvise
    does not know is refused, and --force pushes it past that (KL009) to Kaggle's bare 400 (KL002), which is
    not logged."""
    require("push")
    folder = make_kernel(tmp_path, "train-a")
    dry = kg("push", folder, "--measured", 2.5, "--dry-run")
    assert dry.returncode == 0 and dry.json["go"] is True and dry.json["answer"] is None, dry
    assert dry.json["timeout_seconds"] == 12600, dry  # 2.5 h x the cap factor 1.4
    assert standin.requests("SaveKernel") == [] and kg.runs() == []
    pushed = kg("push", folder, "--measured", 2.5)
    assert pushed.returncode == 0 and pushed.json["logged"] == "pushed", pushed
    assert standin.requests("SaveKernel")[0]["request"]["sessionTimeoutSeconds"] == 12600

    odd = make_kernel(tmp_path, "train-b", shape="NvidiaTeslaT4Highmem")
    refused = kg("push", odd, "--hours", 1)
    assert refused.returncode == 1 and refused.json["go"] is False, refused
    assert len(standin.requests("SaveKernel")) == 1
    forced = kg("push", odd, "--hours", 1, "--force")
    rules = {f["rule"] for f in forced.json["findings"]}
    assert forced.returncode == 1 and {"KL009", "KL002"} <= rules, forced
    assert forced.json["answer"]["answer"] == "bad-request", forced
    assert [r["kernel"] for r in kg.runs()] == [f"{USER}/train-a"]


def test_a_push_waits_for_an_attached_kernel_still_running(kg, standin, tmp_path):
    """An attached kernel_source still running refuses the push (KM018) until status sees it end."""
    require("push")
    prep = f"{USER}/prep-a"
    standin.script(prep, runtime_s=3600)
    assert kg("push", make_kernel(tmp_path, "prep-a"), "--hours", 2).returncode == 0
    train = make_kernel(tmp_path, "train-a", kernel_sources=[prep])
    early = kg("push", train, "--hours", 1)
    assert early.returncode == 1 and any(f["rule"] == "KM018" for f in early.json["findings"]), early
    assert len(standin.requests("SaveKernel")) == 1
    standin.advance(3600)
    later = kg("push", train, "--hours", 1)
    assert later.returncode == 0 and later.json["logged"] == "pushed", later
    assert_ledger_equals_charged(kg, [prep])


def test_kaggle_answering_the_push_with_http_500(kg, standin, tmp_path):
    require("push")
    standin.fail("SaveKernel", 500)
    r = kg("push", make_kernel(tmp_path, "train-a"), "--hours", 1)
    assert r.returncode == 1, r
    assert any(f["rule"] == "KL006" and "500" in f["evidence"] for f in r.json["findings"]), r
    assert standin.state()["versions"] == []
    assert kg.runs() == []  # an HTTP error is Kaggle's answer: nothing was pushed, nothing is logged


def test_collect_reads_kg_run_json_from_the_outputs(kg, standin, tmp_path):
    """A kernel built by kgkit's runner saves kg_run.json: `collect USER/SLUG` answers from it and records
    the run's hours from its elapsed time."""
    require("push", "wait", "collect", "log")
    k = f"{USER}/train-a"
    with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "kernel", "KR009", "clean",
                           "kg_run.json")) as f:
        report = json.load(f)
    report["elapsed_s"] = 1795.0  # the runner starts a few seconds into the session
    standin.script(k, runtime_s=1800, files={"kg_run.json": json.dumps(report)})
    assert kg("push", make_kernel(tmp_path, "train-a"), "--hours", 1).returncode == 0
    assert kg.wait(k, 900).returncode == 0
    collected = kg("collect", k, "-p", tmp_path / "out")
    assert collected.returncode == 0, collected
    assert (tmp_path / "out" / "kg_run.json").exists()
    assert collected.json["folds_total"] == collected.json["folds_done"] == 4, collected
    assert [(r["status"], r["gpu_hours"], r["gpu_hours_from"]) for r in kg.runs()] == [
        ("collected", 0.5, "runtime")]
    assert_ledger_equals_charged(kg, [k])


def readme_loop_session() -> tuple[str, list[tuple[str, list[str], str]]]:
    """README.md's text and its console session of the loop: each `$ kgadvise ...` line, its arguments (the
    `# ...` comment left out) and the lines printed after it."""
    from conftest import ROOT

    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    section = text.index("### The loop")
    start = text.index("```console\n", section) + len("```console\n")
    block = text[start:text.index("```\n", start)]
    steps: list[tuple[str, list[str], str]] = []
    for line in block.splitlines(keepends=True):
        if line.startswith("$ kgadvise "):
            steps.append((line, line[2:].split("#")[0].split()[1:], ""))
        else:
            command, argv, printed = steps[-1]
            steps[-1] = (command, argv, printed + line)
    return text, steps


def test_the_readme_loop_session_is_what_kgadvise_prints(kg, standin, tmp_path):
    """README's loop session, run through the real client against the stand-in: every command prints exactly
    what the README shows (a kernel that runs 2.6 h, its status read an hour after the push).
    KGADVISE_RECORD=1 writes what they print into the README instead."""
    from conftest import ROOT

    require("quota", "push", "status", "wait", "collect", "log", "release")
    standin.quota(gpu_used_h=2.42)
    standin.script(f"{USER}/train", runtime_s=2.6 * 3600)
    make_kernel(tmp_path, "train")
    readme, steps = readme_loop_session()
    assert [argv[0] for _, argv, _ in steps] == ["quota", "push", "status", "wait", "collect", "log", "release"]
    session = ""
    for command, argv, shown in steps:
        if argv[0] == "status":
            standin.advance(3600)
        standin.status_step(int(argv[argv.index("--interval") + 1]) if "--interval" in argv else 0)
        try:
            r = kg(*argv, json_out=False)
        finally:
            standin.status_step(0)
        session += command + r.stdout
        if os.environ.get("KGADVISE_RECORD") != "1":
            assert r.stdout == shown, f"kgadvise {' '.join(argv)}: README shows\n{shown}\nkgadvise printed\n{r.stdout}"
    if os.environ.get("KGADVISE_RECORD") == "1":
        old = "".join(command + shown for command, _, shown in steps)
        with open(os.path.join(ROOT, "README.md"), "w") as f:
            f.write(readme.replace(old, session, 1))
