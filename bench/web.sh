#!/usr/bin/env bash
# Transfer size of the web advisor: builds the release site (scripts/build-site.sh: trunk, wasm-release
# profile, std rebuilt for size, wasm-opt -Oz)
# and measures raw and gzip -9 sizes of what a browser downloads (wasm + js + css + boot.js + index.html, and
# what the service worker sw.js caches besides at first visit: the manifest and icons).
# Budget (issues 9 and 17): wasm + js + css <= 320 KB gzipped, sw.js included. Prints a Markdown table for
# BENCHMARKS.md `## web`.
# Then times the 24 h, 1 Hz, 2-GPU CSV log (172,800 rows, 11.5 MB, made by bench/gen_nvsmi_log.py) from
# Ctrl+V in the Diagnose box (the real clipboard), from a file pick and from a drop to the drawn verdict, in
# headless Chromium (bench/web-paste.mjs). Budget: <= 250 ms median each.
# BEFORE_DIST=DIR also serves another build (e.g. main before a change) and measures both, interleaved.
# Usage: [RUNS=7] [BEFORE_DIST=DIR] bench/web.sh [--no-build]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUDGET=$((320 * 1024))
if [ "${1:-}" != "--no-build" ]; then
  bash scripts/build-site.sh >/dev/null 2>&1 || { echo "scripts/build-site.sh failed" >&2; exit 1; }
fi
DIST=web/dist
size() { stat -c %s "$1"; }
gz() { gzip -9 -c "$1" | wc -c; }
total_raw=0; total_gz=0; budget_gz=0
printf '| file | raw bytes | gzip -9 bytes |\n|---|---:|---:|\n'
for f in "$DIST"/*.wasm "$DIST"/*.js "$DIST"/*.css "$DIST"/index.html "$DIST"/manifest.webmanifest "$DIST"/icons/*; do
  [ -f "$f" ] || continue
  r=$(size "$f"); g=$(gz "$f")
  total_raw=$((total_raw + r)); total_gz=$((total_gz + g))
  case "$f" in *.wasm|*.js|*.css) budget_gz=$((budget_gz + g)) ;; esac
  name=$(printf %s "${f#"$DIST"/}" | sed -E 's/-[0-9a-f]{12,16}(_bg)?\./-HASH\1./')
  printf '| %s | %d | %d |\n' "$name" "$r" "$g"
done
printf '| **all files** | %d | %d |\n' "$total_raw" "$total_gz"
printf '\nwasm + js + css gzipped: %d bytes = %.1f KB (budget %d KB: %s)\n' \
  "$budget_gz" "$(echo "$budget_gz / 1024" | bc -l)" $((BUDGET / 1024)) \
  "$([ "$budget_gz" -le "$BUDGET" ] && echo within || echo OVER)"
size_ok=$([ "$budget_gz" -le "$BUDGET" ] && echo 1 || echo 0)

# paste-, pick- and drop-to-verdict
TMP="$(mktemp -d)"
SERVERS=()
trap 'for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"' EXIT
SITES=()
serve() {  # serve NAME DIR: a local server on a free port, added to SITES as NAME=URL
  local port
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  python3 -m http.server "$port" --bind 127.0.0.1 --directory "$2" >/dev/null 2>&1 &
  SERVERS+=($!)
  SITES+=("$1=http://127.0.0.1:$port/")
}
if [ -n "${BEFORE_DIST:-}" ]; then serve before "$BEFORE_DIST"; fi
serve after "$DIST"
python3 bench/gen_nvsmi_log.py "$TMP/day.csv" 30000000 >/dev/null
head -n 172801 "$TMP/day.csv" > "$TMP/log.csv"
sleep 0.5
printf '\n24 h x 1 Hz x 2 GPUs to the verdict (load average %s):\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
node bench/web-paste.mjs "$TMP/log.csv" "${RUNS:-7}" "${SITES[@]}"
[ "$size_ok" = 1 ]
