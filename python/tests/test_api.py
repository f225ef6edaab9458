"""Every function against the CLI: the same question asked as keyword arguments and as a command line gives
the same dict as `kgadvise <command> --json` (or, when the CLI refuses the input with exit 2, an
InputError with the CLI's message). Rows are data: the repository's fixtures (tests/fixtures), the real
inputs of tests/fixtures/realdata, every case of the rule fixtures (tests/fixtures/rules/*.toml, requests
written as the core's JSON) and every entry of the malformed-input corpus (tests/malformed). Files are given
as paths, so the wheel reads and decodes them as the CLI does (core's `request::text_of`). `kgadvise bench`,
which runs and times commands, has no function: its rule fixtures' cases are the CLI's alone."""

from __future__ import annotations

import ast
import atexit
import datetime as dt
import inspect
import json
import os
import re
import shutil
import subprocess
import tempfile
import tomllib
from pathlib import Path
from typing import Any, Dict, Iterator, List, NamedTuple

import pytest

import kgadvise
from kgadvise import _native
from conftest import FIXTURES, NOW, REALDATA, ROOT, cli_error, cli_json, in_this_env


class Row(NamedTuple):
    function: str
    kwargs: Dict[str, Any]
    argv: List[str]

    @property
    def id(self) -> str:
        shown = " ".join(a.replace(str(FIXTURES) + "/", "") for a in self.argv)
        return f"{self.function}: {shown}"


def _flag_kwargs(args: List[str]) -> Dict[str, Any]:
    """CLI flags (`--timeout-seconds 7200 --tpu`) as keyword arguments."""
    kwargs: Dict[str, Any] = {}
    i = 0
    while i < len(args):
        key = args[i][2:].replace("-", "_")
        if i + 1 < len(args) and not args[i + 1].startswith("--"):
            value: Any = args[i + 1]
            for number in (int, float):
                try:
                    value = number(value)
                    break
                except ValueError:
                    pass
            kwargs[key] = value.split(",") if key == "running_kernels" else value
            i += 2
        else:
            kwargs[key] = True
            i += 1
    return kwargs


def _text(path: Path) -> str:
    """A file's text as the CLI reads JSON (UTF-8 or UTF-16, a BOM dropped), to find what the CLI looks for."""
    raw = path.read_bytes()
    if raw[:3] == b"\xef\xbb\xbf":
        return raw[3:].decode("utf-8", "replace")
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return raw.decode("utf-16", "replace")
    return raw.decode("utf-8", "replace")


def _check_finds(metadata: Path) -> Dict[str, Any]:
    """What `kgadvise check` gives its request beside the metadata (cli/src/commands/check.rs): `input`
    (the metadata as named) and the code file its `code_file` names, relative to the metadata's folder, as
    written or with forward slashes (core's `code_file_paths`): `code` (a path, read by the wheel as the
    CLI reads it), `code_bytes` and `code_path` when it is there, else `code_path`, where it was looked
    for. A Python caller gives these itself, as a JavaScript caller does."""
    found: Dict[str, Any] = {"input": str(metadata)}
    try:
        meta = json.loads(_text(metadata))
    except (ValueError, RecursionError):
        return found
    written = None
    if isinstance(meta, dict):
        written = meta.get("code_file") if meta.get("code_file") is not None else meta.get("codeFile")
    if not isinstance(written, str) or not written.strip() or "INSERT_" in written:
        return found
    folder = str(metadata.parent)
    candidates = list(dict.fromkeys([written, written.replace("\\", "/")]))
    paths = [os.path.join(folder, c) for c in candidates]
    there = next((p for p in paths if os.path.isfile(p)), None)
    if there is None:
        return {**found, "code_path": paths[0]}
    return {**found, "code": Path(there), "code_bytes": os.path.getsize(there), "code_path": there}


