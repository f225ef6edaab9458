#!/usr/bin/env bash
# Builds the npm package `kgadvise` in npm/: the wasm of the js/ crate (kgadvise-js, wasm-release size
# profile), its wasm-bindgen glue for the web target (one glue for browsers, bundlers and Node; with the
# reset-state function, so a trap loses one call, not the library), wasm-opt -Oz, and index.d.ts, which
# js/build.rs generates from core's request and report types. `npm pack npm/` then gives the tarball.
# Idempotent: installs only what is missing (the wasm32 target, wasm-bindgen-cli at Cargo.lock's version,
# npm binaryen 132 in tests/browser), and skips wasm-bindgen and wasm-opt when cargo's wasm is unchanged.
# Prints the package's sizes (raw and gzip -9). Nothing is downloaded but from the registries.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$ROOT/tests/browser/node_modules/.bin:$HOME/.cargo/bin:$PATH"
log() { printf '[build-npm] %s\n' "$*" >&2; }

# wasm-bindgen-cli must equal the wasm-bindgen crate locked in Cargo.lock (js/Cargo.toml pins it with =).
WBG_VERSION="$(awk '$0=="name = \"wasm-bindgen\""{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)"
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WBG_VERSION" ]; then
  log "cargo install wasm-bindgen-cli $WBG_VERSION (about 4 min)"
  # Its published lockfile may name crate versions the registry lacks: fall back to unlocked.
  cargo install wasm-bindgen-cli --version "$WBG_VERSION" --locked --force \
    || cargo install wasm-bindgen-cli --version "$WBG_VERSION" --force
fi
if [ "$(wasm-opt --version 2>/dev/null)" != "wasm-opt version 132 (version_132)" ]; then
  log "npm ci (tests/browser: binaryen 132's wasm-opt)"
  (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
fi

# The package's version is the workspace's.
version="$(awk '/^\[workspace.package\]/{w=1} w && /^version *=/{gsub(/version *= *|"/,""); print; exit}' Cargo.toml)"
npm_version="$(node -p 'require("./npm/package.json").version')"
if [ "$version" != "$npm_version" ]; then
  log "npm/package.json has version $npm_version, the workspace $version: make them equal"
  exit 1
fi

# Where cargo put the wasm and build.rs the declarations, wherever the target directory is.
outputs="$(cargo build -p kgadvise-js --target wasm32-unknown-unknown --profile wasm-release --locked \
             --message-format=json-render-diagnostics \
           | python3 -c '
import json, sys
wasm = out_dir = ""
for line in sys.stdin:
    m = json.loads(line)
    pid = m.get("package_id", "")
    if "#kgadvise-js@" not in pid and not pid.startswith("kgadvise-js "):
        continue
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "kgadvise_js":
        wasm = next((f for f in m["filenames"] if f.endswith(".wasm")), wasm)
    if m.get("reason") == "build-script-executed":
        out_dir = m["out_dir"]
print(wasm)
print(out_dir)')"
wasm="$(sed -n 1p <<<"$outputs")"
dts="$(sed -n 2p <<<"$outputs")/kgadvise.d.ts"
if [ ! -f "$wasm" ] || [ ! -f "$dts" ]; then
  log "cargo reported no wasm or no declarations (wasm '$wasm', declarations '$dts')"
  exit 1
fi
if grep -q '^// kgadvise-dts: error' "$dts"; then
  log "js/build.rs could not declare core's types (fix js/build/dts.rs or core's type):"
  sed -n 's#^// kgadvise-dts: error: #  #p' "$dts" >&2
  exit 1
fi

OPT_FLAGS=(-Oz)
BINDGEN_FLAGS=(--target web --no-typescript --experimental-reset-state-function --out-name kgadvise_wasm)
stamp="$({ sha256sum "$wasm" "$dts" | cut -d' ' -f1; echo "$WBG_VERSION ${OPT_FLAGS[*]} ${BINDGEN_FLAGS[*]}"; } | sha256sum | cut -d' ' -f1)"
if [ "$(cat npm/.build-stamp 2>/dev/null)" = "$stamp" ] && [ -f npm/kgadvise_wasm_bg.wasm ] \
   && [ -f npm/kgadvise_wasm.js ] && [ -f npm/index.d.ts ]; then
  log "npm/ is up to date"
else
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  wasm-bindgen "${BINDGEN_FLAGS[@]}" --out-dir "$tmp" "$wasm"
  wasm-opt "${OPT_FLAGS[@]}" "$tmp/kgadvise_wasm_bg.wasm" -o "$tmp/opt.wasm"
  cp "$tmp/opt.wasm" npm/kgadvise_wasm_bg.wasm
  cp "$tmp/kgadvise_wasm.js" npm/kgadvise_wasm.js
  cp "$dts" npm/index.d.ts
  echo "$stamp" > npm/.build-stamp
fi

size() { printf '%s %s B (gzip -9 %s B)' "$1" "$(wc -c <"npm/$1")" "$(gzip -9 -c "npm/$1" | wc -c)"; }
total=0
for f in kgadvise_wasm_bg.wasm kgadvise_wasm.js index.js node.js; do
  total=$((total + $(gzip -9 -c "npm/$f" | wc -c)))
done
log "$(size kgadvise_wasm_bg.wasm); $(size kgadvise_wasm.js); $(size index.js); wasm + js: $total B gzipped"
