#!/usr/bin/env bash
# Runs one cargo-fuzz target (nightly) with its corpus seeded from tests/fixtures/realdata, tests/malformed
# and tests/fixtures. Usage: scripts/fuzz.sh TARGET [SECONDS] [extra libFuzzer flags...]
# Targets: bench_history kernel_metadata run_report quota nvsmi stats. See FUZZING.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="$1"; SECS="${2:-600}"; shift $(( $# < 2 ? $# : 2 ))
REAL="$ROOT/tests/fixtures/realdata"
CORPUS="$ROOT/fuzz/corpus/$TARGET"
mkdir -p "$CORPUS"
seed() { for src in "$@"; do [ -e "$src" ] && find "$src" -type f ! -name '*.py' -size -2000k -exec cp -n {} "$CORPUS/" \; ; done; return 0; }
case "$TARGET" in
  kernel_metadata) seed "$REAL/kernel-metadata" "$ROOT/tests/malformed/kernel" "$ROOT/tests/fixtures/kernel" ;;
  run_report)      seed "$ROOT/tests/malformed/collect" "$ROOT/tests/fixtures/kernel"/KR* ;;
  quota)           seed "$REAL/kaggle-quota" "$ROOT/tests/malformed/quota" "$ROOT/tests/fixtures/quota" ;;
  bench_history)   seed "$ROOT/tests/malformed/bench-history" ;;
  nvsmi)           seed "$REAL"/nvidia-smi-* "$ROOT/tests/malformed/nvsmi" ;;
  stats)           seed "$ROOT/tests/malformed/compare" "$ROOT/tests/malformed/fidelity" "$ROOT/tests/malformed/prune" "$ROOT/tests/fixtures/stats/artifacts" ;;
  *) echo "unknown target $TARGET" >&2; exit 2 ;;
esac
cd "$ROOT/fuzz"
exec cargo +nightly fuzz run "$TARGET" "$CORPUS" -- -max_total_time="$SECS" -max_len=65536 -timeout=10 -print_final_stats=1 "$@"
