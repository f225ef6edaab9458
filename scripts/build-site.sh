#!/usr/bin/env bash
# Builds the web advisor into web/dist: `trunk build --release` (the wasm-release size profile, wasm-opt from
# npm binaryen 132), with std rebuilt for size by the pinned nightly of scripts/site-toolchain.env:
# -Zbuild-std with std's `optimize_for_size` feature, and panics compiled to an immediate abort (no panic
# message formatting in the page; boot.js shows a trap as the internal-error banner). Same sources, about
# 34 KB gzipped smaller than stable's prebuilt std (BENCHMARKS.md `## web`). A plain `trunk build --release`
# on stable still builds a working (larger) site.
# Needs scripts/install-toolchain.sh. Used by scripts/serve.sh, scripts/test-browser.sh and bench/web.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=site-env.sh
. "$ROOT/scripts/site-env.sh"
cd "$ROOT/web"
trunk build --release "$@"
