#!/usr/bin/env bash
# CI check (scripts/test-all.sh): the install step downloads every crate the offline builds need. A warm
# machine hides a gap (its registry already holds what the install forgot), so this runs the install's own
# fetch step, scripts/fetch-crates.sh, into an EMPTY cargo home, then resolves offline, against that registry
# alone, exactly what the offline builds build:
#  - the workspace (cargo metadata --offline needs every locked crate: the stable site build's set);
#  - the release site build of scripts/build-site.sh: trunk's own cargo command, in build-site.sh's own
#    environment (scripts/site-env.sh: the nightly, -Zbuild-std, the wasm32 flags), as a unit graph:
#    cargo resolves and reads every package, std's dependencies included, and compiles nothing.
# Fails naming the missing crate (e.g. "no matching package named `rustc-demangle` found"). About 10 s,
# most of it downloading the crates again. Needs the network of the install step.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { printf '[check-offline-fetch] %s\n' "$*" >&2; }
TOOLS="$(cd "${CARGO_HOME:-$HOME/.cargo}/bin" && pwd -P)"   # cargo, rustc, trunk... (rustup's proxies)

EMPTY_HOME="$(mktemp -d)"
trap 'rm -rf "$EMPTY_HOME"' EXIT
ln -s "$TOOLS" "$EMPTY_HOME/bin"
export CARGO_HOME="$EMPTY_HOME"

s=$SECONDS
bash "$ROOT/scripts/fetch-crates.sh"
log "scripts/fetch-crates.sh into an empty CARGO_HOME: $((SECONDS - s)) s"

fail() { log "FAILED: $1 does not resolve offline from what scripts/fetch-crates.sh fetched (see above)"; exit 1; }

cargo metadata --offline --locked --format-version 1 --manifest-path "$ROOT/Cargo.toml" >/dev/null \
  || fail "the workspace"

(
  # shellcheck source=site-env.sh
  . "$ROOT/scripts/site-env.sh"
  cd "$ROOT/web"
  # trunk 0.21.14's cargo command for web/index.html's rust link (data-bin, data-cargo-profile), offline.
  cargo build --target=wasm32-unknown-unknown --manifest-path "$ROOT/web/Cargo.toml" --profile wasm-release \
    --offline --locked --bin kgadvise-web -Zunstable-options --unit-graph >/dev/null
) || fail "the release site build (scripts/build-site.sh, std included)"
log "the workspace and the release site build (std included) resolve offline; whole check $((SECONDS - s)) s"
