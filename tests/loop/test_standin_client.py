"""The stand-in against the unmodified official client alone (kaggle 2.2.5): every call kgadvise's loop makes,
with the exact texts the client printed kept as fixtures in tests/fixtures/kaggle-client/ (README.md there)."""

from __future__ import annotations

import http.client
import json
import os
import subprocess

import pytest
from conftest import KAGGLE, USER, check_ran, make_kernel, run

from kaggle_standin.control import Standin, StandinError

K1 = f"{USER}/train-one"


def test_quota_json_table_and_csv(standin, kaggle):
    standin.quota(gpu_used_h=2.42)
    j = kaggle("quota", "--format", "json")
    assert j.returncode == 0, j
    rows = json.loads(j.stdout)
    assert rows[0] == {"resource": "GPU", "used": "2.42h", "remaining": "27.58h", "total": "30.00h",
                       "refreshAt": "2026-12-12T00:00:00+00:00"}
    assert rows[1]["resource"] == "TPU" and rows[1]["total"] == "20.00h"
    check_ran("quota-json", j)
    check_ran("quota-table", kaggle("quota"))
    csv = kaggle("quota", "-v")
    assert csv.stdout.startswith("resource,used,remaining,total,refreshAt\r\n"), csv
    check_ran("quota-csv", csv)


def test_quota_over_the_weekly_limit_shows_none_remaining(standin, kaggle):
    standin.quota(gpu_used_h=31.5)
    rows = json.loads(kaggle("quota", "--format", "json").stdout)
    assert rows[0]["used"] == "31.50h" and rows[0]["remaining"] == "0.00h"


def test_push_status_output_logs_and_the_hours_charged(standin, kaggle, tmp_path):
    folder = make_kernel(tmp_path, "train-one")
    standin.script(K1, runtime_s=1800, files={"model.pt": "weights", "submission.csv": "id,target\n1,0.5\n"})
    push = kaggle("kernels", "push", "-p", folder, "-t", "3600")
    assert push.returncode == 0, push
    assert push.stdout == ("Kernel version 1 successfully pushed.  Please check progress at "
                           f"https://www.kaggle.com/code/{K1}\n")
    check_ran("push-success", push)
    sent = standin.requests("SaveKernel")[0]["request"]
    assert sent["sessionTimeoutSeconds"] == 3600 and sent["enableGpu"] is True and sent["slug"] == K1

    running = kaggle("kernels", "status", K1)
    assert running.stdout == f'{K1} has status "KernelWorkerStatus.RUNNING"\n', running
    check_ran("status-running", running)
    none_yet = kaggle("kernels", "files", K1, "--format", "json")
    assert none_yet.returncode == 0 and none_yet.stdout == "[]\n", none_yet
    check_ran("files-none", none_yet)
    standin.advance(900)
    partial = kaggle("kernels", "logs", K1)
    assert partial.stdout.startswith('[{"stream_name":"stdout","time":60.0,'), partial
    standin.advance(900)
    done = kaggle("kernels", "status", K1)
    assert done.stdout == f'{K1} has status "KernelWorkerStatus.COMPLETE"\n', done
    check_ran("status-complete", done)

    out = tmp_path / "out"
    got = kaggle("kernels", "output", K1, "-p", str(out))
    assert got.returncode == 0, got
    assert sorted(os.listdir(out)) == ["model.pt", "submission.csv", "train-one.log"]
    assert (out / "model.pt").read_text() == "weights"
    check_ran("output", got, {str(out): "<DIR>"}, stderr=False)  # stderr: tqdm's progress bars

    files = kaggle("kernels", "files", K1, "--format", "json")
    assert [(f["name"], f["size"]) for f in json.loads(files.stdout)] == [("model.pt", 7), ("submission.csv", 16)]
    check_ran("files-json", files)
    paged = kaggle("kernels", "files", K1, "--format", "json", "--page-size", "1")
    assert paged.stdout.startswith("Next Page Token = 1\n["), paged
    check_ran("files-paged", paged)

    logs = kaggle("kernels", "logs", K1)
    events = json.loads(logs.stdout)
    assert events[-1] == {"stream_name": "stdout", "time": 1799.5, "data": "done\n"}
    assert logs.stdout.rstrip("\n") == (out / "train-one.log").read_text()
    check_ran("logs-complete", logs)

    assert standin.charged_h(K1) == pytest.approx(0.5)
    rows = json.loads(kaggle("quota", "--format", "json").stdout)
    assert rows[0]["used"] == "0.50h"


