"""The simulated Kaggle account behind the stand-in: kernels, their versions and the weekly quota, on a
simulated clock that only the tests move.

A version is QUEUED for `queue_s` after its push, then RUNNING for `min(runtime_s, cap_s)`, then COMPLETE or
ERROR (its scripted outcome), or CANCEL_ACKNOWLEDGED when the `-t` cap (or a cancel) stopped it first. A GPU or
TPU version is charged the seconds it has run so far, so a run stopped by its cap is charged the cap. The
texts it answers with are Kaggle's (tests/fixtures/realdata/kaggle-cli, formats.md §6-§7).

Assumptions where no capture says how Kaggle behaves: a new version of a kernel ends that kernel's session
still queued or running (CANCEL_ACKNOWLEDGED, charged what it ran), so a kernel holds one session at a time,
as kgkit's ledger supposes (a re-push replaces the older reservation); a running GPU session's log is served
as it grows (a TPU's only at the end); the week's quota does not reset on the simulated clock; the weekly-quota
refusal is checked before the batch limit.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

# What Kaggle stores for each shape it takes (rules/hardware.toml: the P100 lands on a T4, retired and
# alias TPUs on a v5e-8). Any other shape is refused with a bare 400.
GPU_SHAPES = {"NvidiaTeslaT4": "NvidiaTeslaT4", "NvidiaTeslaP100": "NvidiaTeslaT4"}
TPU_SHAPES = {
    "TpuV5E8": "TpuV5E8",
    "TpuV6E8": "TpuV6E8",
    "TpuV5E1": "TpuV5E8",
    "TpuV5E4": "TpuV5E8",
    "TpuV6E1": "TpuV5E8",
    "TpuV38": "TpuV5E8",
    "Tpu1VmV38": "TpuV5E8",
}
SESSION_LIMIT_S = {"gpu": 12 * 3600, "tpu": 9 * 3600, "cpu": 12 * 3600}
BATCH_LIMIT = {"gpu": 2, "tpu": 1, "cpu": 5}
SOURCE_LIMIT_BYTES = 1_000_000
DEFAULT_RUNTIME_S = 600.0
DEFAULT_START = "2026-12-07T08:00:00Z"  # a Monday; the week's quota resets Saturday 00:00 UTC

ACTIVE = ("QUEUED", "RUNNING")


class BareBadRequest(Exception):
    """Kaggle's answer to a shape it does not take or a source of 1 MB or more: HTTP 400, no message."""


class NotFound(Exception):
    """No such kernel (or version): HTTP 404."""


