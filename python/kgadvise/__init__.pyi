"""Type stubs of the kgadvise package: one function per advisor (keyword arguments are the CLI's long flags
in snake_case, which are the core request's keys in camelCase), the notebook ``watch`` and ``InputError``.

The advisor functions are written from the core (its table of advisors and its request schemas: keys,
types, doc comments) by tests/src/surfaces.rs; ``cargo test -p kgadvise-tests --test surfaces`` fails when
they are stale and ``KGADVISE_BLESS=1`` rewrites them.
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
#: A folder input (kgkit's artifacts): the folder, or its files as ``{file name: base64 of its bytes}``.
Folder = Union[os.PathLike[str], Mapping[str, str]]
#: Threshold overrides: ``["verdict.busy-util-pct=10"]`` or ``{"verdict.busy-util-pct": 10}``.
Overrides = Union[Sequence[str], Mapping[str, float]]

class InputError(ValueError):
    """Input kgadvise cannot answer, with the CLI's message (the argument named as its keyword, or as the
    file a path-like argument named)."""

    field: Optional[str]
    line: Optional[int]
    message: str

class Report(Dict[str, Any]):
    """A report: the dict ``kgadvise <command> --json`` prints; ``text`` is what ``kgadvise <command>``
    prints (its tables included), which Jupyter shows."""

    def __init__(self, report: Dict[str, Any], text: str = "") -> None: ...
    @property
    def text(self) -> str: ...
    def _repr_html_(self) -> str: ...

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

# Generated from core's table of advisors: KGADVISE_BLESS=1 cargo test -p kgadvise-tests --test surfaces
def matrix(
    *,
    platform: Optional[str] = None,
    capability: Optional[str] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """What runs where: one cell of the hardware matrix, or the whole table.

    ``platform``: Platform identifier: t4x2, p100, tpu-v5e-8, cpu, windows or linux (default: every platform).
    ``capability``: Capability identifier: fp16-amp, bf16, torch-compile, ... (default: every capability).
    ``now``: The time of the answer, for the age of the matrix entries (RFC 3339 or a date; default: the
    caller's clock).
    ``set``: Threshold overrides."""

def defaults(
    *,
    domain: str,
    platform: Optional[str] = None,
    cores: Optional[int] = None,
    processes: Optional[int] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """The defaults to write for a domain, resolved for a platform.

    ``domain``: Domain identifier (required): images, text, llm-finetune, tabular, recsys-timeseries, audio or
    inference.
    ``platform``: Platform to resolve AMP, torch.compile, workers... for: t4x2, p100, tpu-v5e-8, cpu, windows
    or linux (default: none, the platform-dependent items keep their conditions).
    ``cores``: CPU cores, where the platform does not fix them (local machines, TPU VMs).
    ``processes``: Training processes sharing the cores, e.g. folds in parallel (default: one per GPU on
    multi-GPU platforms, else one).
    ``now``: The time of the answer, for the age of the entries used (RFC 3339 or a date; default: the
    caller's clock).
    ``set``: Threshold overrides."""

def worth_gpu(
    *,
    task: str,
    rows: int,
    refits: Optional[int] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """Is the GPU worth the quota for this task and data size?

    ``task``: The task (required): gbdt, dataframe, sklearn or deep-learning.
    ``rows``: Training rows (required).
    ``refits``: How many times the model is fit in the run: folds x seeds x tuning trials, feature search,
    hill climbing.
    ``now``: The time of the answer, for the age of the entries used (RFC 3339 or a date; default: the
    caller's clock).
    ``set``: Threshold overrides."""

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
    """Why is my run slow? Verdicts from nvidia-smi output and/or the three bench rates.

    ``log``: nvidia-smi output as text, any format: `--query-gpu` CSV (with or without header or units), the
    default table, `dmon`, `-q`, `-q -x`, or several of them one after the other. Without a log (and without
    rates) the answer is `no-data`.
    ``data_rate``: Data-only rate of the bench (the loader alone), samples/s.
    ``compute_rate``: Compute-only rate of the bench (the step on batches already on the device), samples/s.
    ``loop_rate``: Real-loop rate of the bench, samples/s.
    ``oom``: The run hit an out-of-memory error.
    ``fields``: The nvidia-smi --query-gpu field list of a CSV without header, comma-separated, e.g.
    index,utilization.gpu,memory.used.
    ``interval_s``: Seconds between samples, for logs without timestamps.
    ``now``: The time of the answer (RFC 3339 or a date; default: the caller's clock): the day the rules'
    as-of dates are checked against.
    ``set``: Threshold overrides (`verdict.busy-util-pct=10`)."""

def quota(
    *,
    quota: Optional[Text] = None,
    runs: Optional[Text] = None,
    live: bool = False,
    read_at: Optional[Time] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """Your GPU and TPU quota from any `kaggle quota` form: plannable hours, reservations, live or not.

    ``quota``: The quota as text, in any form: `kaggle quota` (the table, the `-v` CSV or `--format json`),
    the GetAcceleratorQuotaStatistics payload, kgkit's `.kaggle-gm/gpu_quota.json`, `No quota information
    available`, or the web UI's quota banner. A `refreshAt` without a zone is UTC.
    ``runs``: kgkit's runs log (`.kaggle-gm/gpu_runs.jsonl`) as text: its runs in flight reserve hours, and
    its runs finished since the figure was read count against it.
    ``live``: The figure was read just now (e.g. piped from kaggle quota): live whatever its time, which it
    wins over.
    ``read_at``: When the figure was read (RFC 3339 or a date; default: a saved file's modification time); a
    time after the answer's says nothing. kgkit's fetched_at wins when the quota has one. Without any, and not
    read just now, the age of the figure is unknown: not live.
    ``now``: The time of the answer (RFC 3339 or a date; default: the caller's clock).
    ``set``: Threshold overrides."""

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
    """GPU-hours until the deadline: resets, final reserve, exploration, screens and promotions.

    ``deadline``: The deadline: RFC 3339 or a date (a bare date ends at 23:59:00 UTC). Required.
    ``quota``: The quota as text, in any form the `quota` advisor reads (instead of `gpuRemaining`).
    ``gpu_remaining``: GPU hours remaining now (instead of the quota).
    ``tpu_remaining``: TPU hours remaining now: plans the TPU too (replaces the quota's TPU remaining hours).
    ``refresh_at``: The next reset (refreshAt of `kaggle quota`; RFC 3339, UTC without a zone); replaces the
    quota's. Default: the facts' weekly reset.
    ``reserved``: GPU hours held by running sessions (plannable = remaining - reserved).
    ``runs``: kgkit's runs log as text: its runs in flight reserve hours.
    ``fold_hours``: Measured cost of one fold, hours on one GPU (with the folds).
    ``folds``: Folds of a full-CV run (with the fold hours).
    ``screens_per_promotion``: One-fold screens per full-CV promotion (default:
    threshold.plan.screens-per-promotion).
    ``live``: The quota was read just now (live).
    ``read_at``: When the `quota` was read (RFC 3339 or a date; a time after `now` says nothing).
    ``weekly_hours``: Weekly GPU hours when they differ from the facts' (a floating quota, e.g. 45).
    ``now``: The time of the answer (RFC 3339 or a date; default: the caller's clock).
    ``set``: Threshold overrides."""

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
    """Session cap (`kaggle kernels push -t`) and how many resumed sessions a run needs.

    ``measured``: Measured runtime of a kernel of your own, hours.
    ``fold_hours``: Measured cost of one fold on one GPU, hours (a full CV through a runner); in a TPU
    session, of one fold on one TPU chip.
    ``folds``: Folds of the full CV.
    ``gpus``: GPUs running folds in parallel (default: those of a T4 x2 session); in a TPU session, TPU chips
    (default: the v5e-8's 8, one process per chip).
    ``tpu``: A TPU session: the TPU session limit instead of the GPU one, a full CV's rounds counted per chip
    (the fold hours are then one fold on one chip).
    ``factor``: Cap factor (default: threshold.cap.factor for a measured kernel, threshold.cap.full-cv-factor
    for a full CV; KQ022 says the recommended range).
    ``now``: The time of the answer (RFC 3339 or a date; default: the caller's clock).
    ``set``: Threshold overrides."""

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
    """TPU or GPU: both finish times and the choice.

    ``t4_hours``: Wall time of the job on a T4 x2 session, hours. Required.
    ``gpu_plannable``: GPU hours plannable now (default: from the quota given, else assumed sufficient).
    ``queue_hours``: TPU queue wait, hours (default: the facts').
    ``tpu_remaining``: TPU hours remaining this week (default: from the quota given, else the facts' weekly
    TPU hours).
    ``refresh_at``: The next reset (RFC 3339, UTC without a zone; default: from the quota given, else the
    facts' weekly reset).
    ``quota``: The quota as text, in any form the `quota` advisor reads: the GPU and TPU plannable hours and
    the reset, where not given above.
    ``quota_read_at``: When the `quota` was read (RFC 3339 or a date; a time after `now` says nothing).
    kgkit's `fetched_at` wins when the quota has one; without either, the figure's age is unknown: not live.
    ``now``: The time of the answer (RFC 3339 or a date; default: the caller's clock).
    ``set``: Threshold overrides."""

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
    """Pre-flight of a kernel push: would kernel-metadata.json be refused, fail or start nothing?

    ``metadata``: The kernel-metadata.json text: the snake_case file of `kaggle kernels init` / `pull -m`, or
    the camelCase API object.
    ``input``: What the answer calls the metadata (a file name, as given); default `kernel-metadata.json`.
    ``code``: The text of the code file that the metadata's `code_file` names (a notebook's JSON or a script),
    when it was found: its size and its biggest parts are checked against Kaggle's limit.
    ``code_bytes``: The code file's size on disk in bytes, when it differs from the UTF-8 length of `code` (a
    file in another encoding); default that length.
    ``code_path``: Where the code file was looked for when no file was there (the path `code_file` resolves
    to): the push would fail. Not read when `code` is given.
    ``running_gpu``: Batch GPU sessions already running or queued on the account.
    ``running_tpu``: Batch TPU sessions already running or queued.
    ``running_cpu``: Batch CPU sessions already running.
    ``running_kernels``: Kernels still queued or running (owner/slug, or owner/slug/N naming the version that
    runs; the case is ignored). A source pinned to a version other than the one running is not blocked.
    ``plannable``: GPU hours that can still be planned this week (what kgadvise quota gives); they win over
    the quota reading's GPU figure. A TPU push is never judged on them: the TPU hours are separate.
    ``plannable_tpu``: TPU hours that can still be planned this week (a separate quota); they win over the
    quota reading's TPU figure.
    ``quota``: A quota reading in any form the quota advisor reads (`kaggle quota` output, the API payload,
    kgkit's cache): its plannable GPU hours (TPU hours for a TPU push) are compared with the cap.
    ``runs``: kgkit's runs log (gpu_runs.jsonl): in-flight runs reserve hours of the `quota` reading.
    ``quota_read_at``: When the `quota` was read (RFC 3339 or a date; a time after `now` says nothing): the
    runs log's reservations count from it. kgkit's `fetched_at` wins; without either, they count from `now`.
    ``timeout_seconds``: The -t cap the push will use, in whole seconds.
    ``code_competition``: The kernel is for a code competition (internet must be off).
    ``now``: The time of the answer (RFC 3339 or a date; default: the caller's clock).
    ``set``: Threshold overrides."""

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
    """After a run: what kgkit's kg_run.json says to fix, and the measured cost per fold; for a kernel without
    one, its `kaggle kernels status` text and its log (outcome, hours, a stop at the cap).

    ``report``: kgkit's run report, the kg_run.json text (jobs, fold_status, gpu_util, elapsed_s, budget_h,
    deadline_hit). Empty for a kernel without one: give `status` and/or `log` instead.
    ``status``: The output of `kaggle kernels status <owner>/<slug>` (`<owner>/<slug> has status
    "KernelWorkerStatus.COMPLETE"`, or the old CLI's `"complete"`, `"error"`, `"cancelAcknowledged"`; a
    `Failure message:` line is read too): the run's outcome.
    ``log``: The kernel's log: the `<slug>.log` that `kaggle kernels output <owner>/<slug>` writes (JSON
    records of `stream_name`, `time` in seconds since the session started, and `data`), or plain text. Its
    times give the session's hours; its last lines are quoted when the run failed or was stopped.
    ``timeout_seconds``: The -t cap the kernel was pushed with, in whole seconds: a log that ends at about the
    cap was stopped by it.
    ``input``: What the answer calls the report (a file name, as given); default `kg_run.json`, or for a
    kernel without one the kernel its status names (`owner/slug`).
    ``now``: The time of the answer (RFC 3339 or a date; default: the caller's clock).
    ``set``: Threshold overrides."""

def compare(
    *,
    idea: Optional[Text] = None,
    control: Optional[Text] = None,
    idea_artifacts: Optional[Folder] = None,
    control_artifacts: Optional[Folder] = None,
    truth: Optional[Text] = None,
    truth_column: Optional[str] = None,
    groups: Optional[str] = None,
    fold: Optional[int] = None,
    metric: str,
    folds: Optional[Text] = None,
    resamples: Optional[int] = None,
    seed: Optional[int] = None,
    threads: Optional[int] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """Should an idea be promoted? A paired bootstrap of its predictions against its control's.

    ``idea``: The idea's out-of-fold predictions: CSV text whose header holds `y_true` and `y_pred`; optional
    columns `id` (rows are paired by id when both files have it, else by order), `fold` (a per-fold paired t
    over 2+ folds) and `group` (the bootstrap resamples whole groups).
    ``control``: The control's predictions on the same rows, CSV text of the same form.
    ``idea_artifacts``: Instead of `idea`: kgkit's artifacts folder of the idea (`artifacts/<name>/`), its
    files by name; in JSON each file's bytes are a base64 string. `fold<k>_oof.npy` (predictions) with
    `fold<k>_idx.npy` (their rows in the truth table) are read, other files passed over.
    ``control_artifacts``: Instead of `control`: the control's artifacts folder, of the same form.
    ``truth``: With artifacts: the training table's CSV text, whose rows `fold<k>_idx.npy` point at (0 = its
    first data row).
    ``truth_column``: With artifacts: the truth table's column of labels (text labels are encoded as sorted
    classes, as kgkit does).
    ``groups``: With artifacts: the truth table's column of groups (patients, sessions): the bootstrap
    resamples whole groups.
    ``fold``: Compare one fold only: the artifacts' fold<K> files, or the CSV rows whose fold column is K.
    ``metric``: The metric: rmse, mae, logloss, auc or accuracy (the gain is signed so that positive is
    better).
    ``folds``: The baseline's per-fold CV scores, for the leakage check: CSV text with a `score` column, or
    one number a line.
    ``resamples``: Bootstrap resamples, at least 2 (default: threshold.stats.resamples).
    ``seed``: Seed of the bootstrap's random draws (default 42): the same request gives the same answer.
    ``threads``: Threads for the resamples (default: 1; on the command line, the CPU cores); the answer does
    not depend on it.
    ``now``: The time of the answer (RFC 3339 or a date; default: the caller's clock).
    ``set``: Threshold overrides."""

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
    """Should a running screen stop? Its learning curve against the baseline's.

    ``baseline``: The accepted baseline's curve: kgkit's `curve_fold<k>.json` text (`{fold, epochs,
    greater_is_better, points: [{epoch, score, seconds}]}`), or a JSON list of its folds' curves.
    ``current``: The running screen's curve, one curve of the same form.
    ``margin``: Prune when the screen trails the baseline by more than this, in the metric's units (default:
    the baseline's fold std; without either, no prune decision).
    ``min_frac``: Never prune before this fraction of the schedule, 0 to 1 (default:
    threshold.stats.prune-min-frac).
    ``folds``: The baseline's per-fold scores (CSV text with a `score` column, or one number a line): their
    std is the margin when the baseline is one curve.
    ``now``: The time of the answer (RFC 3339 or a date; default: the caller's clock).
    ``set``: Threshold overrides."""

def fidelity(
    *,
    backlog: Text,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """Do screens rank ideas as full cross-validation does? Sign agreement and Spearman.

    ``backlog``: The ideas: CSV text with columns `idea`, `screen_gain`, `full_gain`, one row per idea (rows
    without a full gain yet are skipped and listed).
    ``now``: The time of the answer (RFC 3339 or a date; default: the caller's clock).
    ``set``: Threshold overrides."""

def explain(
    *,
    id: Optional[str] = None,
    list: bool = False,
    all_markdown: bool = False,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """Documentation of a rule (KH001) or a data entry (matrix.bf16.t4x2).

    ``id``: A rule code (KH001, in any case) or an entry ID (matrix.bf16.t4x2, shape.TpuV5E8, threshold.*,
    fact.*); required unless every ID is listed or every rule written as Markdown.
    ``list``: Every rule and entry ID with its kind, instead of one explanation.
    ``all_markdown``: The documentation of every finding rule as Markdown (docs/rules.md), instead of one
    explanation.
    ``now``: The time of the answer (RFC 3339 or a date); checked like every request's, though the
    documentation does not depend on it.
    ``set``: Threshold overrides; checked like every request's."""

def bench_history(
    *,
    history: Text,
    name: Optional[str] = None,
    now: Optional[Time] = None,
    set: Optional[Overrides] = None,
) -> Report:
    """The bench history (`kgadvise bench --history`): speed-ups and what changed between commands.

    ``history``: The bench history: JSON lines, one bench record each (`{name, time, command, wall_s,
    exit_code, ...}`, as `kgadvise bench` appends them to `reports/bench.jsonl`). Lines that cannot be read
    are listed with their number.
    ``name``: Only the benches of this run name (default: every bench).
    ``now``: The time of the answer (RFC 3339 or a date; default: the caller's clock).
    ``set``: Threshold overrides."""

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
    """Will inference fit the competition's run-time limit with the margin to spare?

    ``item_seconds``: Measured seconds per test item (a row, an image, a text) of the whole pipeline, every
    ensemble member included.
    ``batch_seconds``: Measured seconds per batch of the batch size's items, instead of the seconds per item.
    ``batch_size``: Items per batch of the seconds per batch.
    ``test_items``: Items in the hidden test set (required).
    ``limit_hours``: The competition's run-time limit in hours (required; the competition's code requirements
    state it).
    ``setup_seconds``: Seconds spent outside the per-item loop: installing wheels, loading the models, reading
    the test (default: none).
    ``timed_items``: Items the timing run covered: fewer than the hidden test makes the estimate an
    extrapolation.
    ``platform``: Platform the kernel runs on, to resolve the fixes for it (t4x2, p100, tpu-v5e-8, cpu,
    windows, linux).
    ``now``: The time of the answer, for the age of the entries used (RFC 3339 or a date; default: the
    caller's clock).
    ``set``: Threshold overrides."""
# End of the generated part.

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
