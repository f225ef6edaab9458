"""Fixtures of the loop tests: a fresh Kaggle stand-in per test (tests/kaggle_standin), the unmodified official
client from the venv scripts/install-kaggle-client.sh makes, and kernel folders to push.

KAGGLE_VENV names the venv (default <repo>/target/kaggle-venv); KGADVISE_BIN the kgadvise binary
(scripts/test-loop.sh builds it). Every process gets a timeout, so nothing here can hang a run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from kaggle_standin.control import Standin  # noqa: E402

VENV = os.environ.get("KAGGLE_VENV") or os.path.join(ROOT, "target", "kaggle-venv")
KAGGLE = os.path.join(VENV, "bin", "kaggle")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "kaggle-client")
USER = "standin-user"
START = "2026-12-07T08:00:00Z"
PROCESS_LIMIT_S = 60


@dataclass
class Ran:
    args: list
    returncode: int
    stdout: str
    stderr: str

    def __str__(self):
        return f"$ {' '.join(map(str, self.args))}\n-> {self.returncode}\n{self.stdout}{self.stderr}"


def run(args, env, cwd=None, timeout=PROCESS_LIMIT_S) -> Ran:
    """One process, its output as bytes decoded without newline translation (the client's CSV ends rows in
    CRLF on every OS: formats.md §6.1)."""
    r = subprocess.run([str(a) for a in args], env=env, cwd=cwd, capture_output=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    return Ran(list(args), r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace"))


@pytest.fixture(scope="session")
def standin_process(tmp_path_factory):
    """One stand-in process for the run; each test gets a fresh world in it (`standin`)."""
    if not os.access(KAGGLE, os.X_OK):
        pytest.fail(f"no Kaggle client at {KAGGLE}: run scripts/install-kaggle-client.sh (KAGGLE_VENV)")
    s = Standin(str(tmp_path_factory.mktemp("standin")), user=USER, start=START)
    yield s
    s.stop()


@pytest.fixture
def standin(standin_process):
    standin_process.reset(START)
    yield standin_process
    standin_process.reset(START)  # releases whatever a failed test left held


@pytest.fixture
def client_env(standin, tmp_path):
    """The client's environment: the stand-in as HTTPS proxy, its CA, fake credentials, kaggle on PATH."""
    env = standin.client_env(home=str(tmp_path / "home"))
    env["PATH"] = os.path.join(VENV, "bin") + os.pathsep + env.get("PATH", "")
    return env


@pytest.fixture
def kaggle(client_env):
    def call(*args, cwd=None, env=None):
        return run([KAGGLE, *args], env or client_env, cwd=cwd)

    return call


def make_kernel(parent, slug: str, accelerator: str | None = "gpu", source: str = "print('hello')\n",
                shape: str | None = None, user: str = USER, kernel_sources=()) -> str:
    """A script kernel folder: kernel-metadata.json (enable_gpu/enable_tpu, or machine_shape) and run.py."""
    folder = os.path.join(str(parent), slug)
    os.makedirs(folder, exist_ok=True)
    meta = {
        "id": f"{user}/{slug}",
        "title": slug,
        "code_file": "run.py",
        "language": "python",
        "kernel_type": "script",
        "is_private": True,
        "enable_gpu": accelerator == "gpu",
        "enable_tpu": accelerator == "tpu",
        "enable_internet": False,
        "dataset_sources": [],
        "competition_sources": [],
        "kernel_sources": list(kernel_sources),
    }
    if shape:
        meta["machine_shape"] = shape
    with open(os.path.join(folder, "kernel-metadata.json"), "w") as f:
        json.dump(meta, f, indent=1)
    with open(os.path.join(folder, "run.py"), "w") as f:
        f.write(source)
    return folder


def check_fixture(name: str, text: str, replacements: dict | None = None) -> None:
    """The client's text equals tests/fixtures/kaggle-client/<name> (temporary paths replaced by their
    names). KGADVISE_RECORD=1 writes the fixture instead."""
    for old, new in (replacements or {}).items():
        text = text.replace(old, new)
    path = os.path.join(FIXTURES, name)
    if os.environ.get("KGADVISE_RECORD") == "1":
        os.makedirs(FIXTURES, exist_ok=True)
        with open(path, "w", newline="") as f:
            f.write(text)
        return
    with open(path, newline="") as f:
        want = f.read()
    assert text == want, f"the client's text differs from {path} (KGADVISE_RECORD=1 rewrites it)"


def check_ran(name: str, ran: Ran, replacements: dict | None = None, stderr: bool = True) -> None:
    """The exact stdout (and stderr, when it is deterministic) of one client call, as fixtures
    <name>.stdout.txt and <name>.stderr.txt (the latter only when there is one)."""
    check_fixture(f"{name}.stdout.txt", ran.stdout, replacements)
    if stderr and (ran.stderr or os.path.exists(os.path.join(FIXTURES, f"{name}.stderr.txt"))):
        check_fixture(f"{name}.stderr.txt", ran.stderr, replacements)