def _modified_at(path: Path) -> str:
    """A file's modification time as the CLI words it (RFC 3339, as many decimals as it takes)."""
    ns = os.stat(path).st_mtime_ns
    base = dt.datetime.fromtimestamp(ns // 1_000_000_000, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    frac = ns % 1_000_000_000
    if frac == 0:
        return base + "Z"
    digits = 3 if frac % 1_000_000 == 0 else 6 if frac % 1000 == 0 else 9
    return f"{base}.{str(frac).rjust(9, '0')[:digits]}Z"


def _as_the_cli_reads(function: str, kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """The keyword arguments with what the CLI derives from the files it reads, which a caller of the
    function gives itself: check's code file next to the metadata, the name of collect's report, and how
    old a saved quota file is (its modification time) for quota and plan."""
    out = dict(kwargs)
    if function == "check" and isinstance(out.get("metadata"), Path):
        for key in ("input", "code", "code_bytes", "code_path"):
            out.pop(key, None)
        out.update(_check_finds(out["metadata"]))
    if function == "collect" and isinstance(out.get("report"), Path):
        out.setdefault("input", str(out["report"]))
    if function in ("quota", "plan") and isinstance(out.get("quota"), Path) and not out.get("live"):
        out.setdefault("read_at", _modified_at(out["quota"]))
    return out


def _kernel_folder_for(metadata: Path, code: Path) -> Path:
    """A kernel folder in a scratch directory: the metadata, and `code` under the name the metadata gives
    its code file. Its metadata file."""
    written = json.loads(_text(metadata))["code_file"].replace("\\", "/")
    assert not written.startswith("/"), f"{metadata} names no relative code file for {code}"
    folder = Path(tempfile.mkdtemp(prefix="kernel-", dir=_SCRATCH))
    (folder / "kernel-metadata.json").write_bytes(metadata.read_bytes())
    (folder / written).parent.mkdir(parents=True, exist_ok=True)
    (folder / written).write_bytes(code.read_bytes())
    return folder / "kernel-metadata.json"


def check_row(path: Path, flags: List[str]) -> Row:
    """`kgadvise check PATH FLAGS` (a kernel folder or a metadata file) and its function."""
    metadata = path / "kernel-metadata.json" if path.is_dir() else path
    return Row("check", {"metadata": metadata, **_flag_kwargs(flags)}, ["check", str(path), *flags])


def collect_session_row(folder: Path) -> Row:
    """A kernel without kg_run.json: its folder's `args` (`--status status.txt --log <slug>.log`, paths
    relative to the folder) as a command line and as keyword arguments."""
    args = (folder / "args").read_text().split() if (folder / "args").exists() else ["--status", "status.txt"]
    argv = ["collect"]
    kwargs: Dict[str, Any] = {}
    for flag, value in zip(args[::2], args[1::2]):
        key = flag[2:].replace("-", "_")
        if key in ("status", "log"):
            kwargs[key] = folder / value
            argv += [flag, str(folder / value)]
        else:
            kwargs.update(_flag_kwargs([flag, value]))
            argv += [flag, value]
    return Row("collect", kwargs, argv)


def fixture_rows() -> Iterator[Row]:
    """The repository's fixtures, each through its function and its command."""
    F = FIXTURES
    yield Row("cap", {"measured": 3.5}, ["cap", "--measured", "3.5"])
    yield Row("cap", {"measured": 3.5, "factor": 1.3}, ["cap", "--measured", "3.5", "--factor", "1.3"])
    yield Row("cap", {"fold_hours": 1.5, "folds": 5}, ["cap", "--fold-hours", "1.5", "--folds", "5"])
    yield Row("cap", {"fold_hours": 4, "folds": 7, "gpus": 1}, ["cap", "--fold-hours", "4", "--folds", "7", "--gpus", "1"])
    yield Row("cap", {"measured": 7, "tpu": True}, ["cap", "--measured", "7", "--tpu"])
    yield Row("cap", {"measured": 10, "set": ["cap.factor=1.2"]}, ["cap", "--measured", "10", "--set", "cap.factor=1.2"])
    yield Row("cap", {"measured": -1}, ["cap", "--measured", "-1"])
    yield Row("cap", {"measured": 3.5, "factor": 0}, ["cap", "--measured", "3.5", "--factor", "0"])
    yield Row("cap", {"measured": 3.5, "set": ["nope=1"]}, ["cap", "--measured", "3.5", "--set", "nope=1"])
    yield Row("cap", {"measured": 3.5, "now": "not a time"}, ["cap", "--measured", "3.5", "--now", "not a time"])
    yield Row("matrix", {}, ["matrix"])
    yield Row("matrix", {"platform": "t4x2", "capability": "bf16"}, ["matrix", "--platform", "t4x2", "--capability", "bf16"])
    yield Row("matrix", {"platform": "nope"}, ["matrix", "--platform", "nope"])
    yield Row("defaults", {"domain": "images", "platform": "t4x2"}, ["defaults", "images", "--platform", "t4x2"])
    yield Row("worth_gpu", {"task": "gbdt", "rows": 2_000_000}, ["worth-gpu", "--task", "gbdt", "--rows", "2000000"])
    yield Row("worth_gpu", {"task": "deep-learning", "rows": 50_000, "refits": 20}, ["worth-gpu", "--task", "deep-learning", "--rows", "50000", "--refits", "20"])
    for log in sorted((F / "diagnose").iterdir()):
        if log.suffix != ".sh":
            yield Row("diagnose", {"log": log}, ["diagnose", str(log)])
    idle = F / "diagnose" / "second-gpu-idle.csv"
    yield Row("diagnose", {"log": idle.read_text()}, ["diagnose", str(idle)])
    utf16 = F / "diagnose" / "input-bound-utf16le.csv"
    yield Row("diagnose", {"log": utf16.read_bytes()}, ["diagnose", str(utf16)])
    yield Row("diagnose", {"data_rate": 410, "compute_rate": 980, "loop_rate": 400}, ["diagnose", "--data-rate", "410", "--compute-rate", "980", "--loop-rate", "400"])
    yield Row("diagnose", {"log": idle, "set": ["verdict.busy-util-pct=10"]}, ["diagnose", str(idle), "--set", "verdict.busy-util-pct=10"])
    for q in sorted((F / "quota").iterdir()):
        if q.name != "gpu_runs.jsonl":
            yield Row("quota", {"quota": q, "live": True}, ["quota", str(q), "--live"])
    yield Row("quota", {"quota": F / "quota" / "api.json", "runs": F / "quota" / "gpu_runs.jsonl", "live": True}, ["quota", str(F / "quota" / "api.json"), "--runs", str(F / "quota" / "gpu_runs.jsonl"), "--live"])
    yield Row("plan", {"deadline": "2026-12-17", "gpu_remaining": 11, "fold_hours": 1.5, "folds": 5}, ["plan", "--deadline", "2026-12-17", "--gpu-remaining", "11", "--fold-hours", "1.5", "--folds", "5"])
    yield Row("plan", {"deadline": "2026-12-17", "quota": F / "quota" / "api.json", "live": True}, ["plan", "--deadline", "2026-12-17", "--quota", str(F / "quota" / "api.json"), "--live"])
    yield Row("tpu", {"t4_hours": 6, "gpu_plannable": 10}, ["tpu", "--t4-hours", "6", "--gpu-plannable", "10"])
    for case in sorted((F / "kernel").glob("KM*/*")):
        args = (case / "args").read_text().split() if (case / "args").exists() else []
        yield check_row(case, args)
    for run in sorted((F / "kernel").glob("KR*/*/kg_run.json")):
        yield Row("collect", {"report": run}, ["collect", str(run)])
    for status in sorted((F / "kernel").glob("KR*/*/status.txt")):
        yield collect_session_row(status.parent)
    s = F / "stats"
    yield Row("compare", {"idea": s / "binary_idea.csv", "control": s / "binary_control.csv", "metric": "auc", "folds": s / "baseline_folds.csv"}, ["compare", "--idea", str(s / "binary_idea.csv"), "--control", str(s / "binary_control.csv"), "--metric", "auc", "--folds", str(s / "baseline_folds.csv")])
    yield Row("compare", {"idea": s / "regression_idea.csv", "control": s / "regression_control.csv", "metric": "rmse"}, ["compare", "--idea", str(s / "regression_idea.csv"), "--control", str(s / "regression_control.csv"), "--metric", "rmse"])
    yield Row("prune", {"baseline": s / "baseline_folds.csv", "current": s / "baseline_folds.csv"}, ["prune", "--baseline", str(s / "baseline_folds.csv"), "--current", str(s / "baseline_folds.csv")])
    for current in ("early", "keeping_up", "trailing"):
        c = s / "curves"
        yield Row("prune", {"baseline": c / "baseline.json", "current": c / f"{current}.json"}, ["prune", "--baseline", str(c / "baseline.json"), "--current", str(c / f"{current}.json")])
    for ideas in ("fidelity_ideas.csv", "fidelity_bad.csv"):
        yield Row("fidelity", {"backlog": s / ideas}, ["fidelity", str(s / ideas)])
    yield Row("explain", {"id": "KQ021"}, ["explain", "KQ021"])
    yield Row("explain", {"id": "matrix.bf16.t4x2"}, ["explain", "matrix.bf16.t4x2"])
    yield Row("explain", {"id": "KZ999"}, ["explain", "KZ999"])
    yield Row("explain", {"list": True}, ["explain", "--list"])
    history = ROOT / "tests" / "malformed" / "bench-history" / "garbage.jsonl"
    yield Row("bench_history", {"history": history}, ["bench", "--history", "--history-file", str(history)])
    yield Row("inference", {"item_seconds": 0.9, "test_items": 40000, "limit_hours": 9}, ["inference", "--item-seconds", "0.9", "--test-items", "40000", "--limit-hours", "9"])
    yield Row("inference", {"batch_seconds": 2, "batch_size": 64, "test_items": 100000, "limit_hours": 1, "platform": "p100"}, ["inference", "--batch-seconds", "2", "--batch-size", "64", "--test-items", "100000", "--limit-hours", "1", "--platform", "p100"])


def realdata_rows() -> Iterator[Row]:
    """The real inputs of tests/fixtures/realdata, each through its function and its command."""
    real = REALDATA
    assert real.is_dir(), f"{real} is missing"
    for folder in ("nvidia-smi-csv", "nvidia-smi-dmon", "nvidia-smi-query", "nvidia-smi-table"):
        for log in sorted((real / folder).iterdir()):
            yield Row("diagnose", {"log": log}, ["diagnose", str(log)])
    for q in sorted((real / "kaggle-quota").iterdir()):
        yield Row("quota", {"quota": q, "live": True}, ["quota", str(q), "--live"])
    for q in sorted((real / "kaggle-quota").iterdir()):
        yield Row("tpu", {"quota": q, "t4_hours": 20}, ["tpu", "--quota", str(q), "--t4-hours", "20"])
    for meta in sorted((real / "kernel-metadata").iterdir()):
        yield check_row(meta, ["--timeout-seconds", "7200"])


#: How tests/malformed/<kind>/<entry> is asked (as tests/tests/malformed.rs runs the CLI): the function's
#: keyword arguments and the command line.
MALFORMED_KINDS = {
    "kernel": lambda p: check_row(p, []),
    "kernel-folder": lambda p: check_row(p, []),
    "quota": lambda p: Row("quota", {"quota": p, "live": True}, ["quota", str(p), "--live"]),
    "runs": lambda p: Row("quota", {"quota": FIXTURES / "quota" / "api.json", "runs": p, "live": True}, ["quota", str(FIXTURES / "quota" / "api.json"), "--runs", str(p), "--live"]),
    "collect": lambda p: Row("collect", {"report": p}, ["collect", str(p)]),
    "collect-log": lambda p: Row("collect", {"log": p, "timeout_seconds": 3600}, ["collect", "--log", str(p), "--timeout-seconds", "3600"]),
    "collect-status": lambda p: Row("collect", {"status": p}, ["collect", "--status", str(p)]),
    "nvsmi": lambda p: Row("diagnose", {"log": p}, ["diagnose", str(p)]),
    "compare": lambda p: Row("compare", {"idea": p, "control": p, "metric": "auc"}, ["compare", "--idea", str(p), "--control", str(p), "--metric", "auc"]),
    "fidelity": lambda p: Row("fidelity", {"backlog": p}, ["fidelity", str(p)]),
    "prune": lambda p: Row("prune", {"baseline": p, "current": p}, ["prune", "--baseline", str(p), "--current", str(p)]),
    "bench-history": lambda p: Row("bench_history", {"history": p}, ["bench", "--history", "--history-file", str(p)]),
}
MALFORMED = ROOT / "tests" / "malformed"


def malformed_rows() -> Iterator[Row]:
    """Every entry of tests/malformed/: binary data, UTF-16, truncated and empty files, as the CLI reads them."""
    for kind in sorted(p for p in MALFORMED.iterdir() if p.is_dir()):
        for entry in sorted(kind.iterdir()):
            yield MALFORMED_KINDS[kind.name](entry)


#: Text fields the CLI takes as a positional file (the others as `--<flag> FILE`), by command.
POSITIONAL = {
    "diagnose": "log",
    "quota": "quota",
    "check": "metadata",
    "collect": "report",
    "fidelity": "backlog",
    "defaults": "domain",
    "explain": "id",
}


def _kebab(key: str) -> str:
    return "".join("-" + c.lower() if c.isupper() else c for c in key)


def _snake(key: str) -> str:
    return _kebab(key).replace("-", "_")


#: The file inputs of each command (core's `request::FILE_INPUTS`): the CLI reads them from files.
FILE_FIELDS = {
    "diagnose": ("log",),
    "quota": ("quota", "runs"),
    "plan": ("quota", "runs"),
    "tpu": ("quota",),
    "check": ("metadata", "code", "quota", "runs"),
    "collect": ("report", "status", "log"),
    "compare": ("idea", "control", "folds", "truth"),
    "prune": ("baseline", "current", "folds"),
    "fidelity": ("backlog",),
    "bench-history": ("history",),
}
#: Where the rows' scratch files and kernel folders are written, removed when the tests end.
_SCRATCH = Path(tempfile.mkdtemp(prefix="kgadvise-py-"))
atexit.register(shutil.rmtree, _SCRATCH, True)


def _scratch_file(key: str, text: str) -> Path:
    """A text input given inline, as a file (a fresh name each)."""
    path = Path(tempfile.mkstemp(prefix=f"{key}-", dir=_SCRATCH)[1])
    path.write_text(text)
    return path


def rule_fixture_rows() -> Iterator[Row]:
    """Every case of tests/fixtures/rules/*.toml: its request as keyword arguments, and as the command
    line the request's keys are the flags of."""
    for path in sorted((FIXTURES / "rules").glob("*.toml")):
        for case in tomllib.loads(path.read_text())["case"]:
            command = case["command"]
            if command == "bench" or command.startswith("loop-"):
                continue  # runs and times commands, or drives the Kaggle CLI: the CLI's alone (no function)
            kwargs: Dict[str, Any] = {}
            argv: List[str] = ["bench", "--history"] if command == "bench-history" else [command]
            request = dict(case.get("request", {}))
            files = {k: FIXTURES / v for k, v in case.get("files", {}).items()}
            for key, value in list(request.items()):
                if key in FILE_FIELDS.get(command, ()) and isinstance(value, str):
                    # A text given inline: a file for the CLI, and the same path for the function.
                    files[key] = _scratch_file(key, value)
                    del request[key]
                if command == "check" and key in ("input", "code", "codeBytes", "codePath"):
                    # What the CLI derives from the kernel folder (_check_finds), not flags of its own.
                    request.pop(key, None)
            if command == "check" and "code" in files:
                # The CLI reads the code file next to the metadata (_check_finds): a case that pairs the
                # metadata with a code file from elsewhere is written as one kernel folder.
                code = files.pop("code")
                if _check_finds(files["metadata"]).get("code") != code:
                    files["metadata"] = _kernel_folder_for(files["metadata"], code)
            for key, value in [*request.items(), *files.items()]:
                kwargs[_snake(key)] = value
                if command == "bench-history" and key == "history":
                    argv += ["--history-file", str(value)]
                elif POSITIONAL.get(command) == key:
                    argv.append(str(value))
                elif value is True:
                    argv.append(f"--{_kebab(key)}")
                elif value is False:
                    pass
                elif isinstance(value, list):
                    for item in value:
                        argv += [f"--{_kebab(key)}", str(item)]
                elif isinstance(value, dict):
                    for name, number in value.items():
                        argv += [f"--{_kebab(key)}", f"{name}={number}"]
                else:
                    argv += [f"--{_kebab(key)}", str(value)]
            yield Row(command.replace("-", "_"), kwargs, argv)


ROWS = [*fixture_rows(), *realdata_rows(), *rule_fixture_rows(), *malformed_rows()]


def test_the_package_is_the_installed_wheel() -> None:
    assert in_this_env(kgadvise.__file__), kgadvise.__file__
    assert in_this_env(_native.__file__), _native.__file__
    cargo_toml = (ROOT / "Cargo.toml").read_text()
    version = tomllib.loads(cargo_toml)["workspace"]["package"]["version"]
    assert kgadvise.__version__ == version


def test_rows_cover_every_function() -> None:
    assert {r.function for r in ROWS} == set(kgadvise.FUNCTIONS)
    assert kgadvise.ADVISORS == kgadvise.FUNCTIONS, "every function is answered in-process by the core"
    commands = {f.replace("_", "-") for f in kgadvise.FUNCTIONS}
    assert set(_native.advisors()) - commands == {"bench"}, "an advisor of the core with no function"


def _in_python_words(row: Row, error: kgadvise.InputError, cli_message: str) -> str:
    """The CLI's message as the function says it: the CLI names a request that cannot be read as a whole
    by its two files (`idea a.csv / control b.csv: ...`), and explain's positional not at all, with a
    pointer to its --list."""
    if error.field is None:
        cli_message = re.sub(r"^(idea|baseline) \S+ / (control|current) \S+: ", "", cli_message)
    if row.function == "explain":
        cli_message = cli_message.removesuffix(" (kgadvise explain list, docs/rules.md)")
        if error.field == "id":
            cli_message = f"id: {cli_message}"
    return cli_message


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.id)
def test_function_equals_the_cli(row: Row, cargo_cli: Path) -> None:
    function = getattr(kgadvise, row.function)
    kwargs = {"now": NOW, **_as_the_cli_reads(row.function, row.kwargs)}
    argv = row.argv if "now" in row.kwargs else [*row.argv, "--now", NOW]
    code, expected, stderr = cli_json(cargo_cli, argv)
    assert code != 101 and "panicked" not in stderr, stderr
    if code == 2:
        with pytest.raises(kgadvise.InputError) as raised:
            function(**kwargs)
        keywords = [_snake(k) for k in _request_keys(row.function.replace("_", "-"))]
        message = cli_error(stderr, keywords)
        assert message is not None, f"the CLI refused the command line itself: {stderr}"
        assert str(raised.value) == _in_python_words(row, raised.value, message)
        return
    assert code in (0, 1), stderr
    got = function(**kwargs)
    assert got == expected
    assert json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)


