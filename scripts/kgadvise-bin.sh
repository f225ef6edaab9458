#!/usr/bin/env bash
# Builds the kgadvise CLI with cargo and prints the path of the binary cargo made, wherever its target
# directory is (CARGO_TARGET_DIR, a config's build.target-dir, or ./target): never a fixed target/ path.
# Extra arguments go to `cargo build` (e.g. --release). Used by scripts/test-browser.sh and bench/*.sh.
#   KGADVISE_BIN="$(bash scripts/kgadvise-bin.sh)"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$(cargo build --locked -q -p kgadvise-cli --bin kgadvise --manifest-path "$ROOT/Cargo.toml" \
         --message-format=json-render-diagnostics "$@" \
       | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "kgadvise":
        print(m["executable"])')"
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  echo "scripts/kgadvise-bin.sh: cargo reported no kgadvise executable (got '$bin')" >&2
  exit 1
fi
printf '%s\n' "$bin"
