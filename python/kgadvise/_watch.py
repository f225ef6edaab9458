"""``kgadvise.watch``: nvidia-smi sampled in the background while a block of a notebook runs, then the
diagnose verdicts. The sampling is the CLI's own (``kgadvise sample``: the same program, arguments and
``KGADVISE_NVIDIA_SMI`` override), run by the extension; its output is read by threads that never need the
GIL, so the training in the block is not slowed by Python work.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from types import TracebackType
from typing import Optional, Type, Union, cast

from . import _native
from ._advisors import _input_error, advise
from ._report import DiagnoseReport, to_html

PathLike = Union[str, "os.PathLike[str]"]


def _diagnose(raw: bytes) -> DiagnoseReport:
    """The diagnose report of nvidia-smi's output: the ``diagnose`` advisor's, with the output as its
    ``log`` (what ``kgadvise sample`` answers)."""
    return cast(DiagnoseReport, advise("diagnose", log=raw))


def _jupyter() -> bool:
    """Whether this runs in a Jupyter kernel, whose display handles update an output in place (a terminal
    IPython prints them one after the other)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class _LiveOutput:
    """Where the live view goes: one output of the cell updated in place (an IPython display handle), or
    plain lines on stdout. The words are the core's (the view's text, its one-line form, the alarms)."""

    def __init__(self) -> None:
        self.in_place = _jupyter()
        self._handle = None
        self.views = 0

    def view(self, text: str, line: str) -> None:
        if self.in_place:
            from IPython.display import display

            if self._handle is None:
                self._handle = display({"text/plain": text}, raw=True, display_id=True)
            else:
                self._handle.update({"text/plain": text}, raw=True)
        else:
            print(line, flush=True)
        self.views += 1

    def alarm(self, text: str) -> None:
        if self.in_place:
            from IPython.display import display

            display({"text/plain": text}, raw=True)
        else:
            print(text, flush=True)


class Watch:
    """A running (or finished) ``watch``. After the block: ``report`` (the diagnose dict, ``None`` when
    nvidia-smi could not be started), ``raw`` (nvidia-smi's output), ``seconds`` (how long it sampled) and
    ``error`` (why nothing was sampled, else ``None``). With ``live``, ``alarms`` holds the early alarms
    given while it ran and ``views`` counts the view's refreshes."""

    def __init__(
        self,
        interval_s: float = 1.0,
        save: Optional[PathLike] = None,
        quiet: bool = False,
        live: bool = False,
    ) -> None:
        if isinstance(interval_s, bool) or not isinstance(interval_s, (int, float)):
            raise _input_error(f"{interval_s!r}: expected a number of seconds", "interval_s")
        if not (math.isfinite(interval_s) and interval_s > 0):
            raise _input_error(f"{interval_s}: expected a positive number of seconds", "interval_s")
        self.interval_s = float(interval_s)
        self.save = save
        self.quiet = quiet
        self.report: Optional[DiagnoseReport] = None
        self.raw: bytes = b""
        self.seconds: float = 0.0
        self.error: Optional[str] = None
        self._sampler: Optional[_native.Sampler] = None
        self._started: Optional[float] = None
        self.live = bool(live)
        self.alarms: list = []
        self._live: Optional[_native.LiveWatch] = None
        self._output: Optional[_LiveOutput] = None
        self._follower: Optional[threading.Thread] = None
        self._stopping = threading.Event()

    @property
    def views(self) -> int:
        """How many times the live view was drawn."""
        return self._output.views if self._output is not None else 0

    @property
    def interval_ms(self) -> int:
        return max(1, round(self.interval_s * 1000))

    def start(self) -> "Watch":
        """Starts sampling (``with`` does this). Without nvidia-smi, says so and samples nothing: the
        block runs as if there were no watch."""
        if self._sampler is not None:
            return self
        self.report, self.raw, self.seconds, self.error = None, b"", 0.0, None
        self._started = time.monotonic()
        try:
            if self.live:
                self._start_live()
            else:
                self._sampler = _native.Sampler(self.interval_ms)
        except OSError as e:
            self.error = str(e)
            self._say(f"kgadvise.watch: not sampling: {e}")
        return self

    def _start_live(self) -> None:
        self._live = _native.LiveWatch(self.interval_ms)
        self._output = _LiveOutput()
        self.alarms = []
        self._stopping.clear()
        self._follower = threading.Thread(target=self._follow, name="kgadvise.watch", daemon=True)
        self._follower.start()

    def _follow(self) -> None:
        """Takes nvidia-smi's output in as it comes; redraws the view every LIVE_REFRESH_S seconds (a plain
        line every LIVE_LINE_REFRESH_S) and gives each alarm once, as soon as its verdict settles."""
        live, output = self._live, self._output
        assert live is not None and output is not None
        refresh = _native.LIVE_REFRESH_S if output.in_place else _native.LIVE_LINE_REFRESH_S
        drawn_at = -math.inf
        while not self._stopping.is_set():
            view, line, alarms, samples, ended = live.poll(min(_native.LIVE_REFRESH_S, 0.5))
            for text in alarms:
                self.alarms.append(text)
                if not self.quiet:
                    output.alarm(text)
            if samples and (alarms or time.monotonic() - drawn_at >= refresh):
                if not self.quiet:
                    output.view(view, line)
                else:
                    output.views += 1
                drawn_at = time.monotonic()
            if ended:
                break

    def stop(self) -> Optional[DiagnoseReport]:
        """Stops sampling and diagnoses what nvidia-smi printed (``with`` does this, also when the block
        raises); prints the verdicts unless ``quiet``. Returns ``report``."""
        sampler, self._sampler = self._sampler, None
        live, self._live = self._live, None
        if sampler is None and live is None:
            return self.report
        if live is not None:
            self._stopping.set()
            if self._follower is not None:
                self._follower.join()
            self.raw = bytes(live.stop())
        elif sampler is not None:
            self.raw = bytes(sampler.stop())
        self.seconds = time.monotonic() - (self._started or time.monotonic())
        if self.save is not None:
            try:
                with open(self.save, "wb") as f:
                    f.write(self.raw)
            except OSError as e:
                self._say(f"kgadvise.watch: cannot save the nvidia-smi output to {os.fspath(self.save)}: {e}")
        self.report = _diagnose(self.raw)
        self._say(f"kgadvise.watch: {self.seconds:.1f} s of nvidia-smi\n{self.report.text}")
        return self.report

    @property
    def running(self) -> bool:
        return self._sampler is not None or self._live is not None

    def __enter__(self) -> "Watch":
        return self.start()

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool:
        self.stop()
        return False

    def _say(self, text: str) -> None:
        if not self.quiet:
            print(text, file=sys.stdout, flush=True)

    def _repr_html_(self) -> str:
        if self.report is not None:
            return to_html(self.report)
        import html

        state = "sampling" if self.running else (self.error or "not started")
        return f"<p>kgadvise.watch: {html.escape(state)}</p>"

    def __repr__(self) -> str:
        if self.running:
            state = "sampling"
        elif self.report is not None:
            state = "done"
        else:
            state = "not sampling" if self.error else "not started"
        return f"<kgadvise.Watch interval_s={self.interval_s} {state}>"