def _request_keys(command: str) -> List[str]:
    """The request's keys in the struct's order, from the core's schema of it."""
    return list(kgadvise._advisors.request_schema(command)["x-order"])


def _stub_keywords() -> Dict[str, List[str]]:
    stub = Path(kgadvise.__file__).with_name("__init__.pyi")
    tree = ast.parse(stub.read_text())
    return {
        node.name: [a.arg for a in node.args.kwonlyargs]
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name in kgadvise.FUNCTIONS
    }


def test_every_function_has_a_stub_with_its_request_keys() -> None:
    stubs = _stub_keywords()
    assert set(stubs) == set(kgadvise.FUNCTIONS)
    for function in kgadvise.FUNCTIONS:
        want = [_snake(k) for k in _request_keys(function.replace("_", "-"))]
        assert want, function
        assert stubs[function] == want, f"python/kgadvise/__init__.pyi: {function} takes {want}"
        signature = inspect.signature(getattr(kgadvise, function))
        assert list(signature.parameters) == want
        doc = getattr(kgadvise, function).__doc__
        assert doc and all(f"    {k}: " in doc for k in want if k != "set"), doc


def test_the_request_keys_are_the_request_structs() -> None:
    assert _request_keys("cap") == ["measured", "foldHours", "folds", "gpus", "tpu", "factor", "now", "set"]
    assert _native.request_schema("no-such-advisor") is None
    fold_hours = kgadvise._advisors.request_schema("cap")["properties"]["foldHours"]
    assert fold_hours["description"].startswith("Measured cost of one fold on one GPU, hours")