def test_queued_running_then_the_status_step(standin, kaggle, tmp_path):
    standin.script(K1, runtime_s=600, queue_s=120)
    kaggle("kernels", "push", "-p", make_kernel(tmp_path, "train-one"), "-t", "3600")
    queued = kaggle("kernels", "status", K1)
    check_ran("status-queued", queued)
    standin.status_step(60)  # each status call answers, then moves the clock on a minute
    seen = [kaggle("kernels", "status", K1).stdout for _ in range(4)]
    assert [s.split('"')[1] for s in seen] == ["KernelWorkerStatus.QUEUED", "KernelWorkerStatus.QUEUED",
                                               "KernelWorkerStatus.RUNNING", "KernelWorkerStatus.RUNNING"]
    assert standin.state()["now"] == "2026-12-07T08:04:00Z"
    assert standin.charged_h(K1) == pytest.approx(120 / 3600)


def test_batch_limits_gpu_two_tpu_one(standin, kaggle, tmp_path):
    for slug in ("gpu-a", "gpu-b"):
        r = kaggle("kernels", "push", "-p", make_kernel(tmp_path, slug), "-t", "3600")
        assert "successfully pushed" in r.stdout, r
    third = kaggle("kernels", "push", "-p", make_kernel(tmp_path, "gpu-c"), "-t", "3600")
    assert third.returncode == 0, third  # Kaggle's refusal, and the client exits 0 on it
    assert third.stdout == "Kernel push error: Maximum batch GPU session count of 2 reached.\n"
    check_ran("push-batch-gpu", third)
    assert [v["kernel"] for v in standin.state()["versions"]] == [f"{USER}/gpu-a", f"{USER}/gpu-b"]

    tpu = kaggle("kernels", "push", "-p", make_kernel(tmp_path, "tpu-a", "tpu"), "-t", "3600")
    assert "successfully pushed" in tpu.stdout, tpu
    second_tpu = kaggle("kernels", "push", "-p", make_kernel(tmp_path, "tpu-b", "tpu"), "-t", "3600")
    assert second_tpu.stdout == "Kernel push error: Maximum batch TPU session count of 1 reached.\n"
    check_ran("push-batch-tpu", second_tpu)
    cpu = kaggle("kernels", "push", "-p", make_kernel(tmp_path, "cpu-a", None))
    assert "successfully pushed" in cpu.stdout, cpu

    standin.advance(600)  # the default fate: 10 minutes, complete; the slots are free again
    again = kaggle("kernels", "push", "-p", make_kernel(tmp_path, "gpu-c"), "-t", "3600")
    assert "successfully pushed" in again.stdout, again


def test_run_stopped_by_its_cap_is_charged_the_cap(standin, kaggle, tmp_path):
    standin.script(K1, runtime_s=7200, files={"checkpoint.pt": "half"})
    kaggle("kernels", "push", "-p", make_kernel(tmp_path, "train-one"), "-t", "3600")
    standin.advance(5000)
    cancelled = kaggle("kernels", "status", K1)
    assert cancelled.stdout == f'{K1} has status "KernelWorkerStatus.CANCEL_ACKNOWLEDGED"\n', cancelled
    check_ran("status-cancelled", cancelled)
    assert standin.charged_h(K1) == pytest.approx(1.0)
    logs = kaggle("kernels", "logs", K1)
    assert json.loads(logs.stdout)[-1]["time"] == 3599.5  # the log ends at the cap
    check_ran("logs-cancelled-at-cap", logs)
    got = kaggle("kernels", "output", K1, "-p", str(tmp_path / "out"))
    assert sorted(os.listdir(tmp_path / "out")) == ["checkpoint.pt", "train-one.log"], got


