"""``python -m kgadvise ...``: the ``kgadvise`` command this wheel installed, for when its ``bin/`` folder
is not on PATH (a ``pip install --user``). The process becomes the binary (``exec``), so its output,
signals and exit codes are the command's own."""

from __future__ import annotations

import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Optional


def binary() -> Optional[Path]:
    """The ``kgadvise`` binary installed with this package, from the wheel's record of its files."""
    try:
        files = metadata.files("kgadvise") or []
    except metadata.PackageNotFoundError:
        return None
    for f in files:
        if f.name == "kgadvise" and f.parent.name in ("bin", "Scripts"):
            path = Path(str(f.locate())).resolve()
            if path.is_file():
                return path
    return None


def main() -> None:
    path = binary()
    if path is None:
        sys.exit("kgadvise: the kgadvise command of this installation was not found; reinstall the wheel")
    os.execv(path, [str(path), *sys.argv[1:]])


if __name__ == "__main__":
    main()
