"""Type stubs of the kgadvise package: one function per advisor (keyword arguments are the CLI's long flags
in snake_case, which are the core request's keys in camelCase), the notebook ``watch`` and ``InputError``.

python/tests/test_api.py checks every function's keywords here against the keys of its request in the
core (for each advisor the core answers), so a stub that drifts from the request fails the tests.
"""

import datetime
import os
from types import TracebackType
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Type, Union

__version__: str

#: A text input: the text itself, its bytes (decoded like a file: UTF-8 or UTF-16), or a path-like whose
#: file is read as the CLI reads it.
Text = Union[str, bytes, os.PathLike[str]]
#: A time: RFC 3339 or a date as text, or a datetime/date.
Time = Union[str, datetime.datetime, datetime.date]
#: Threshold overrides: ``["verdict.busy-util-pct=10"]`` or ``{"verdict.busy-util-pct": 10}``.
Overrides = Union[Sequence[str], Mapping[str, float]]
#: A report: the dict ``kgadvise <command> --json`` prints.
Report = Dict[str, Any]

class InputError(ValueError):
    """Input kgadvise cannot answer, with the CLI's message (the argument named as its keyword, or as the
    file a path-like argument named)."""

    field: Optional[str]
    line: Optional[int]
    message: str

class DiagnoseReport(Dict[str, Any]):
    """The diagnose report (a dict equal to ``kgadvise diagnose --json``), shown as HTML in Jupyter.
    ``words``: the core's text of it in parts (``verdict_label``, ``verdict``, ``facts``, ``gpu_table``
    with ``header`` and ``rows``, and ``text``, what ``kgadvise diagnose`` prints)."""

    words: Dict[str, Any]
    def __init__(self, report: Dict[str, Any], words: Optional[Dict[str, Any]] = None) -> None: ...
    @property
    def verdicts(self) -> List[str]: ...
    @property
    def text(self) -> str: ...
    def _repr_html_(self) -> str: ...

#: Every advisor function by name.
FUNCTIONS: List[str]
#: The functions answered in-process by the core: all of FUNCTIONS.
ADVISORS: List[str]

def advise(command: str, **request: Any) -> Report:
    """Any advisor by its CLI command name (``worth-gpu``), keyword arguments as for its function."""