def test_every_advisor_of_the_core_is_a_function_named_once() -> None:
    """The functions are the core's table of advisors (``_native.functions()``): nothing in the package
    names an advisor, so one that lands in the core is a function here, with its keywords."""
    table = [command.replace("-", "_") for command, _summary in _native.functions()]
    assert kgadvise.FUNCTIONS == table
    assert set(table) <= set(kgadvise.__all__)
    for command, summary in _native.functions():
        function = getattr(kgadvise, command.replace("-", "_"))
        assert function.__doc__.startswith(summary)


def test_bad_input_is_an_input_error_with_the_cli_words(cargo_cli: Path) -> None:
    with pytest.raises(kgadvise.InputError) as raised:
        kgadvise.cap(measured=-1)
    assert isinstance(raised.value, ValueError)
    assert raised.value.field == "measured"
    assert raised.value.message in str(raised.value)
    _, _, stderr = cli_json(cargo_cli, ["cap", "--measured", "-1"])
    assert str(raised.value) == cli_error(stderr)


def test_an_unknown_keyword_names_the_keywords() -> None:
    with pytest.raises(kgadvise.InputError) as raised:
        kgadvise.cap(fold_hour=1.5, folds=5)
    text = str(raised.value)
    assert raised.value.field == "fold_hour"
    assert "`fold_hour`" in text and "`fold_hours`" in text and "foldHours" not in text, text


