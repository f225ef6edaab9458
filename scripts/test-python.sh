#!/usr/bin/env bash
# The Python wheel's tests: builds the wheel (scripts/build-wheel.sh), installs it with --no-index into a
# fresh venv (it needs nothing else), adds the test tools there (pytest, nbclient, ipykernel; pinned, from
# PyPI), and runs python/tests with pytest against the CLI binary cargo builds from this checkout.
# test-all.sh (so CI) calls it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
log() { echo "[test-python] $*" >&2; }

WHEEL="$(bash scripts/build-wheel.sh | tail -n 1)"

VENV="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$VENV")"' EXIT
python3 -m venv "$VENV"
log "installing $(basename "$WHEEL") with --no-index into a fresh venv"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-index "$WHEEL"
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
  pytest==9.2.0 nbclient==0.11.0 nbformat==5.11.1 ipykernel==7.4.0

# The reference CLI, as cargo reports it (CARGO_TARGET_DIR may be set): a debug build, which the
# workspace's `cargo test` has already made.
KGADVISE_BIN="$(cargo build --locked -p kgadvise-cli --bin kgadvise --message-format=json-render-diagnostics |
  python3 -c '
import json, sys
paths = [m["executable"] for m in map(json.loads, sys.stdin)
         if m.get("reason") == "compiler-artifact" and m.get("executable")]
print(paths[-1] if paths else "")')"
export KGADVISE_BIN

# From outside the source tree's python/ folder, so `import kgadvise` is the installed wheel.
"$VENV/bin/python" -m pytest -p no:cacheprovider -q "$ROOT/python/tests"
