#!/usr/bin/env bash
# Idempotent: installs only what is missing or at the wrong version, from the registries only
# (rustup, crates.io, npm, Debian, PyPI). Nothing is downloaded from anywhere else; trunk never fetches tools.
# What each install is and why it is pinned: docs/toolchain.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TRUNK_VERSION=0.21.14   # 0.22.x needs rustc >= 1.96.1
# wasm-bindgen-cli must equal the wasm-bindgen crate pinned (=) in web/Cargo.toml and locked in Cargo.lock.
WBG_VERSION="$(awk '$0=="name = \"wasm-bindgen\""{getline; gsub(/version = |"/,""); print; exit}' "$ROOT/Cargo.lock")"
log() { printf '[install-toolchain] %s\n' "$*" >&2; }
t0=$SECONDS
export PATH="$HOME/.cargo/bin:$PATH"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# The release site's toolchain (scripts/build-site.sh): a pinned nightly with rust-src, for -Zbuild-std.
. "$ROOT/scripts/site-toolchain.env"
if ! rustup run "$SITE_TOOLCHAIN" rustc --version >/dev/null 2>&1 \
   || [ ! -f "$(rustup run "$SITE_TOOLCHAIN" rustc --print sysroot)/lib/rustlib/src/rust/library/Cargo.lock" ]; then
  log "rustup toolchain install $SITE_TOOLCHAIN (minimal + rust-src, about 30 s)"
  rustup toolchain install "$SITE_TOOLCHAIN" --profile minimal --component rust-src
fi

if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  log "cargo install trunk $TRUNK_VERSION (about 9 min on 2 cores)"
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install trunk --version "$TRUNK_VERSION" --locked --no-default-features --force
fi

if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WBG_VERSION" ]; then
  log "cargo install wasm-bindgen-cli $WBG_VERSION (about 4 min)"
  # Its published lockfile may name crate versions the registry lacks: fall back to unlocked.
  cargo install wasm-bindgen-cli --version "$WBG_VERSION" --locked --force \
    || cargo install wasm-bindgen-cli --version "$WBG_VERSION" --force
fi

missing=()
for p in chromium chromium-driver; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# npm: binaryen 132 (wasm-opt, pinned in web/Trunk.toml) + playwright-core (it never downloads a browser).
BROWSER="$ROOT/tests/browser"
if [ -f "$BROWSER/package.json" ]; then
  if [ "$("$BROWSER/node_modules/.bin/wasm-opt" --version 2>/dev/null)" != "wasm-opt version 132 (version_132)" ] \
     || [ ! -d "$BROWSER/node_modules/playwright-core" ]; then
    log "npm ci (tests/browser)"
    (cd "$BROWSER" && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

# The official Kaggle client (pinned, in <target>/kaggle-venv) that scripts/test-loop.sh runs against the
# Kaggle stand-in; a stamp check when it is there already.
bash "$ROOT/scripts/install-kaggle-client.sh" >/dev/null

# trunk's offline mode passes --offline to cargo: fetch the locked crates first, and std's own dependencies
# for the nightly's -Zbuild-std (scripts/check-offline-fetch.sh checks this very step in CI).
bash "$ROOT/scripts/fetch-crates.sh"

log "ready in $((SECONDS - t0)) s: $(trunk --version), $(wasm-bindgen --version), $(chromium --version 2>/dev/null | head -1)"
