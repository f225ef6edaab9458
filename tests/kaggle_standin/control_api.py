"""The tests' control API, plain HTTP JSON on the stand-in's port under /_standin/ (control.py wraps it):

GET  /_standin/state                      the world: clock, quota, every version with its status and charge
GET  /_standin/requests                   every Kaggle call so far (method, simulated time, request, status)
POST /_standin/clock      {"set": T} | {"advance": S} | {"status_step": S} | {"follow_step": S}
POST /_standin/script     {"kernel": "u/k", "runtime_s", "outcome", "queue_s", "failure_message", "files", "log"}
                          the fate of that kernel's next push ({"kernel": "*"}: the default for any push)
POST /_standin/cancel     {"kernel": "u/k"}  its latest version is cancelled now
POST /_standin/quota      {"gpu_used_h", "gpu_total_h", "tpu_used_h", "tpu_total_h", "refresh_at"}
POST /_standin/fail       {"method": "GetKernelSessionStatus" | "*" | "download" | "logs-stream", "status": 500,
                           "times": N (-1: always)}
POST /_standin/hold       {"method": "SaveKernel", "accept": true, "times": 1, "answer": false}  its answer is
                          withheld until release, then dropped (or sent, with "answer": true)
POST /_standin/wait_held  {"count": 1, "timeout_s": 20}  blocks (real time, bounded) until that many are held
POST /_standin/release    held requests go on: dropped (their connection closed), or answered
POST /_standin/clear      forgets failure and hold rules
POST /_standin/api_version {"version": "2.3.0"}  sent as X-Kaggle-APIVersion (null: not sent), so the client
                          prints its outdated-version warning first
POST /_standin/reset      {"user", "start"}: a new world (no kernels, the default quota), no rules, no requests
"""

from __future__ import annotations

import time

from .world import DEFAULT_START, World, parse_time


def handle(server, verb: str, path: str, body: dict):
    op = path.removeprefix("/_standin/")
    fn = OPS.get((verb, op))
    if fn is None:
        return 404, {"error": f"no control operation {verb} {path}"}
    try:
        return 200, fn(server, body)
    except (KeyError, ValueError, TypeError) as e:
        return 400, {"error": f"{type(e).__name__}: {e}"}


def state(server, _body):
    with server.world.lock:
        return server.world.snapshot()


def requests(server, _body):
    with server.world.lock:
        return {"requests": list(server.requests_log)}


def clock(server, body):
    world = server.world
    with world.lock:
        if "set" in body:
            world.set_clock(body["set"])
        if "advance" in body:
            world.advance(float(body["advance"]))
        if "status_step" in body:
            world.status_step_s = float(body["status_step"])
        if "follow_step" in body:
            world.follow_step_s = float(body["follow_step"])
        return world.snapshot()


def script(server, body):
    kernel = body.pop("kernel")
    with server.world.lock:
        if kernel == "*":
            server.world.default_fate = dict(body)
        else:
            server.world.script(kernel, body)
    return {"scripted": kernel}


def cancel(server, body):
    with server.world.lock:
        v = server.world.cancel(body["kernel"])
        return v.to_json(server.world.now)


def quota(server, body):
    world = server.world
    with world.lock:
        for acc in ("gpu", "tpu"):
            if f"{acc}_total_h" in body:
                world.quota_total_s[acc] = float(body[f"{acc}_total_h"]) * 3600
            if f"{acc}_used_h" in body:
                world.quota_base_used_s[acc] = float(body[f"{acc}_used_h"]) * 3600
        if "refresh_at" in body:
            world.refresh_at = parse_time(body["refresh_at"])
        return world.snapshot()


def fail(server, body):
    rule = {"method": body["method"], "status": int(body.get("status", 500)), "times": int(body.get("times", 1))}
    server.faults.fail.append(rule)
    return rule


def hold(server, body):
    rule = {"method": body["method"], "accept": bool(body.get("accept", True)), "times": int(body.get("times", 1)),
            "answer": bool(body.get("answer", False))}
    server.faults.release.clear()
    server.faults.hold.append(rule)
    return rule


def wait_held(server, body):
    want = int(body.get("count", 1))
    deadline = time.monotonic() + float(body.get("timeout_s", 20))
    with server.world.lock:
        while len(server.faults.held) < want:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ValueError(f"{len(server.faults.held)} request(s) held, {want} awaited")
            server.world.lock.wait(left)
        return {"held": len(server.faults.held)}


def release(server, _body):
    server.faults.release.set()
    return {"released": len(server.faults.held)}


def clear(server, _body):
    server.faults.fail.clear()
    server.faults.hold.clear()
    server.faults.release.set()
    return {}


def api_version(server, body):
    server.api_version = body.get("version")
    return {"api_version": server.api_version}


def reset(server, body):
    clear(server, body)
    server.api_version = None
    world = World(body.get("user", server.world.user), body.get("start", DEFAULT_START))
    with server.world.lock:
        server.world.lock.notify_all()
        server.world = world
        server.faults.held.clear()
        server.requests_log.clear()
    return world.snapshot()


OPS = {
    ("POST", "reset"): reset,
    ("POST", "api_version"): api_version,
    ("GET", "state"): state,
    ("GET", "requests"): requests,
    ("POST", "clock"): clock,
    ("POST", "script"): script,
    ("POST", "cancel"): cancel,
    ("POST", "quota"): quota,
    ("POST", "fail"): fail,
    ("POST", "hold"): hold,
    ("POST", "wait_held"): wait_held,
    ("POST", "release"): release,
    ("POST", "clear"): clear,
}