def watch(
    interval_s: float = 1.0, save: Optional[PathLike] = None, quiet: bool = False, live: bool = False
) -> Watch:
    """Samples nvidia-smi every ``interval_s`` seconds while a ``with`` block runs, then diagnoses it::

        with kgadvise.watch(interval_s=1, save="gpu.csv") as w:
            train()
        w.report  # the diagnose dict; shown as HTML in Jupyter

    nvidia-smi is ``$KGADVISE_NVIDIA_SMI`` or ``nvidia-smi`` on PATH, run exactly as ``kgadvise sample``
    runs it. ``save`` also writes its raw output (``kgadvise diagnose gpu.csv`` reads it later). Sampling
    stops when the block ends, also by an exception (which goes on). Without nvidia-smi the block runs
    unwatched and a message says why (``w.error``); no exception is raised into the block.

    With ``live=True`` the verdicts so far are shown while the block runs: in Jupyter one output of the
    cell updated in place (per GPU: utilisation now, the last minutes, memory, power; the verdicts, settled
    or provisional, with the quota hours at stake), elsewhere one plain line per refresh; when a verdict
    settles, its alarm is printed once. The final report comes at the end as without ``live``.
    """
    return Watch(interval_s=interval_s, save=save, quiet=quiet, live=live)


def _kgwatch(line: str, cell: str) -> None:
    """``%%kgwatch [--interval S] [--save FILE]``: the cell runs inside ``watch(live=True)``."""
    import argparse
    import shlex

    from IPython import get_ipython

    parser = argparse.ArgumentParser(prog="%%kgwatch", add_help=False)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--save", default=None)
    try:
        options = parser.parse_args(shlex.split(line))
    except SystemExit:
        raise _input_error(f"{line!r}: expected [--interval SECONDS] [--save FILE]", "kgwatch") from None
    shell = get_ipython()
    with Watch(interval_s=options.interval, save=options.save, live=True):
        # The cell's code in the notebook's namespace, as %%time runs it.
        shell.ex(cell)


def load_ipython_extension(shell: object) -> None:
    """``%load_ext kgadvise``: adds the ``%%kgwatch`` cell magic."""
    shell.register_magic_function(_kgwatch, magic_kind="cell", magic_name="kgwatch")  # type: ignore[attr-defined]
