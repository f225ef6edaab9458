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
from ._report import DiagnoseReport, Report


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


def advise(command: str, **kwargs: Any) -> Report:
    """The report of any advisor by its CLI command name (``worth-gpu``), as a dict equal to
    ``kgadvise <command> --json``; its ``text`` is what ``kgadvise <command>`` prints. The functions below
    are this with the name filled in."""
    request, names = _request(command, kwargs)
    if command == "diagnose":
        report, words = _native.diagnose(request, names)
        return DiagnoseReport(json.loads(report), json.loads(words))
    report, text = _native.advise_text(command, request, names)
    return Report(json.loads(report), text)


def _function(command: str) -> str:
    """``worth-gpu`` -> ``worth_gpu``: an advisor's function name."""
    return command.replace("-", "_")


def request_schema(command: str) -> Dict[str, Any]:
    """The JSON schema of ``command``'s request, from the core's request struct (its fields, their types and
    doc comments; ``x-file`` marks a text input that may be a file, ``x-time`` a time, ``x-required`` a
    field the advisor needs)."""
    text = _native.request_schema(command)
    if text is None:
        raise ValueError(f"kgadvise: no advisor `{command}`; expected one of {', '.join(_native.advisors())}")
    return json.loads(text)


#: Optional examples for the functions' docstrings, by function; an advisor without one needs none.
_EXAMPLES: Dict[str, str] = {
    "matrix": 'kgadvise.matrix(platform="t4x2", capability="bf16")',
    "defaults": 'kgadvise.defaults(domain="images", platform="t4x2")',
    "worth_gpu": 'kgadvise.worth_gpu(task="gbdt", rows=2_000_000)',
    "diagnose": 'kgadvise.diagnose(log=pathlib.Path("gpu.csv"))',
    "quota": 'kgadvise.quota(quota=pathlib.Path("quota.json"), live=True)',
    "plan": 'kgadvise.plan(deadline="2026-12-17", gpu_remaining=11, fold_hours=1.5, folds=5)',
    "cap": "kgadvise.cap(fold_hours=1.5, folds=5)",
    "tpu": "kgadvise.tpu(t4_hours=6, gpu_plannable=10)",
    "check": 'kgadvise.check(metadata=pathlib.Path("kernels/train/kernel-metadata.json"))',
    "collect": 'kgadvise.collect(report=pathlib.Path("kg_run.json"))\n'
    '    kgadvise.collect(status=pathlib.Path("status.txt"), log=pathlib.Path("out/train.log"), timeout_seconds=10800)',
    "compare": 'kgadvise.compare(idea=pathlib.Path("oof_idea.csv"), control=pathlib.Path("oof_control.csv"), metric="auc")',
    "prune": 'kgadvise.prune(baseline=pathlib.Path("base.csv"), current=pathlib.Path("run.csv"))',
    "fidelity": 'kgadvise.fidelity(backlog=pathlib.Path("backlog.csv"))',
    "explain": 'kgadvise.explain(id="KH001")',
    "bench_history": 'kgadvise.bench_history(history=pathlib.Path("reports/bench.jsonl"))',
    "inference": "kgadvise.inference(item_seconds=0.04, test_items=100_000, limit_hours=9)",
}


def _keys(schema: Dict[str, Any]) -> List[str]:
    """The request's keys in the struct's order (a schema's ``properties`` are unordered)."""
    return [k for k in schema.get("x-order", []) if k in schema.get("properties", {})]


def _keywords_doc(schema: Dict[str, Any]) -> str:
    """The keyword arguments with their doc comments in the core's request struct."""
    lines = ["Keyword arguments (the core's request fields):", ""]
    for key in _keys(schema):
        field = schema["properties"][key]
        doc = " ".join(str(field.get("description", "")).split())
        lines.append(f"    {_snake(key)}: {doc}" if doc else f"    {_snake(key)}")
    return "\n".join(lines)


def _advisor(command: str, summary: str) -> Any:
    """The function for ``command``: ``advise`` with the command filled in, its docstring the core's one-line
    doc of the advisor and its request fields' docs, its signature the request's keys (help(), completion in
    Jupyter)."""
    function = _function(command)

    def call(**kwargs: Any) -> Report:
        return advise(command, **kwargs)

    schema = request_schema(command)
    example = _EXAMPLES.get(function)
    call.__name__ = call.__qualname__ = function
    call.__module__ = "kgadvise"
    call.__doc__ = (
        f"{summary}\n\n"
        f"The in-process ``kgadvise {command} --json``: keyword arguments are the command's long flags in\n"
        f"snake_case, text inputs are ``str`` (the text), ``bytes`` or a path-like (the file is read).\n"
        f"Returns the report as a dict (its ``text``: what the CLI prints); raises ``kgadvise.InputError``\n"
        f"with the CLI's message on bad input.\n\n"
        + (f"Example::\n\n    {example}\n\n" if example else "")
        + _keywords_doc(schema)
        + "\n"
    )
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(_snake(k), inspect.Parameter.KEYWORD_ONLY, default=None)
            for k in _keys(schema)
        ]
    )
    return call


#: Every advisor function, by name (the JavaScript library's names, in snake_case): one per advisor the core
#: offers the libraries (its table of advisors; ``kgadvise bench``, which runs and times commands, is the
#: command's alone), in the core's order. Nothing here names one: an advisor that lands in the core is a
#: function here.
FUNCTIONS: List[str] = []
for _command_name, _summary in _native.functions():
    globals()[_function(_command_name)] = _advisor(_command_name, _summary)
    FUNCTIONS.append(_function(_command_name))

#: The functions answered in-process by the core: every one of ``FUNCTIONS``.
ADVISORS: List[str] = [f for f in FUNCTIONS if f.replace("_", "-") in _native.advisors()]