def test_cancel_and_error_with_a_failure_message(standin, kaggle, tmp_path):
    standin.script(K1, runtime_s=3000)
    kaggle("kernels", "push", "-p", make_kernel(tmp_path, "train-one"), "-t", "3600")
    standin.advance(1200)
    standin.cancel(K1)
    standin.advance(60)
    assert "CANCEL_ACKNOWLEDGED" in kaggle("kernels", "status", K1).stdout
    assert standin.charged_h(K1) == pytest.approx(1200 / 3600)

    standin.script(K1, runtime_s=300, outcome="error", failure_message="Your notebook tried to allocate more "
                   "memory than is available. It has restarted.")
    second = kaggle("kernels", "push", "-p", make_kernel(tmp_path, "train-one"), "-t", "3600")
    assert second.stdout.startswith("Kernel version 2 successfully pushed."), second
    check_ran("push-version-2", second)
    standin.advance(300)
    error = kaggle("kernels", "status", K1)
    assert error.stdout == (f'{K1} has status "KernelWorkerStatus.ERROR"\n'
                            'Failure message: "Your notebook tried to allocate more memory than is available. '
                            'It has restarted."\n'), error
    check_ran("status-error", error)
    first = kaggle("kernels", "status", f"{K1}/1")
    assert "CANCEL_ACKNOWLEDGED" in first.stdout, first
    assert json.loads(kaggle("kernels", "logs", K1).stdout)[-1]["stream_name"] == "stderr"


def test_bare_400_for_a_big_source_and_an_unknown_shape(standin, kaggle, tmp_path):
    big = make_kernel(tmp_path, "big-one", source="x = 1\n" + "#" * 1_000_000 + "\n")
    r = kaggle("kernels", "push", "-p", big, "-t", "3600")
    assert r.returncode == 1, r
    assert r.stderr.startswith("400 Client Error: Bad Request for url: "
                               "https://api.kaggle.com/v1/kernels.KernelsApiService/SaveKernel"), r
    check_ran("push-bare-400-source", r)
    shape = make_kernel(tmp_path, "shape-one", shape="NvidiaTeslaT4Highmem")
    r = kaggle("kernels", "push", "-p", shape, "-t", "3600")
    assert r.returncode == 1 and r.stderr.startswith("400 Client Error: Bad Request"), r
    check_ran("push-bare-400-shape", r)
    ok = kaggle("kernels", "push", "-p", shape, "-t", "3600", "--accelerator", "NvidiaTeslaP100")
    assert "successfully pushed" in ok.stdout, ok
    assert standin.state()["versions"][0]["shape"] == "NvidiaTeslaT4"  # a P100 lands on a T4
    assert len(standin.state()["versions"]) == 1


def test_weekly_quota_reached(standin, kaggle, tmp_path):
    standin.quota(gpu_used_h=29.5)
    standin.script(f"{USER}/long-one", runtime_s=3600)
    kaggle("kernels", "push", "-p", make_kernel(tmp_path, "long-one"), "-t", "7200")
    standin.advance(3600)
    r = kaggle("kernels", "push", "-p", make_kernel(tmp_path, "train-one"), "-t", "3600")
    assert r.returncode == 0 and r.stdout == "Kernel push error: Maximum weekly GPU quota of 30.00 hours reached.\n"
    check_ran("push-weekly-quota", r)
    rows = json.loads(kaggle("quota", "--format", "json").stdout)
    assert rows[0]["used"] == "30.50h" and rows[0]["remaining"] == "0.00h"


def test_http_500_on_demand(standin, kaggle, tmp_path):
    kaggle("kernels", "push", "-p", make_kernel(tmp_path, "train-one"), "-t", "3600")
    standin.fail("GetKernelSessionStatus", 500, times=1)
    r = kaggle("kernels", "status", K1)
    assert r.returncode == 1, r
    assert r.stderr.startswith("500 Server Error: Internal Server Error for url: "
                               "https://api.kaggle.com/v1/kernels.KernelsApiService/GetKernelSessionStatus\n"), r
    check_ran("status-500", r)
    assert "RUNNING" in kaggle("kernels", "status", K1).stdout  # only once
    standin.fail("GetAcceleratorQuotaStatistics", 500, times=-1)
    for _ in range(2):
        assert kaggle("quota", "--format", "json").returncode == 1


def test_unknown_kernel_is_404(kaggle):
    r = kaggle("kernels", "status", f"{USER}/no-such-kernel")
    assert r.returncode == 1 and r.stderr.startswith("404 Client Error: Not Found for url: "), r
    check_ran("status-404", r)


