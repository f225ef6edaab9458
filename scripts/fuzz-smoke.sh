#!/usr/bin/env bash
# A few seconds of every fuzz target (seeded corpora), to see that none crashes at once. Needs the nightly
# toolchain and cargo-fuzz; not run in CI (building the fuzz crate with nightly there costs too much).
# Usage: scripts/fuzz-smoke.sh [SECONDS per target, default 10]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECS="${1:-10}"
for t in $(sed -n 's/^name = "\(.*\)"$/\1/p' "$ROOT/fuzz/Cargo.toml" | grep -v '^kgadvise-fuzz$'); do
  echo "== $t ($SECS s)" >&2
  bash "$ROOT/scripts/fuzz.sh" "$t" "$SECS"
done
