#!/usr/bin/env bash
# The loop's tests against the real Kaggle client: builds the kgadvise CLI fresh (scripts/kgadvise-bin.sh),
# installs the official client in its pinned venv (scripts/install-kaggle-client.sh), and runs tests/loop with
# that venv's pytest: the Kaggle stand-in (tests/kaggle_standin) driven by the unmodified client alone, then
# kgadvise's quota / push / status / wait / collect / log scenarios through it. Loopback only; every process
# has a timeout. Extra arguments go to pytest (e.g. -k standin_client). test-all.sh (so CI) calls it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
KGADVISE_BIN="$(bash scripts/kgadvise-bin.sh)"
KAGGLE_VENV="$(bash scripts/install-kaggle-client.sh | tail -n 1)"
export KGADVISE_BIN KAGGLE_VENV
echo "[test-loop] kgadvise: $KGADVISE_BIN; $("$KAGGLE_VENV/bin/kaggle" --version)" >&2
exec "$KAGGLE_VENV/bin/python" -m pytest -p no:cacheprovider -q "$ROOT/tests/loop" "$@"