def test_logs_follow_streams_a_running_session(standin, kaggle, tmp_path):
    standin.script(K1, runtime_s=600, log=[[1.0, "stdout", "epoch 1\n"], [300.0, "stdout", "epoch 2\n"]])
    kaggle("kernels", "push", "-p", make_kernel(tmp_path, "train-one"), "-t", "3600")
    standin.call("clock", {"follow_step": 30})
    r = kaggle("kernels", "logs", K1, "--follow")
    assert r.returncode == 0, r
    assert r.stdout.splitlines()[0] == "epoch 1" and r.stdout.splitlines()[-1] == "done", r
    assert "RUNNING" not in kaggle("kernels", "status", K1).stdout
    check_ran("logs-follow", r)
    after = kaggle("kernels", "logs", K1, "--follow")  # a finished session: the blob, line by line
    assert after.stdout == r.stdout


def test_credentials_from_a_kaggle_json_or_none(standin, tmp_path):
    env = standin.client_env(credentials="file", home=str(tmp_path / "home"))
    env["PATH"] = os.path.dirname(KAGGLE) + os.pathsep + env["PATH"]
    assert run([KAGGLE, "quota", "--format", "json"], env).returncode == 0
    os.remove(os.path.join(env["KAGGLE_CONFIG_DIR"], "kaggle.json"))
    r = run([KAGGLE, "quota"], env)
    assert r.returncode == 1 and r.stdout.startswith("Authentication required to call the Kaggle API."), r
    check_ran("auth-required", r)


def test_a_push_whose_answer_never_arrives_still_made_a_version(standin, client_env, tmp_path):
    standin.hold("SaveKernel", accept=True)
    p = subprocess.Popen([KAGGLE, "kernels", "push", "-p", make_kernel(tmp_path, "train-one"), "-t", "3600"],
                         env=client_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        standin.wait_held(1)
        p.kill()
    finally:
        p.wait(30)
    standin.release()
    versions = standin.state()["versions"]
    assert [(v["kernel"], v["version"], v["status"]) for v in versions] == [(K1, 1, "RUNNING")]


def test_the_proxy_refuses_any_other_host(standin):
    conn = http.client.HTTPConnection("127.0.0.1", standin.port, timeout=10)
    conn.request("CONNECT", "example.com:443")
    assert conn.getresponse().status == 403


def test_a_stand_in_that_cannot_start_fails_clearly(tmp_path):
    with pytest.raises(StandinError, match="exited .* before it answered"):
        Standin(str(tmp_path / "bad"), start="not a time")


def test_kernels_list_mine_shows_the_last_run(standin, kaggle, tmp_path):
    kaggle("kernels", "push", "-p", make_kernel(tmp_path, "train-one"), "-t", "3600")
    standin.advance(3600)
    kaggle("kernels", "push", "-p", make_kernel(tmp_path, "train-two"), "-t", "3600")
    mine = kaggle("kernels", "list", "--mine")
    assert mine.returncode == 0, mine
    lines = mine.stdout.splitlines()
    assert lines[2].split()[0] == f"{USER}/train-two" and lines[3].split()[0] == K1, mine
    assert "2026-12-07 09:00:00" in lines[2], mine
    check_ran("kernels-list-mine", mine)
    listed = json.loads(kaggle("kernels", "list", "--user", USER, "--format", "json").stdout)
    assert [k["ref"] for k in listed] == [f"{USER}/train-two", K1]


def test_an_outdated_client_is_warned_first(standin, kaggle, tmp_path):
    standin.call("api_version", {"version": "2.3.0"})
    standin.quota(gpu_used_h=2.42)
    q = kaggle("quota", "--format", "json")
    assert q.returncode == 0, q
    warning = ("Warning: Looks like you're using an outdated `kaggle` version (installed: 2.2.5), please consider "
               "upgrading to the latest version (2.3.0)\n")
    assert q.stdout.startswith(warning), q
    check_ran("quota-json-outdated-warning", q)
    push = kaggle("kernels", "push", "-p", make_kernel(tmp_path, "train-one"), "-t", "3600")
    assert push.stdout.startswith(warning) and "successfully pushed" in push.stdout, push
    check_ran("push-success-outdated-warning", push)
    assert kaggle("-W", "kernels", "status", K1).stdout == f'{K1} has status "KernelWorkerStatus.RUNNING"\n'