def test_inputs_of_other_python_types() -> None:
    as_text = kgadvise.cap(measured=3.5, now=NOW)
    assert kgadvise.cap(measured=3.5, now=dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)) == as_text
    assert kgadvise.cap(measured=3.5, now=NOW, set={"cap.factor": 1.2}) == kgadvise.cap(measured=3.5, now=NOW, set=["cap.factor=1.2"])
    assert kgadvise.cap(measured=3.5, now=NOW, factor=None) == as_text
    with pytest.raises(kgadvise.InputError, match="finite"):
        kgadvise.cap(measured=float("nan"))
    with pytest.raises(kgadvise.InputError, match="cannot read"):
        kgadvise.diagnose(log=Path("/nonexistent/gpu.csv"))
    with pytest.raises(kgadvise.InputError, match="unknown advisor"):
        kgadvise.advise("no-such-advisor")


def test_answers_are_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_subprocess(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("an advisor started a process")

    monkeypatch.setattr(subprocess, "Popen", no_subprocess)
    monkeypatch.setenv("PATH", "/nonexistent")
    assert kgadvise.cap(measured=3.5)["schema"] == "kgadvise.cap/1"


def test_bytes_decode_as_the_cli_decodes_the_file(tmp_path: Path, cargo_cli: Path) -> None:
    """Core's one decoding of file inputs (`request::text_of`), whether the bytes come as `bytes`, as a
    path or as the CLI's file: UTF-16 read alike; binary data refused naming the argument."""
    utf16 = FIXTURES / "diagnose" / "input-bound-utf16le.csv"
    assert kgadvise.diagnose(log=utf16.read_bytes(), now=NOW) == kgadvise.diagnose(log=utf16, now=NOW)
    binary = b"idea,screen_delta,full_delta\na,0.1,\x00\n"
    path = tmp_path / "backlog.csv"
    path.write_bytes(binary)
    with pytest.raises(kgadvise.InputError) as given_bytes:
        kgadvise.fidelity(backlog=binary, now=NOW)
    with pytest.raises(kgadvise.InputError) as given_path:
        kgadvise.fidelity(backlog=path, now=NOW)
    assert given_bytes.value.field == given_path.value.field == "backlog"
    assert "binary data" in given_bytes.value.message, given_bytes.value.message
    _, _, stderr = cli_json(cargo_cli, ["fidelity", str(path), "--now", NOW])
    assert str(given_path.value) == cli_error(stderr)
    assert str(given_bytes.value) == cli_error(stderr).replace(str(path), "backlog", 1)


@pytest.mark.parametrize("log", sorted((FIXTURES / "diagnose").glob("*.csv")), ids=lambda p: p.name)
def test_the_diagnose_text_is_the_cli_text(log: Path, cargo_cli: Path) -> None:
    """The report's text and its HTML's words are the core's: ``kgadvise diagnose`` prints the same text."""
    report = kgadvise.diagnose(log=log, now=NOW)
    out = subprocess.run(
        [str(cargo_cli), "diagnose", str(log), "--now", NOW], capture_output=True, text=True, check=False
    )
    assert report.text.rstrip() == out.stdout.rstrip()
    assert report.words["verdict"] == out.stdout.splitlines()[0]
    html = report._repr_html_()
    for header in report.words["gpu_table"]["header"]:
        assert f"<th>{header}</th>" in html


def test_every_report_carries_the_cli_text_with_its_tables(cargo_cli: Path) -> None:
    """Every function's report has ``text``, what ``kgadvise <command>`` prints: the quota's reservations
    table is the CLI's, cell for cell, and Jupyter shows that text."""
    quota, runs = FIXTURES / "quota" / "table.txt", FIXTURES / "quota" / "gpu_runs_ledger.jsonl"
    now, read_at = "2026-09-15T10:00:00Z", "2026-09-15T09:00:00Z"
    report = kgadvise.quota(quota=quota, runs=runs, now=now, read_at=read_at)
    out = subprocess.run(
        [str(cargo_cli), "quota", str(quota), "--runs", str(runs), "--now", now, "--read-at", read_at],
        capture_output=True, text=True, check=False,
    )
    assert out.returncode == 0, out.stderr
    assert report.text == out.stdout
    assert "GPU runs in flight:" in report.text and "me/pending  pending  3.00 h" in report.text
    assert isinstance(report, dict) and report["gpu"]["plannable"] == 19.58
    html = report._repr_html_()
    assert html.startswith('<pre class="kgadvise-report">') and "me/repush" in html
    plan = kgadvise.plan(deadline="2026-12-17", gpu_remaining=11, fold_hours=1.5, folds=5, now=NOW)
    out = subprocess.run(
        [str(cargo_cli), "plan", "--deadline", "2026-12-17", "--gpu-remaining", "11", "--fold-hours", "1.5",
         "--folds", "5", "--now", NOW],
        capture_output=True, text=True, check=False,
    )
    assert plan.text == out.stdout and "screens" in plan.text, plan.text
