"""Kaggle's messages, built from kagglesdk's own types (the package the official client parses them with) and
written as the server writes them: proto3 JSON, default values left out, durations as "<seconds>[.frac]s",
times as "...Z". kagglesdk's own to_dict is not used for durations: it drops whole days (timedelta.seconds)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from kagglesdk.kaggle_object import KaggleObject, KaggleObjectSerializer
from kagglesdk.kernels.types.kernels_api_service import (
    ApiAcceleratorQuota,
    ApiKernelMetadata,
    ApiListKernelsResponse,
    ApiGetAcceleratorQuotaStatisticsResponse,
    ApiGetKernelSessionStatusResponse,
    ApiKernelSessionOutputFile,
    ApiListKernelFilesItem,
    ApiListKernelFilesResponse,
    ApiListKernelSessionOutputResponse,
    ApiSaveKernelResponse,
)
from kagglesdk.kernels.types.kernels_enums import KernelWorkerStatus

from .world import Version, World, iso, kaggle_log_text

FILE_HOST = "https://www.kaggleusercontent.com"


def duration_text(delta: timedelta) -> str:
    seconds = delta.total_seconds()
    if seconds == int(seconds):
        return f"{int(seconds)}s"
    return f"{seconds:.3f}s"


def to_wire(obj: KaggleObject) -> dict:
    out = {}
    for f in obj._fields:
        value = getattr(obj, f.private_field_name)
        if value is None or (not f.optional and value == f.default_value) or value == []:
            continue
        if isinstance(value, timedelta):
            out[f.json_name] = duration_text(value)
        elif isinstance(value, datetime):
            out[f.json_name] = value.strftime("%Y-%m-%dT%H:%M:%SZ")
        elif isinstance(f.serializer, KaggleObjectSerializer):
            out[f.json_name] = to_wire(value)
        elif isinstance(value, list):
            out[f.json_name] = [to_wire(x) if isinstance(x, KaggleObject) else x for x in value]
        else:
            out[f.json_name] = f.serializer.to_dict_value(f.field_type, value, True)
    return out


def _utc_naive(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, timezone.utc).replace(tzinfo=None)


def quota(world: World) -> dict:
    r = ApiGetAcceleratorQuotaStatisticsResponse()
    r.quota_refresh_time = _utc_naive(world.refresh_at)
    for acc in ("gpu", "tpu"):
        q = ApiAcceleratorQuota()
        q.time_used = timedelta(seconds=world.used_s(acc))
        q.time_reserved = timedelta(seconds=world.reserved_s(acc))
        q.total_time_allowed = timedelta(seconds=world.quota_total_s[acc])
        q.has_ever_run = any(v.accelerator == acc for v in world.versions)
        setattr(r, f"{acc}_quota", q)
    return to_wire(r)


def save_kernel(version: Version | None, error: str | None) -> dict:
    r = ApiSaveKernelResponse()
    if error:
        r.error = error
        return to_wire(r)
    owner_slug = version.kernel
    r.ref = f"/code/{owner_slug}"
    r.url = f"https://www.kaggle.com/code/{owner_slug}"
    r.version_number = version.number
    r.kernel_id = version.kernel_id
    return to_wire(r)


def session_status(world: World, version: Version) -> dict:
    r = ApiGetKernelSessionStatusResponse()
    status = version.status(world.now)
    r.status = KernelWorkerStatus[status]
    if status == "ERROR" and version.fate.failure_message:
        r.failure_message = version.fate.failure_message
    return to_wire(r)


def file_url(version: Version, name: str) -> str:
    return f"{FILE_HOST}/kf/{version.kernel_id}/{version.number}/{name}"


def session_output(world: World, version: Version) -> dict:
    """While the session runs: no files yet, the log so far (a TPU's log stays empty until the end)."""
    r = ApiListKernelSessionOutputResponse()
    done = version.status(world.now) not in ("QUEUED", "RUNNING")
    if done:
        files = []
        for name in sorted(version.fate.files):
            f = ApiKernelSessionOutputFile()
            f.file_name = name
            f.url = file_url(version, name)
            files.append(f)
        r.files = files
    if done or version.accelerator != "tpu":
        log = kaggle_log_text(version.log_events(world.now))
        if log:
            r.log = log
    return to_wire(r)


def kernel_files(world: World, version: Version, page_size: int | None, page_token: str | None) -> dict:
    """`kaggle kernels files USER/SLUG`: the files the session saved (none while it runs), a page at a time:
    the page token is the offset of the page's first file."""
    r = ApiListKernelFilesResponse()
    if version.status(world.now) in ("QUEUED", "RUNNING"):
        return to_wire(r)
    names = sorted(version.fate.files)
    first = int(page_token or 0)
    size = page_size or 20
    items = []
    for name in names[first:first + size]:
        content = version.fate.files[name]
        item = ApiListKernelFilesItem()
        item.name = name
        item.size = len(content.encode() if isinstance(content, str) else bytes(content))
        item.creation_date = iso(version.ended_at)
        items.append(item)
    r.files = items
    if first + size < len(names):
        r.next_page_token = str(first + size)
    return to_wire(r)


def list_kernels(world: World, owner: str) -> dict:
    """`kaggle kernels list --mine` / `--user U`: the owner's kernels, the last run first."""
    latest: dict[str, Version] = {}
    for v in world.versions:
        if v.kernel.split("/")[0] == owner:
            latest[v.kernel] = v
    r = ApiListKernelsResponse()
    kernels = []
    for v in sorted(latest.values(), key=lambda v: -v.pushed_at):
        m = ApiKernelMetadata()
        m.id = v.kernel_id
        m.ref = v.kernel
        m.title = m.slug = v.kernel.split("/")[1]
        m.author = owner
        m.last_run_time = _utc_naive(v.pushed_at)
        m.language = "python"
        m.kernel_type = "script"
        m.is_private = True
        m.enable_gpu = v.accelerator == "gpu"
        m.enable_tpu = v.accelerator == "tpu"
        m.current_version_number = v.number
        m.machine_shape = v.shape
        kernels.append(m)
    r.kernels = kernels
    return to_wire(r)
