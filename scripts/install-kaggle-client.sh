#!/usr/bin/env bash
# Idempotent: a venv with the official Kaggle client (PyPI kaggle 2.2.5, unmodified; six, which it imports
# without declaring), what the Kaggle stand-in needs (cryptography for its test CA) and pytest, every package
# pinned in tests/kaggle_standin/requirements.txt, from PyPI only. The venv lives under the build directory
# (CARGO_TARGET_DIR or ./target): <target>/kaggle-venv. When the stamp matches the requirements it returns at
# once. Prints the venv's path on its last line. Used by scripts/install-toolchain.sh and scripts/test-loop.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REQS="$ROOT/tests/kaggle_standin/requirements.txt"
VENV="${KAGGLE_VENV:-${CARGO_TARGET_DIR:-$ROOT/target}/kaggle-venv}"
log() { printf '[install-kaggle-client] %s\n' "$*" >&2; }

want="$(sha256sum "$REQS" | cut -d' ' -f1) $(python3 -c 'import sys; print(sys.version.split()[0])')"
if [ -f "$VENV/.stamp" ] && [ "$(cat "$VENV/.stamp")" = "$want" ] \
   && [ "$("$VENV/bin/kaggle" --version 2>/dev/null)" = "Kaggle CLI 2.2.5" ]; then
  printf '%s\n' "$VENV"
  exit 0
fi

log "creating $VENV (kaggle 2.2.5, six, cryptography, pytest; pinned, about 15 s)"
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$REQS"
got="$("$VENV/bin/kaggle" --version)"
if [ "$got" != "Kaggle CLI 2.2.5" ]; then
  log "the installed client answers '$got', not 'Kaggle CLI 2.2.5'"
  exit 1
fi
printf '%s\n' "$want" > "$VENV/.stamp"
log "ready: $got"
printf '%s\n' "$VENV"
