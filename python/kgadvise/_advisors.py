"""One function per advisor, each a thin translation of keyword arguments into the core's request.

A keyword is the CLI's long flag in snake_case (``--fold-hours`` is ``fold_hours``), which is the request
key in camelCase (``foldHours``); the core validates the request, so nothing here knows one advisor from
another. A text input (a log, a quota reading, a CSV) is given as ``str`` (the text itself), ``bytes``
(decoded like a file) or a path-like (``pathlib.Path``: the file is read and decoded as the CLI reads it);
a folder input (kgkit's artifacts) is a path-like to the folder, or its files by name in base64.
"""

from __future__ import annotations

import base64
import datetime as _dt
import inspect
import json
import math
import os
from pathlib import Path
from typing import Any, Dict, List, Optional

from . import _native
from ._native import InputError
from ._report import DiagnoseReport


def _camel(keyword: str) -> str:
    """``fold_hours`` -> ``foldHours``."""
    head, *rest = keyword.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _snake(key: str) -> str:
    """``foldHours`` -> ``fold_hours``."""
    return "".join("_" + c.lower() if c.isupper() else c for c in key)


def _input_error(message: str, keyword: Optional[str], cause: Optional[BaseException] = None) -> InputError:
    err = InputError(f"{keyword}: {message}" if keyword else message)
    err.field = keyword
    err.line = None
    err.message = message
    if cause is not None:
        err.__cause__ = cause
    return err


def _value(command: str, keyword: str, value: Any, names: Dict[str, str]) -> Any:
    """A keyword argument's value as JSON the core reads. A file input given as a path-like or bytes is
    decoded by the core's decoding of that field (the CLI's for the same file)."""
    if isinstance(value, os.PathLike):
        path = os.fspath(value)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if os.path.isdir(path):
            names[_camel(keyword)] = path
            return _folder(path)
        try:
            text = _native.read_text(command, _camel(keyword), path)
        except OSError as e:
            raise _input_error(str(e), None, e) from e
        names[_camel(keyword)] = path
        return text
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _native.decode_text(command, _camel(keyword), bytes(value))
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        raise _input_error(f"{value}: expected a finite number", keyword)
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    return value


def _folder(path: str) -> Dict[str, str]:
    """A folder input (kgkit's artifacts, ``compare(idea_artifacts=Path("artifacts/idea"))``) as the core
    takes it: its numpy arrays by file name, each file's bytes in base64 (the core reads the ones it
    needs, as the CLI does; a folder's checkpoints and other files are not read)."""
    try:
        return {
            entry.name: base64.b64encode(Path(entry.path).read_bytes()).decode("ascii")
            for entry in sorted(os.scandir(path), key=lambda e: e.name)
            if entry.name.endswith(".npy") and entry.is_file()
        }
    except OSError as e:
        raise _input_error(str(e), None, e) from e


def _request(command: str, kwargs: Dict[str, Any]) -> "tuple[str, Dict[str, str]]":
    """The JSON request of keyword arguments (``None`` is left out: the core's default), and the paths
    path-like inputs were read from (how an error names them)."""
    request: Dict[str, Any] = {}
    names: Dict[str, str] = {}
    for keyword, value in kwargs.items():
        if value is None:
            continue
        request[_camel(keyword)] = _value(command, keyword, value, names)
    try:
        text = json.dumps(request, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise _input_error(f"{e}; expected text, numbers, booleans, lists or a path", None, e) from e
    return text, names


def advise(command: str, **kwargs: Any) -> Dict[str, Any]:
    """The report of any advisor by its CLI command name (``worth-gpu``), as a dict equal to
    ``kgadvise <command> --json``. The functions below are this with the name filled in."""
    request, names = _request(command, kwargs)
    if command == "diagnose":
        report, words = _native.diagnose(request, names)
        return DiagnoseReport(json.loads(report), json.loads(words))
    return json.loads(_native.advise(command, request, names))


def _command(function: str) -> str:
    return function.replace("_", "-")


def _advisor(function: str, summary: str, example: str) -> Any:
    """The function ``function``: ``advise`` for its command, with its docstring and the signature of its
    request's keys, read from the core (help(), completion in Jupyter)."""
    command = _command(function)

    def call(**kwargs: Any) -> Dict[str, Any]:
        return advise(command, **kwargs)

    call.__name__ = call.__qualname__ = function
    call.__module__ = "kgadvise"
    call.__doc__ = (
        f"{summary}\n\n"
        f"The in-process ``kgadvise {command} --json``: keyword arguments are the command's long flags in\n"
        f"snake_case, text inputs are ``str`` (the text), ``bytes`` or a path-like (the file is read).\n"
        f"Returns the report as a dict; raises ``kgadvise.InputError`` with the CLI's message on bad input.\n\n"
        f"Example::\n\n    {example}\n"
    )
    keys = _native.request_keys(command)
    if keys is None:
        raise ImportError(f"kgadvise: the extension answers no advisor `{command}`: the wheel is broken")
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(_snake(k), inspect.Parameter.KEYWORD_ONLY, default=None) for k in keys]
    )
    return call


