#!/usr/bin/env bash
# The main job: install the toolchain (idempotent), build the web advisor (scripts/build-site.sh: trunk,
# release, size profile, std rebuilt for size, wasm-opt) and serve it on http://127.0.0.1:${PORT:-8080}/ . Nothing leaves the browser.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/install-toolchain.sh"
bash "$ROOT/scripts/build-site.sh"
PORT="${PORT:-8080}"
echo "kgadvise web advisor: http://127.0.0.1:$PORT/  (Ctrl-C to stop)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$ROOT/web/dist"
