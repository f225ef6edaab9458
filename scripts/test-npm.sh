#!/usr/bin/env bash
# Tests the npm package as a user gets it: builds it (scripts/build-npm.sh), packs it (`npm pack npm/`),
# installs the tarball offline into a fresh folder, and runs tests/npm/*.test.mjs with `node --test`:
# parity with the CLI's --json on the shared fixtures and tests/malformed/, the API's contract, the
# generated types (tsc), and a plain HTML page in headless Chromium. The CLI is the binary cargo builds,
# wherever its target directory is. Needs scripts/install-toolchain.sh (Chromium, wasm-bindgen-cli).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"
log() { printf '[test-npm] %s\n' "$*" >&2; }

bash scripts/build-npm.sh

KGADVISE_BIN="$(cargo build --locked -q -p kgadvise-cli --bin kgadvise --message-format=json-render-diagnostics \
  | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "kgadvise":
        print(m["executable"])')"
if [ ! -x "$KGADVISE_BIN" ]; then
  log "cargo reported no kgadvise executable (got '$KGADVISE_BIN')"
  exit 1
fi
export KGADVISE_BIN

if [ ! -d tests/npm/node_modules/typescript ] || [ ! -d tests/npm/node_modules/playwright-core ]; then
  log "npm ci (tests/npm)"
  (cd tests/npm && npm ci --no-audit --no-fund --loglevel=error)
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tarball="$(npm pack "$ROOT/npm" --pack-destination "$work" --silent)"
log "packed $tarball: $(wc -c <"$work/$tarball") bytes"
mkdir "$work/app"
printf '{ "name": "kgadvise-npm-app", "private": true, "type": "module" }\n' >"$work/app/package.json"
printf "export * from 'kgadvise';\n" >"$work/app/kg.mjs"
(cd "$work/app" && npm install --offline --no-audit --no-fund --loglevel=error "$work/$tarball")
export KGADVISE_NPM_APP="$work/app"

node --test tests/npm/
