# The environment of the release site build, sourced by scripts/build-site.sh (which runs trunk in it) and by
# scripts/check-offline-fetch.sh (which resolves the same cargo build offline). Needs ROOT set.
# The pinned nightly of site-toolchain.env rebuilds std for size: -Zbuild-std with std's
# `optimize_for_size` feature, and panics compiled to an immediate abort.
# shellcheck shell=bash source=site-toolchain.env
. "$ROOT/scripts/site-toolchain.env"
export PATH="$ROOT/tests/browser/node_modules/.bin:$HOME/.cargo/bin:$PATH"  # npm binaryen's wasm-opt first
export TRUNK_OFFLINE=true                  # no tool downloads, no update check, cargo --offline
export RUSTUP_TOOLCHAIN="$SITE_TOOLCHAIN"
export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
export CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size
# Added to .cargo/config.toml's wasm32 flags (never set RUSTFLAGS: it would replace them).
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort"