def matrix(
    *,
    platform: Optional[str] = None,
    capability: Optional[str] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """What runs where: one cell of the hardware matrix, or the whole table."""

def defaults(
    *,
    domain: str,
    platform: Optional[str] = None,
    cores: Optional[int] = None,
    processes: Optional[int] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """The defaults to write for a domain, resolved for a platform."""

def worth_gpu(
    *,
    task: str,
    rows: int,
    refits: Optional[int] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """Is the GPU worth the quota for this task and data size?"""

def diagnose(
    *,
    log: Optional[Text] = None,
    data_rate: Optional[float] = None,
    compute_rate: Optional[float] = None,
    loop_rate: Optional[float] = None,
    oom: bool = False,
    fields: Optional[str] = None,
    interval_s: Optional[float] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> DiagnoseReport:
    """Why is my run slow? Verdicts from nvidia-smi output (``log``) and/or the three bench rates."""

def quota(
    *,
    quota: Optional[Text] = None,
    runs: Optional[Text] = None,
    live: bool = False,
    read_at: Optional[Time] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """Your GPU and TPU quota from any `kaggle quota` form: plannable hours, reservations, live or not."""

def plan(
    *,
    deadline: Time,
    quota: Optional[Text] = None,
    gpu_remaining: Optional[float] = None,
    tpu_remaining: Optional[float] = None,
    refresh_at: Optional[Time] = None,
    reserved: Optional[float] = None,
    runs: Optional[Text] = None,
    fold_hours: Optional[float] = None,
    folds: Optional[int] = None,
    screens_per_promotion: Optional[int] = None,
    live: bool = False,
    read_at: Optional[Time] = None,
    weekly_hours: Optional[float] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """GPU-hours until the deadline: resets, final reserve, exploration, screens and promotions."""

def cap(
    *,
    measured: Optional[float] = None,
    fold_hours: Optional[float] = None,
    folds: Optional[int] = None,
    gpus: Optional[int] = None,
    tpu: bool = False,
    factor: Optional[float] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """Session cap (`kaggle kernels push -t`) and how many resumed sessions a run needs. Give ``measured``
    (hours of a kernel of your own), or ``fold_hours`` and ``folds`` (a full CV through a runner)."""

def tpu(
    *,
    t4_hours: float,
    gpu_plannable: Optional[float] = None,
    queue_hours: Optional[float] = None,
    tpu_remaining: Optional[float] = None,
    refresh_at: Optional[Time] = None,
    quota: Optional[Text] = None,
    quota_read_at: Optional[Time] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """TPU or GPU: both finish times and the choice."""

def check(
    *,
    metadata: Text,
    input: Optional[str] = None,
    code: Optional[Text] = None,
    code_bytes: Optional[int] = None,
    code_path: Optional[str] = None,
    running_gpu: Optional[int] = None,
    running_tpu: Optional[int] = None,
    running_cpu: Optional[int] = None,
    running_kernels: Optional[Sequence[str]] = None,
    plannable: Optional[float] = None,
    plannable_tpu: Optional[float] = None,
    quota: Optional[Text] = None,
    runs: Optional[Text] = None,
    quota_read_at: Optional[Time] = None,
    timeout_seconds: Optional[int] = None,
    code_competition: bool = False,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """Pre-flight of a kernel push: would kernel-metadata.json (``metadata``) be refused, fail or start
    nothing?"""

def collect(
    *,
    report: Optional[Text] = None,
    status: Optional[Text] = None,
    log: Optional[Text] = None,
    timeout_seconds: Optional[int] = None,
    input: Optional[str] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """After a run: what kgkit's kg_run.json (``report``) says to fix, and the measured cost per fold; for
    a kernel without one, its ``kaggle kernels status`` text (``status``, the outcome) and its log
    (``log``, the session's hours and where it stopped against the ``timeout_seconds`` cap)."""

def compare(
    *,
    idea: Optional[Text] = None,
    control: Optional[Text] = None,
    metric: str,
    idea_artifacts: Optional[Union[os.PathLike[str], Mapping[str, str]]] = None,
    control_artifacts: Optional[Union[os.PathLike[str], Mapping[str, str]]] = None,
    truth: Optional[Text] = None,
    truth_column: Optional[str] = None,
    groups: Optional[str] = None,
    fold: Optional[int] = None,
    folds: Optional[Text] = None,
    resamples: Optional[int] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """Should an idea be promoted? A paired bootstrap of its predictions against its control's.

    The predictions are CSV text (``idea``, ``control``) or kgkit's artifacts folders
    (``idea_artifacts``, ``control_artifacts``: the folder, ``Path("artifacts/idea")``, or its files as
    ``{file name: base64 of the file's bytes}`` holding ``fold<k>_oof.npy`` and ``fold<k>_idx.npy``) with
    ``truth`` (the training table) and ``truth_column``."""

def prune(
    *,
    baseline: Text,
    current: Text,
    margin: Optional[float] = None,
    min_frac: Optional[float] = None,
    folds: Optional[Text] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """Should a running screen stop? Its learning curve against the baseline's."""

def fidelity(
    *,
    backlog: Text,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """Do screens rank ideas as full cross-validation does? Sign agreement and Spearman."""

def explain(
    *,
    id: Optional[str] = None,
    list: bool = False,
    all_markdown: bool = False,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """Documentation of a rule (KH001) or a data entry (matrix.bf16.t4x2) (``id``); every ID (``list``);
    or every rule's documentation as Markdown (``all_markdown``)."""

def inference(
    *,
    item_seconds: Optional[float] = None,
    batch_seconds: Optional[float] = None,
    batch_size: Optional[int] = None,
    test_items: int,
    limit_hours: float,
    setup_seconds: Optional[float] = None,
    timed_items: Optional[int] = None,
    platform: Optional[str] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """Will inference fit the competition's run-time limit with the margin to spare?"""

def bench_history(
    *,
    history: Text,
    name: Optional[str] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """The bench history (``kgadvise bench --history``): speed-ups and what changed between commands."""

class Watch:
    """A running or finished ``watch``."""

    interval_s: float
    save: Optional[Union[str, os.PathLike[str]]]
    quiet: bool
    #: The diagnose report once the block ended; None when nvidia-smi could not be started.
    report: Optional[DiagnoseReport]
    #: nvidia-smi's raw output.
    raw: bytes
    #: Seconds sampled.
    seconds: float
    #: Why nothing was sampled, else None.
    error: Optional[str]
    #: The view is shown while the block runs, alarms as verdicts settle.
    live: bool
    #: The early alarms given (live).
    alarms: List[str]
    def __init__(
        self,
        interval_s: float = 1.0,
        save: Optional[Union[str, os.PathLike[str]]] = None,
        quiet: bool = False,
        live: bool = False,
    ) -> None: ...
    @property
    def views(self) -> int: ...
    @property
    def interval_ms(self) -> int: ...
    @property
    def running(self) -> bool: ...
    def start(self) -> Watch: ...
    def stop(self) -> Optional[DiagnoseReport]: ...
    def __enter__(self) -> Watch: ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> Literal[False]: ...
    def _repr_html_(self) -> str: ...

def watch(
    interval_s: float = 1.0,
    save: Optional[Union[str, os.PathLike[str]]] = None,
    quiet: bool = False,
    live: bool = False,
) -> Watch:
    """Samples nvidia-smi every ``interval_s`` seconds while a ``with`` block runs, then diagnoses it;
    ``save`` also writes the raw output. Without nvidia-smi the block runs unwatched and says why. With
    ``live``, the verdicts so far are shown (updated in place in Jupyter) and an alarm when one settles."""

def load_ipython_extension(shell: Any) -> None:
    """``%load_ext kgadvise``: the ``%%kgwatch [--interval S] [--save FILE]`` cell magic."""
