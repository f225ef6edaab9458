#!/usr/bin/env bash
# Builds the web advisor for release (scripts/build-site.sh: trunk, wasm-release profile, std rebuilt for
# size by the pinned nightly, wasm-opt from npm binaryen 132), serves
# web/dist with python3 on a free local port, and runs the Playwright browser tests (tests/browser/*.test.mjs,
# headless Debian Chromium) with `node --test`. Cleans up the server on exit.
# Needs: trunk 0.21.14, wasm-bindgen-cli 0.2.130, the site's nightly, /usr/bin/chromium (scripts/install-toolchain.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
log() { printf '[test-browser] %s\n' "$*" >&2; }

export TRUNK_OFFLINE=true                                  # no tool downloads, no update check, cargo --offline
if [ ! -x tests/browser/node_modules/.bin/wasm-opt ] || [ ! -d tests/browser/node_modules/playwright-core ]; then
  log "npm ci (tests/browser)"
  (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
fi
export PATH="$ROOT/tests/browser/node_modules/.bin:$PATH"  # npm binaryen's wasm-opt (version_132) first

# The parity tests run the CLI binary next to the page: its path as cargo reports it (CARGO_TARGET_DIR works).
KGADVISE_BIN="$(bash scripts/kgadvise-bin.sh)"
export KGADVISE_BIN

s=$SECONDS
bash scripts/build-site.sh
log "scripts/build-site.sh: $((SECONDS - s)) s"

# The transfer budget (issue 9): wasm + js + css <= 300 KB gzipped. Sizes are exact, not timings, so a
# regression fails here; bench/web.sh records the figures in BENCHMARKS.md.
total=0
for f in web/dist/*.wasm web/dist/*.js web/dist/*.css; do total=$((total + $(gzip -9 -c "$f" | wc -c))); done
log "wasm + js + css: $total bytes gzipped (budget $((300 * 1024)))"
if [ "$total" -gt $((300 * 1024)) ]; then
  log "over the 300 KB budget: see BENCHMARKS.md ## web for where the bytes are"
  exit 1
fi

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory web/dist >/dev/null 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  python3 -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$PORT/')" 2>/dev/null && break
  sleep 0.1
done

APP_URL="http://127.0.0.1:$PORT/" node --test tests/browser/
