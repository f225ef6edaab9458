#!/usr/bin/env bash
# Transfer size of the web advisor: builds the release site (trunk, wasm-release profile + wasm-opt -Oz)
# and measures raw and gzip -9 sizes of what a browser downloads (wasm + js + css + boot.js + index.html).
# Budget (issue 9): wasm + js + css <= 300 KB gzipped. Prints a Markdown table for BENCHMARKS.md `## web`.
# Usage: bench/web.sh [--no-build]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUDGET=$((300 * 1024))
if [ "${1:-}" != "--no-build" ]; then
  export TRUNK_OFFLINE=true PATH="$ROOT/tests/browser/node_modules/.bin:$PATH"
  (cd web && trunk build --release) >/dev/null 2>&1 || { echo "trunk build --release failed" >&2; exit 1; }
fi
DIST=web/dist
size() { stat -c %s "$1"; }
gz() { gzip -9 -c "$1" | wc -c; }
total_raw=0; total_gz=0; budget_gz=0
printf '| file | raw bytes | gzip -9 bytes |\n|---|---:|---:|\n'
for f in "$DIST"/*.wasm "$DIST"/*.js "$DIST"/*.css "$DIST"/index.html; do
  [ -f "$f" ] || continue
  r=$(size "$f"); g=$(gz "$f")
  total_raw=$((total_raw + r)); total_gz=$((total_gz + g))
  case "$f" in *.html) ;; *) budget_gz=$((budget_gz + g)) ;; esac
  name=$(basename "$f" | sed -E 's/-[0-9a-f]{16}/-HASH/')
  printf '| %s | %d | %d |\n' "$name" "$r" "$g"
done
printf '| **all files** | %d | %d |\n' "$total_raw" "$total_gz"
printf '\nwasm + js + css gzipped: %d bytes = %.1f KB (budget %d KB: %s)\n' \
  "$budget_gz" "$(echo "$budget_gz / 1024" | bc -l)" $((BUDGET / 1024)) \
  "$([ "$budget_gz" -le "$BUDGET" ] && echo within || echo OVER)"
[ "$budget_gz" -le "$BUDGET" ]
