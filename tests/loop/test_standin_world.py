"""The stand-in's world alone (no client, no network): the model the loop tests rely on."""

from __future__ import annotations

import pytest

from kaggle_standin.world import BareBadRequest, World, kaggle_log_text, parse_time


def world_with(*fates, start="2026-12-07T08:00:00Z"):
    w = World("me", start)
    for kernel, fate in fates:
        w.script(kernel, fate)
    return w


def test_a_run_is_charged_as_it_runs_and_a_capped_one_the_cap():
    w = world_with(("me/a", {"runtime_s": 1800, "queue_s": 60}), ("me/b", {"runtime_s": 9000}))
    a, _ = w.push("me/a", "x", None, True, False, 3600)
    b, _ = w.push("me/b", "x", None, True, False, 3600)
    assert (a.status(w.now), b.status(w.now)) == ("QUEUED", "RUNNING")
    w.advance(960)
    assert a.charged_s(w.now) == 900 and w.used_s("gpu") == 1860
    assert w.reserved_s("gpu") == (3600 - 900) + (3600 - 960)
    w.advance(10_000)
    assert (a.status(w.now), b.status(w.now)) == ("COMPLETE", "CANCEL_ACKNOWLEDGED")
    assert (a.charged_s(w.now), b.charged_s(w.now)) == (1800, 3600)
    assert w.reserved_s("gpu") == 0


def test_refusals_batch_limits_weekly_quota_and_bare_400():
    w = world_with()
    assert w.push("me/a", "x", "NvidiaTeslaT4", False, False, 3600)[1] is None
    assert w.push("me/b", "x", None, True, False, None)[0].cap_s == 12 * 3600
    assert w.push("me/c", "x", None, True, False, 3600) == (None, "Maximum batch GPU session count of 2 reached.")
    assert w.push("me/t", "x", "TpuV38", False, False, 3600)[0].shape == "TpuV5E8"
    assert w.push("me/u", "x", None, False, True, 3600)[1] == "Maximum batch TPU session count of 1 reached."
    with pytest.raises(BareBadRequest):
        w.push("me/d", "x", "NvidiaTeslaT4Highmem", True, False, 3600)
    with pytest.raises(BareBadRequest):
        w.push("me/e", "#" * 1_000_000, None, True, False, 3600)
    w.quota_base_used_s["gpu"] = 30 * 3600
    assert w.push("me/a", "x", None, True, False, 3600)[1] == "Maximum weekly GPU quota of 30.00 hours reached."


def test_a_new_version_ends_the_session_in_flight_and_cancel():
    w = world_with(("me/a", {"runtime_s": 3600}))
    v1, _ = w.push("me/a", "x", None, True, False, 7200)
    w.advance(600)
    v2, _ = w.push("me/a", "x", None, True, False, 7200)  # not refused by the kernel's own session
    assert (v1.status(w.now), v1.charged_s(w.now), v2.number) == ("CANCEL_ACKNOWLEDGED", 600, 2)
    w.advance(100)
    w.cancel("me/a")
    w.advance(100)
    assert (v2.status(w.now), v2.charged_s(w.now)) == ("CANCEL_ACKNOWLEDGED", 100)


def test_the_log_is_kaggles_blob_and_ends_at_the_cap():
    w = world_with(("me/a", {"runtime_s": 7200, "log": [[1.5, "stdout", "epoch 1\n"]]}))
    v, _ = w.push("me/a", "x", None, True, False, 3600)
    w.advance(7200)
    events = v.log_events(w.now)
    assert events[0] == {"stream_name": "stdout", "time": 1.5, "data": "epoch 1\n"}
    assert events[-1]["time"] == 3599.5
    text = kaggle_log_text(events[:2])
    assert text == ('[{"stream_name":"stdout","time":1.5,"data":"epoch 1\\n"}\n'
                    ',{"stream_name":"stdout","time":72.0,"data":"progress: 72s elapsed\\n"}\n]')


def test_times_and_the_weekly_reset():
    w = World("me", "2026-12-07T08:00:00")
    assert w.now == parse_time("2026-12-07T08:00:00Z")
    assert w.snapshot()["refresh_at"] == "2026-12-12T00:00:00Z"
    assert World("me", "2026-12-12T00:00:00Z").snapshot()["refresh_at"] == "2026-12-19T00:00:00Z"


def test_outputs_appear_at_the_end_and_a_tpu_log_only_then():
    from kaggle_standin import wire

    w = world_with(("me/g", {"runtime_s": 600}), ("me/t", {"runtime_s": 600}))
    g, _ = w.push("me/g", "x", None, True, False, 3600)
    t, _ = w.push("me/t", "x", "TpuV5E8", False, False, 3600)
    w.advance(300)
    assert "files" not in wire.session_output(w, g) and "log" in wire.session_output(w, g)
    assert wire.session_output(w, t) == {}
    w.advance(300)
    done = wire.session_output(w, t)
    assert done["files"][0]["fileName"] == "submission.csv" and done["log"].endswith("\n]")
