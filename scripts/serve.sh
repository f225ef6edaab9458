#!/usr/bin/env bash
# The main job: install the toolchain (idempotent), build the web advisor with trunk (release, size
# profile, wasm-opt) and serve it on http://127.0.0.1:${PORT:-8080}/ . Nothing leaves the browser.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/install-toolchain.sh"
export PATH="$ROOT/tests/browser/node_modules/.bin:$HOME/.cargo/bin:$PATH" TRUNK_OFFLINE=true
cd "$ROOT/web"
trunk build --release
PORT="${PORT:-8080}"
echo "kgadvise web advisor: http://127.0.0.1:$PORT/  (Ctrl-C to stop)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$ROOT/web/dist"
