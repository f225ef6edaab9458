#!/usr/bin/env bash
# Downloads into the cargo registry ($CARGO_HOME, default ~/.cargo) every crate the offline builds need:
#  1. the workspace's locked dependencies (trunk, offline, passes --offline to cargo);
#  2. std's own dependencies for the site's pinned nightly (scripts/site-toolchain.env): -Zbuild-std in
#     scripts/build-site.sh resolves the standard library's workspace (library/Cargo.toml and its
#     Cargo.lock in the nightly's rust-src) and needs rustc-demangle, wasip1, ... that step 1 never fetches.
# Needs the site's nightly with rust-src (scripts/install-toolchain.sh installs it, then runs this).
# scripts/check-offline-fetch.sh runs this very script into an empty CARGO_HOME and checks that the offline
# builds resolve. Idempotent: a second or two when everything is already there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=site-toolchain.env
. "$ROOT/scripts/site-toolchain.env"

cargo fetch --locked --manifest-path "$ROOT/Cargo.toml" >/dev/null

STD_MANIFEST="$(rustc +"$SITE_TOOLCHAIN" --print sysroot)/lib/rustlib/src/rust/library/Cargo.toml"
if [ ! -f "$STD_MANIFEST" ]; then
  echo "scripts/fetch-crates.sh: $STD_MANIFEST is missing: the site's nightly needs rust-src" \
       "(rustup component add rust-src --toolchain $SITE_TOOLCHAIN)" >&2
  exit 1
fi
cargo +"$SITE_TOOLCHAIN" fetch --locked --manifest-path "$STD_MANIFEST" >/dev/null
