"""kgadvise: the Kaggle compute advisor, in Python.

Every advisor of the ``kgadvise`` command line as a function, answered in-process by the same Rust core
(no subprocess, no network): keyword arguments are the command's long flags in snake_case and the result
is a dict equal to ``kgadvise <command> --json``::

    import kgadvise
    kgadvise.cap(fold_hours=1.5, folds=5)["timeout_seconds"]

Text inputs (nvidia-smi logs, quota readings, CSVs) are given as ``str`` (the text), ``bytes`` or a
path-like such as ``pathlib.Path("gpu.csv")`` (the file is read as the CLI reads it). Bad input raises
:class:`InputError` (a ``ValueError``) with the CLI's message.

In a notebook, :func:`watch` samples nvidia-smi while a block trains and leaves the diagnose verdicts::

    with kgadvise.watch(interval_s=1, save="gpu.csv") as w:
        train()
    w.report

The wheel also installs the ``kgadvise`` command itself (``!kgadvise sample --seconds 60``).
"""

from ._native import VERSION as __version__
from ._native import InputError
from . import _advisors
from ._advisors import ADVISORS, FUNCTIONS, advise
from ._report import DiagnoseReport, Report
from ._watch import Watch, load_ipython_extension, watch

# One function per advisor of the core (``_advisors.FUNCTIONS``), named by the core's table of advisors.
globals().update({name: getattr(_advisors, name) for name in FUNCTIONS})

__all__ = [
    "ADVISORS",
    "FUNCTIONS",
    "DiagnoseReport",
    "InputError",
    "Report",
    "Watch",
    "__version__",
    "advise",
    "load_ipython_extension",
    "watch",
    *FUNCTIONS,
]
