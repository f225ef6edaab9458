"""Every function against the CLI: the same question asked as keyword arguments and as a command line gives
the same dict as `kgadvise <command> --json` (or, when the CLI refuses the input with exit 2, an
InputError with the CLI's message). Rows are data: the repository's fixtures (tests/fixtures), the real
inputs of tests/fixtures/realdata, and every case of the rule fixtures (tests/fixtures/rules/*.toml, requests
written as the core's JSON). A row of an advisor the core does not answer yet checks that its function
says "unknown advisor"; when the advisor lands, the same row compares it with the CLI."""

from __future__ import annotations

import ast
import datetime as dt
import inspect
import json
import subprocess
import tomllib
from pathlib import Path
from typing import Any, Dict, Iterator, List, NamedTuple

import pytest

import kgadvise
from kgadvise import _native
from conftest import FIXTURES, NOW, ROOT, cli_error, cli_json, in_this_env


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
            kwargs[key] = value
            i += 2
        else:
            kwargs[key] = True
            i += 1
    return kwargs


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
        kwargs: Dict[str, Any] = {"metadata": case / "kernel-metadata.json"}
        try:
            code_file = json.loads((case / "kernel-metadata.json").read_text()).get("code_file")
        except (ValueError, AttributeError):
            code_file = None
        if isinstance(code_file, str) and (case / code_file.replace("\\", "/")).is_file():
            kwargs["code"] = case / code_file.replace("\\", "/")
        args = (case / "args").read_text().split() if (case / "args").exists() else []
        yield Row("check", {**kwargs, **_flag_kwargs(args)}, ["check", str(case), *args])
    for run in sorted((F / "kernel").glob("KR*/*/kg_run.json")):
        yield Row("collect", {"report": run}, ["collect", str(run)])
    s = F / "stats"
    yield Row("compare", {"idea": s / "binary_idea.csv", "control": s / "binary_control.csv", "metric": "auc", "folds": s / "baseline_folds.csv"}, ["compare", "--idea", str(s / "binary_idea.csv"), "--control", str(s / "binary_control.csv"), "--metric", "auc", "--folds", str(s / "baseline_folds.csv")])
    yield Row("compare", {"idea": s / "regression_idea.csv", "control": s / "regression_control.csv", "metric": "rmse"}, ["compare", "--idea", str(s / "regression_idea.csv"), "--control", str(s / "regression_control.csv"), "--metric", "rmse"])
    yield Row("prune", {"baseline": s / "baseline_folds.csv", "current": s / "baseline_folds.csv"}, ["prune", "--baseline", str(s / "baseline_folds.csv"), "--current", str(s / "baseline_folds.csv")])
    for ideas in ("fidelity_ideas.csv", "fidelity_bad.csv"):
        yield Row("fidelity", {"backlog": s / ideas}, ["fidelity", str(s / ideas)])
    yield Row("explain", {"rule": "KQ021"}, ["explain", "KQ021"])
    yield Row("explain", {"rule": "matrix.bf16.t4x2"}, ["explain", "matrix.bf16.t4x2"])
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
    for meta in sorted((real / "kernel-metadata").iterdir()):
        yield Row("check", {"metadata": meta}, ["check", str(meta)])


#: Text fields the CLI takes as a positional file (the others as `--<flag> FILE`), by command.
POSITIONAL = {
    "diagnose": "log",
    "quota": "quota",
    "collect": "report",
    "fidelity": "backlog",
    "defaults": "domain",
    "explain": "rule",
}


def _kebab(key: str) -> str:
    return "".join("-" + c.lower() if c.isupper() else c for c in key)


def _snake(key: str) -> str:
    return _kebab(key).replace("-", "_")


def rule_fixture_rows() -> Iterator[Row]:
    """Every case of tests/fixtures/rules/*.toml: its request as keyword arguments, and as the command
    line the request's keys are the flags of."""
    for path in sorted((FIXTURES / "rules").glob("*.toml")):
        for case in tomllib.loads(path.read_text())["case"]:
            command = case["command"]
            kwargs: Dict[str, Any] = {}
            argv: List[str] = ["bench", "--history"] if command == "bench-history" else [command]
            request = dict(case.get("request", {}))
            files = {k: FIXTURES / v for k, v in case.get("files", {}).items()}
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


ROWS = [*fixture_rows(), *realdata_rows(), *rule_fixture_rows()]


def test_the_package_is_the_installed_wheel() -> None:
    assert in_this_env(kgadvise.__file__), kgadvise.__file__
    assert in_this_env(_native.__file__), _native.__file__
    cargo_toml = (ROOT / "Cargo.toml").read_text()
    version = tomllib.loads(cargo_toml)["workspace"]["package"]["version"]
    assert kgadvise.__version__ == version


def test_rows_cover_every_function() -> None:
    assert {r.function for r in ROWS} == set(kgadvise.FUNCTIONS)
    assert kgadvise.ADVISORS, "the core answers no advisor by name"
    assert set(kgadvise.ADVISORS) <= set(kgadvise.FUNCTIONS)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.id)
def test_function_equals_the_cli(row: Row, cargo_cli: Path) -> None:
    function = getattr(kgadvise, row.function)
    kwargs = {"now": NOW, **row.kwargs}
    if row.function not in kgadvise.ADVISORS:
        with pytest.raises(kgadvise.InputError, match="unknown advisor"):
            function(**kwargs)
        return
    code, expected, stderr = cli_json(cargo_cli, [*row.argv, "--now", NOW])
    if code == 2:
        with pytest.raises(kgadvise.InputError) as raised:
            function(**kwargs)
        message = cli_error(stderr)
        if message is not None:
            assert str(raised.value) == message
        return
    assert code in (0, 1), stderr
    got = function(**kwargs)
    assert got == expected
    assert json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)


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
        keys = _native.request_keys(function.replace("_", "-"))
        if function not in kgadvise.ADVISORS:
            assert keys is None, function
            continue
        assert keys, function
        want = sorted(_snake(k) for k in keys)
        assert sorted(stubs[function]) == want, f"python/kgadvise/__init__.pyi: {function} takes {want}"
        signature = inspect.signature(getattr(kgadvise, function))
        assert sorted(signature.parameters) == want
        assert getattr(kgadvise, function).__doc__


def test_the_request_keys_are_the_request_structs() -> None:
    assert _native.request_keys("cap") == ["measured", "foldHours", "folds", "gpus", "tpu", "factor", "now", "set"]
    assert _native.request_keys("no-such-advisor") is None


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
