"""``kgadvise.watch``: nvidia-smi sampled in the background while a block of a notebook runs, then the
diagnose verdicts. The sampling is the CLI's own (``kgadvise sample``: the same program, arguments and
``KGADVISE_NVIDIA_SMI`` override), run by the extension; its output is read by threads that never need the
GIL, so the training in the block is not slowed by Python work.
"""

from __future__ import annotations

import math
import os
import sys
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


class Watch:
    """A running (or finished) ``watch``. After the block: ``report`` (the diagnose dict, ``None`` when
    nvidia-smi could not be started), ``raw`` (nvidia-smi's output), ``seconds`` (how long it sampled) and
    ``error`` (why nothing was sampled, else ``None``)."""

    def __init__(self, interval_s: float = 1.0, save: Optional[PathLike] = None, quiet: bool = False) -> None:
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
            self._sampler = _native.Sampler(self.interval_ms)
        except OSError as e:
            self.error = str(e)
            self._say(f"kgadvise.watch: not sampling: {e}")
        return self

    def stop(self) -> Optional[DiagnoseReport]:
        """Stops sampling and diagnoses what nvidia-smi printed (``with`` does this, also when the block
        raises); prints the verdicts unless ``quiet``. Returns ``report``."""
        sampler, self._sampler = self._sampler, None
        if sampler is None:
            return self.report
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
        return self._sampler is not None

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


def watch(interval_s: float = 1.0, save: Optional[PathLike] = None, quiet: bool = False) -> Watch:
    """Samples nvidia-smi every ``interval_s`` seconds while a ``with`` block runs, then diagnoses it::

        with kgadvise.watch(interval_s=1, save="gpu.csv") as w:
            train()
        w.report  # the diagnose dict; shown as HTML in Jupyter

    nvidia-smi is ``$KGADVISE_NVIDIA_SMI`` or ``nvidia-smi`` on PATH, run exactly as ``kgadvise sample``
    runs it. ``save`` also writes its raw output (``kgadvise diagnose gpu.csv`` reads it later). Sampling
    stops when the block ends, also by an exception (which goes on). Without nvidia-smi the block runs
    unwatched and a message says why (``w.error``); no exception is raised into the block.
    """
    return Watch(interval_s=interval_s, save=save, quiet=quiet)