matrix = _advisor(
    "matrix",
    "What runs where: one cell of the hardware matrix, or the whole table.",
    'kgadvise.matrix(platform="t4x2", capability="bf16")',
)
defaults = _advisor(
    "defaults",
    "The defaults to write for a domain, resolved for a platform.",
    'kgadvise.defaults(domain="images", platform="t4x2")',
)
worth_gpu = _advisor(
    "worth_gpu",
    "Is the GPU worth the quota for this task and data size?",
    'kgadvise.worth_gpu(task="gbdt", rows=2_000_000)',
)
diagnose = _advisor(
    "diagnose",
    "Why is my run slow? Verdicts from nvidia-smi output and/or the three bench rates.",
    'kgadvise.diagnose(log=pathlib.Path("gpu.csv"))',
)
quota = _advisor(
    "quota",
    "Your GPU and TPU quota from any `kaggle quota` form: plannable hours, reservations, live or not.",
    'kgadvise.quota(quota=pathlib.Path("quota.json"), live=True)',
)
plan = _advisor(
    "plan",
    "GPU-hours until the deadline: resets, final reserve, exploration, screens and promotions.",
    'kgadvise.plan(deadline="2026-12-17", gpu_remaining=11, fold_hours=1.5, folds=5)',
)
cap = _advisor(
    "cap",
    "Session cap (`kaggle kernels push -t`) and how many resumed sessions a run needs.",
    "kgadvise.cap(fold_hours=1.5, folds=5)",
)
tpu = _advisor(
    "tpu",
    "TPU or GPU: both finish times and the choice.",
    "kgadvise.tpu(t4_hours=6, gpu_plannable=10)",
)
check = _advisor(
    "check",
    "Pre-flight of a kernel push: would kernel-metadata.json be refused, fail or start nothing?",
    'kgadvise.check(metadata=pathlib.Path("kernels/train/kernel-metadata.json"))',
)
collect = _advisor(
    "collect",
    "After a run: what kgkit's kg_run.json says to fix, and the measured cost per fold; for a kernel\n"
    "without one, its `kaggle kernels status` text and its log (outcome, hours, a stop at the cap).",
    'kgadvise.collect(report=pathlib.Path("kg_run.json"))\n'
    '    kgadvise.collect(status=pathlib.Path("status.txt"), log=pathlib.Path("out/train.log"), timeout_seconds=10800)',
)
compare = _advisor(
    "compare",
    "Should an idea be promoted? A paired bootstrap of its predictions against its control's.",
    'kgadvise.compare(idea=pathlib.Path("oof_idea.csv"), control=pathlib.Path("oof_control.csv"), metric="auc")',
)
prune = _advisor(
    "prune",
    "Should a running screen stop? Its learning curve against the baseline's.",
    'kgadvise.prune(baseline=pathlib.Path("base.csv"), current=pathlib.Path("run.csv"))',
)
fidelity = _advisor(
    "fidelity",
    "Do screens rank ideas as full cross-validation does? Sign agreement and Spearman.",
    'kgadvise.fidelity(backlog=pathlib.Path("backlog.csv"))',
)
explain = _advisor(
    "explain",
    "Documentation of a rule (KH001) or a data entry (matrix.bf16.t4x2).",
    'kgadvise.explain(id="KH001")',
)
bench_history = _advisor(
    "bench_history",
    "The bench history (`kgadvise bench --history`): speed-ups and what changed between commands.",
    'kgadvise.bench_history(history=pathlib.Path("reports/bench.jsonl"))',
)
inference = _advisor(
    "inference",
    "Will inference fit the competition's run-time limit with the margin to spare?",
    "kgadvise.inference(item_seconds=0.04, test_items=100_000, limit_hours=9)",
)

#: Every advisor function, by name (the JavaScript library's names, in snake_case).
FUNCTIONS: List[str] = [
    "matrix",
    "defaults",
    "worth_gpu",
    "diagnose",
    "quota",
    "plan",
    "cap",
    "tpu",
    "check",
    "collect",
    "compare",
    "prune",
    "fidelity",
    "explain",
    "bench_history",
    "inference",
]

#: The functions answered in-process by the core: every one of ``FUNCTIONS`` (``kgadvise bench``, which
#: runs and times commands, is the command's alone).
ADVISORS: List[str] = [f for f in FUNCTIONS if _command(f) in _native.advisors()]
