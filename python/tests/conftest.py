"""Shared helpers of the wheel's tests (scripts/test-python.sh runs them in a fresh venv where the wheel is
installed with --no-index): where the repository's fixtures are, the reference CLI (the `kgadvise` binary
cargo built from this checkout, found through cargo) and the wheel's own `kgadvise` command."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
#: The time of every answer (the rule fixtures' clock), so reports are reproducible.
NOW = "2026-12-01T00:00:00Z"
#: Real inputs collected from the wild (provenance in its SOURCES.md).
REALDATA = FIXTURES / "realdata"
FAKE_NVSMI = FIXTURES / "diagnose" / "fake-nvidia-smi.sh"
FAKE_NVSMI_NO_DEVICES = FIXTURES / "diagnose" / "fake-nvidia-smi-no-devices.sh"


def _cargo_binary() -> Path:
    """The reference CLI: $KGADVISE_BIN, else the binary `cargo build` reports (never a guessed target/
    path: CARGO_TARGET_DIR may be set)."""
    given = os.environ.get("KGADVISE_BIN")
    if given:
        return Path(given)
    out = subprocess.run(
        ["cargo", "build", "--locked", "-p", "kgadvise-cli", "--bin", "kgadvise", "--message-format=json"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for line in reversed(out.splitlines()):
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message.get("executable"):
            return Path(message["executable"])
    raise RuntimeError("cargo reported no kgadvise binary")


@pytest.fixture(scope="session")
def cargo_cli() -> Path:
    path = _cargo_binary()
    assert path.is_file(), path
    return path


@pytest.fixture(scope="session")
def wheel_cli() -> Path:
    """The `kgadvise` command the wheel installed into this environment's bin/."""
    found = shutil.which("kgadvise", path=sysconfig.get_path("scripts"))
    assert found, f"no kgadvise in {sysconfig.get_path('scripts')}: is the wheel installed here?"
    return Path(found)


def run(cli: Path, args: List[str], env: Optional[Dict[str, str]] = None, **kw: Any) -> subprocess.CompletedProcess:
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([str(cli), *args], capture_output=True, text=True, env=full_env, timeout=120, **kw)


def cli_json(cli: Path, args: List[str], env: Optional[Dict[str, str]] = None) -> "tuple[int, Any, str]":
    """Exit code, the --json object, and stderr of one CLI run."""
    out = run(cli, [*args, "--json"], env)
    return out.returncode, json.loads(out.stdout) if out.stdout.strip() else None, out.stderr


def cli_error(stderr: str, keywords: Optional[Iterable[str]] = None) -> Optional[str]:
    """The CLI's own error message (`kgadvise: error: ...`) with flags said as keywords (`--fold-hours`
    as `fold_hours`; only the `keywords` given, when given: `--format json` in a message about kaggle's
    CLI stays as it is), as a Python function says it; None for a clap usage error (the command line itself
    was wrong, which has no Python counterpart)."""
    for line in stderr.splitlines():
        if line.startswith("kgadvise: error: "):
            message = line[len("kgadvise: error: ") :]
            ours = None if keywords is None else set(keywords)

            def keyword(m: "re.Match[str]") -> str:
                name = m.group(1).replace("-", "_")
                return name if ours is None or name in ours else m.group(0)

            return re.sub(r"--([a-z][a-z0-9-]*)", keyword, message)
    return None


def in_this_env(module_file: str) -> bool:
    """Whether an imported module lives in this environment (the installed wheel, not the source tree)."""
    return Path(module_file).resolve().is_relative_to(Path(sys.prefix).resolve())


def assert_alarm_within_two_minutes(text: str) -> None:
    """The second-gpu-idle alarm in ``text`` says it settled within two minutes of the replayed run (issue 25's
    "done when"), as the CLI's tests check it."""
    found = re.search(r"\(second-gpu-idle, (\d+(?:\.\d+)?) (s|min) into the run", text)
    assert found, text
    seconds = float(found.group(1)) * (60.0 if found.group(2) == "min" else 1.0)
    assert 60.0 <= seconds <= 120.0, found.group(0)
