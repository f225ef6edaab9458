#!/usr/bin/env bash
# Every test: installs what it needs (idempotent); checks that the install's fetch step alone lets the offline
# builds resolve (scripts/check-offline-fetch.sh, an empty cargo home); fmt, clippy, the core's wasm32 build;
# host tests of the whole workspace (core, CLI end-to-end, conformance on tests/fixtures, rules docs
# freshness); the browser tests of the release site in headless Chromium; and the stable fallback site
# (plain `trunk build --release` on stable) with a smoke browser test; the npm package (built, packed,
# installed offline, checked against the CLI and in Chromium); the Python wheel (built, installed with
# --no-index into a fresh venv, pytest); the loop against the real Kaggle client and the Kaggle stand-in
# (scripts/test-loop.sh). .ci/run calls this script.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
t() { local s=$SECONDS; echo "[test-all] $*" >&2; "$@"; echo "[test-all] $(( SECONDS - s ))s: $*" >&2; }
t0=$SECONDS

t bash scripts/install-toolchain.sh
# A clean CI build gains nothing from incremental caches, and they are over half of target/ (2.7 of 4.6 GB
# in debug): without them the run fits a smaller disk.
export CARGO_INCREMENTAL=0
export PATH="$ROOT/tests/browser/node_modules/.bin:$HOME/.cargo/bin:$PATH"

t bash scripts/check-offline-fetch.sh
t cargo fmt --all -- --check
t cargo clippy --workspace --all-targets --locked -- -D warnings
t cargo build -p kgadvise-core --target wasm32-unknown-unknown --locked
t cargo test --workspace --locked
t bash scripts/test-browser.sh
t bash scripts/test-browser.sh --stable
t bash scripts/test-npm.sh
t bash scripts/test-python.sh
t bash scripts/test-loop.sh
echo "[test-all] all green in $((SECONDS - t0)) s" >&2