def parse_time(text: str) -> float:
    """ISO-8601 (a missing zone is UTC) or epoch seconds, as epoch seconds."""
    if isinstance(text, (int, float)):
        return float(text)
    t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    return t.timestamp()


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def next_saturday(epoch: float) -> float:
    day = datetime.fromtimestamp(epoch, timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
    ahead = (5 - day.weekday()) % 7 or 7
    return (day + timedelta(days=ahead)).timestamp()


@dataclass
class Fate:
    """What a pushed version will do: scripted by a test, or the default (runs 10 min, completes)."""

    runtime_s: float = DEFAULT_RUNTIME_S
    outcome: str = "complete"  # complete | error
    queue_s: float = 0.0
    failure_message: str | None = None
    files: dict = field(default_factory=lambda: {"submission.csv": "id,target\n1,0.5\n"})
    log: list = field(default_factory=list)  # [[seconds after start, stream, text], ...]

    @classmethod
    def from_json(cls, d: dict) -> "Fate":
        known = {k: d[k] for k in ("runtime_s", "outcome", "queue_s", "failure_message", "files", "log") if k in d}
        fate = cls(**known)
        if fate.outcome not in ("complete", "error"):
            raise ValueError(f"outcome must be complete or error, got {fate.outcome!r}")
        return fate


@dataclass
class Version:
    kernel: str
    number: int
    kernel_id: int
    accelerator: str  # gpu | tpu | cpu
    shape: str | None
    pushed_at: float
    cap_s: float
    fate: Fate
    cancelled_at: float | None = None

    @property
    def started_at(self) -> float:
        return self.pushed_at + self.fate.queue_s

    @property
    def natural_end(self) -> float:
        return self.started_at + min(self.fate.runtime_s, self.cap_s)

    @property
    def ended_at(self) -> float:
        if self.cancelled_at is not None and self.cancelled_at < self.natural_end:
            return max(self.cancelled_at, self.pushed_at)
        return self.natural_end

    @property
    def stopped_by_cap(self) -> bool:
        return self.cancelled_at is None and self.fate.runtime_s >= self.cap_s

    def status(self, now: float) -> str:
        if now >= self.ended_at and (self.cancelled_at is not None and self.cancelled_at < self.natural_end):
            return "CANCEL_ACKNOWLEDGED"
        if now < self.started_at:
            return "QUEUED"
        if now < self.ended_at:
            return "RUNNING"
        if self.stopped_by_cap:
            return "CANCEL_ACKNOWLEDGED"
        return "COMPLETE" if self.fate.outcome == "complete" else "ERROR"

    def charged_s(self, now: float) -> float:
        if self.accelerator == "cpu":
            return 0.0
        return max(0.0, min(now, self.ended_at) - self.started_at)

    def log_events(self, now: float) -> list[dict]:
        """The session's log up to `now`, as Kaggle's {stream_name, time, data} events: the scripted lines,
        progress lines every so often, and a last line just before the end (the cap, when it stopped it)."""
        span = self.ended_at - self.started_at
        if span <= 0:
            return []
        lines = [(float(t), s, d) for t, s, d in self.fate.log]
        step = max(60.0, span / 50)
        t = step
        while t < span - 1:
            lines.append((t, "stdout", f"progress: {t:.0f}s elapsed\n"))
            t += step
        if self.status(self.ended_at) == "COMPLETE":
            last = "done\n"
        elif self.status(self.ended_at) == "ERROR":
            last = "Traceback (most recent call last):\nRuntimeError: scripted failure\n"
        else:
            last = f"progress: {span - 0.5:.1f}s elapsed\n"
        lines.append((span - 0.5, "stderr" if "Traceback" in last else "stdout", last))
        lines.sort(key=lambda x: x[0])
        elapsed = now - self.started_at
        return [{"stream_name": s, "time": t, "data": d} for t, s, d in lines if t <= elapsed]

    def to_json(self, now: float) -> dict:
        return {
            "kernel": self.kernel,
            "version": self.number,
            "accelerator": self.accelerator,
            "shape": self.shape,
            "pushed_at": iso(self.pushed_at),
            "started_at": iso(self.started_at),
            "ended_at": iso(self.ended_at),
            "cap_s": self.cap_s,
            "status": self.status(now),
            "stopped_by_cap": self.stopped_by_cap and now >= self.ended_at,
            "charged_s": self.charged_s(now),
            "charged_h": round(self.charged_s(now) / 3600, 6),
        }


def kaggle_log_text(events: list[dict]) -> str:
    """Kaggle's log blob: a JSON array with one event per line, each after the first led by a comma."""
    if not events:
        return ""
    return "[" + "\n,".join(json.dumps(e, separators=(",", ":")) for e in events) + "\n]"


class World:
    """All of the account's state, behind one lock (the HTTP threads and the control API share it)."""

    def __init__(self, user: str = "standin-user", start: str = DEFAULT_START):
        self.lock = threading.Condition()
        self.user = user
        self.now = parse_time(start)
        self.refresh_at = next_saturday(self.now)
        self.quota_total_s = {"gpu": 30 * 3600.0, "tpu": 20 * 3600.0}
        self.quota_base_used_s = {"gpu": 0.0, "tpu": 0.0}
        self.status_step_s = 0.0
        self.follow_step_s = 0.0
        self.versions: list[Version] = []
        self.kernel_ids: dict[str, int] = {}
        self.scripts: dict[str, list[Fate]] = {}
        self.default_fate: dict = {}

    # --- the clock -------------------------------------------------------------------------------------
    def advance(self, seconds: float) -> None:
        with self.lock:  # re-entrant: the HTTP threads call it holding the lock already
            self.now += float(seconds)
            self.lock.notify_all()

    def set_clock(self, when) -> None:
        with self.lock:
            self.now = parse_time(when)
            self.lock.notify_all()

    # --- what it charged -------------------------------------------------------------------------------
    def used_s(self, acc: str) -> float:
        return self.quota_base_used_s[acc] + sum(v.charged_s(self.now) for v in self.versions if v.accelerator == acc)

    def reserved_s(self, acc: str) -> float:
        return sum(
            v.cap_s - v.charged_s(self.now)
            for v in self.versions
            if v.accelerator == acc and v.status(self.now) in ACTIVE
        )

    def active(self, acc: str) -> list[Version]:
        return [v for v in self.versions if v.accelerator == acc and v.status(self.now) in ACTIVE]

    # --- kernels ---------------------------------------------------------------------------------------
    def latest(self, kernel: str, label: str | None = None) -> Version:
        versions = [v for v in self.versions if v.kernel == kernel]
        if label:
            number = int(label.lstrip("v"))
            versions = [v for v in versions if v.number == number]
        if not versions:
            raise NotFound(kernel)
        return versions[-1]

    def script(self, kernel: str, fate: dict) -> None:
        self.scripts.setdefault(kernel, []).append(Fate.from_json(fate))

    def next_fate(self, kernel: str) -> Fate:
        queue = self.scripts.get(kernel)
        if queue:
            return queue.pop(0)
        return Fate.from_json(self.default_fate)

    def cancel(self, kernel: str) -> Version:
        v = self.latest(kernel)
        if v.status(self.now) not in ACTIVE:
            raise ValueError(f"{kernel} v{v.number} is {v.status(self.now)}, not queued or running")
        v.cancelled_at = self.now
        return v

    def push(self, slug: str, text: str, shape: str | None, enable_gpu: bool, enable_tpu: bool, timeout_s):
        """SaveKernel: the new version, or the error text Kaggle answers with (HTTP 200, `error`)."""
        if len((text or "").encode("utf-8")) >= SOURCE_LIMIT_BYTES:
            raise BareBadRequest("source of 1 MB or more")
        accelerator, stored = self.accelerator_of(shape, enable_gpu, enable_tpu)
        refusal = self.refusal(accelerator, slug)
        if refusal:
            return None, refusal
        for older in self.versions:
            if older.kernel == slug and older.status(self.now) in ACTIVE:
                older.cancelled_at = self.now  # a new version replaces the session still queued or running
        if slug not in self.kernel_ids:
            self.kernel_ids[slug] = 40_000_000 + len(self.kernel_ids) + 1
        number = 1 + sum(1 for v in self.versions if v.kernel == slug)
        limit = SESSION_LIMIT_S[accelerator]
        cap = min(float(timeout_s), limit) if timeout_s else float(limit)
        version = Version(slug, number, self.kernel_ids[slug], accelerator, stored, self.now, cap, self.next_fate(slug))
        self.versions.append(version)
        return version, None

    @staticmethod
    def accelerator_of(shape: str | None, enable_gpu: bool, enable_tpu: bool):
        if shape:
            if shape in GPU_SHAPES:
                return "gpu", GPU_SHAPES[shape]
            if shape in TPU_SHAPES:
                return "tpu", TPU_SHAPES[shape]
            raise BareBadRequest(f"machine shape {shape}")
        if enable_tpu:
            return "tpu", "TpuV5E8"
        if enable_gpu:
            return "gpu", "NvidiaTeslaT4"
        return "cpu", None

    def refusal(self, accelerator: str, slug: str) -> str | None:
        name = accelerator.upper()
        if accelerator in self.quota_total_s and self.used_s(accelerator) >= self.quota_total_s[accelerator]:
            return f"Maximum weekly {name} quota of {self.quota_total_s[accelerator] / 3600:.2f} hours reached."
        if len([v for v in self.active(accelerator) if v.kernel != slug]) >= BATCH_LIMIT[accelerator]:
            return f"Maximum batch {name} session count of {BATCH_LIMIT[accelerator]} reached."
        return None

    # --- the test's view -------------------------------------------------------------------------------
    def snapshot(self) -> dict:
        charged = {}
        for v in self.versions:
            charged.setdefault(v.kernel, 0.0)
            charged[v.kernel] += v.charged_s(self.now)
        return {
            "user": self.user,
            "now": iso(self.now),
            "now_epoch": self.now,
            "refresh_at": iso(self.refresh_at),
            "status_step_s": self.status_step_s,
            "quota": {
                acc: {
                    "total_h": self.quota_total_s[acc] / 3600,
                    "used_h": self.used_s(acc) / 3600,
                    "reserved_h": self.reserved_s(acc) / 3600,
                    "active": len(self.active(acc)),
                }
                for acc in ("gpu", "tpu")
            },
            "charged_h": {k: s / 3600 for k, s in charged.items()},
            "versions": [v.to_json(self.now) for v in self.versions],
        }
