#!/usr/bin/env bash
# Every test: installs what it needs (idempotent), then host tests of the whole workspace (core, CLI
# end-to-end, conformance on ../shared), clippy, the core's wasm32 build, rules docs freshness, the Python
# wheel (built, installed with --no-index into a fresh venv, pytest) and the browser tests of the built
# site in headless Chromium. .ci/run calls this script.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
t() { local s=$SECONDS; echo "[test-all] $*" >&2; "$@"; echo "[test-all] $(( SECONDS - s ))s: $*" >&2; }

t bash scripts/install-toolchain.sh
export PATH="$ROOT/tests/browser/node_modules/.bin:$HOME/.cargo/bin:$PATH"

t cargo fmt --all -- --check
t cargo clippy --workspace --all-targets --locked -- -D warnings
t cargo build -p kgadvise-core --target wasm32-unknown-unknown --locked
t cargo test --workspace --locked
t bash scripts/test-python.sh
if [ -f scripts/test-browser.sh ]; then
  t bash scripts/test-browser.sh
fi
echo "[test-all] all green" >&2
