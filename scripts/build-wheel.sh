#!/usr/bin/env bash
# Builds the Python wheel, <cargo target dir>/wheels/kgadvise-<version>-cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl:
# the `kgadvise` command (the real Rust binary, installed into the environment's bin/ like ruff's and
# uv's), the `kgadvise` package (python/kgadvise) and its extension (python/src, pyo3 abi3 for Python >= 3.9).
# Both are linked with zig against glibc 2.17 (manylinux2014: Kaggle's image and any Linux of the last
# decade) and the wheel is checked with `auditwheel show`. Idempotent: the tools are installed once into
# .venv-wheel (pinned, from PyPI), a rerun rebuilds only what changed and replaces the wheel.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
log() { echo "[build-wheel] $*" >&2; }

# The tools, pinned: maturin (builds the wheels), ziglang (the zig that links for glibc 2.17), auditwheel
# (checks the manylinux tag).
TOOLS="maturin==1.16.0 ziglang==0.17.0 auditwheel==6.8.2"
VENV="$ROOT/.venv-wheel"
if [ "$(cat "$VENV/.tools" 2>/dev/null)" != "$TOOLS" ]; then
  log "installing $TOOLS into $VENV"
  python3 -m venv "$VENV"
  # shellcheck disable=SC2086
  "$VENV/bin/pip" install --quiet --disable-pip-version-check $TOOLS
  echo "$TOOLS" > "$VENV/.tools"
fi
export PATH="$VENV/bin:$PATH"

TARGET_DIR="$(cargo metadata --format-version 1 --no-deps --locked |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
OUT="$TARGET_DIR/wheels"
TRIPLE=x86_64-unknown-linux-gnu
ZIG=(--release --locked --zig --target "$TRIPLE" --compatibility manylinux2014)
# Symbols stripped in both builds (the same profile, so they share the compiled dependencies).
export CARGO_PROFILE_RELEASE_STRIP=symbols

# 1. The CLI binary for glibc 2.17, built by the same maturin and zig as the extension below: the same
# linker, so both builds share every dependency they compile alike (cargo rebuilds a crate whose linker
# changed). maturin builds it as a `bin` wheel, the way ruff's and uv's are built; the binary is taken
# from that wheel's scripts.
log "building the kgadvise binary for $TRIPLE (glibc 2.17)"
rm -rf "$OUT/cli" && mkdir -p "$OUT/cli"
maturin build "${ZIG[@]}" -b bin --manifest-path cli/Cargo.toml --out "$OUT/cli" >&2
# Files under <data>/scripts/ are installed into the environment's bin/ (PEP 427): the wheel's
# `kgadvise` command is the binary itself, no Python in between.
DATA="$ROOT/python/.wheel-data"
mkdir -p "$DATA/scripts"
python3 - "$OUT"/cli/*.whl "$DATA/scripts/kgadvise" <<'PY'
import os, sys, zipfile
wheel, dest = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    [name] = [n for n in z.namelist() if n.endswith(".data/scripts/kgadvise")]
    with z.open(name) as src, open(dest + ".tmp", "wb") as out:
        out.write(src.read())
os.chmod(dest + ".tmp", 0o755)
os.replace(dest + ".tmp", dest)
PY

# 2. The wheel: the extension linked by zig for manylinux2014, the package, the binary.
log "building the wheel"
mkdir -p "$OUT"
rm -f "$OUT"/kgadvise-*.whl
maturin build "${ZIG[@]}" --manifest-path python/Cargo.toml --out "$OUT" >&2
WHEEL="$(ls "$OUT"/kgadvise-*.whl)"

# 3. The check: every ELF file in the wheel (extension and binary) within manylinux2014's glibc and libraries.
SHOW="$(auditwheel show "$WHEEL")"
echo "$SHOW" >&2
if ! grep -q 'manylinux_2_17_x86_64' <<<"$SHOW"; then
  log "auditwheel does not find the wheel consistent with manylinux_2_17_x86_64"
  exit 1
fi
log "$(basename "$WHEEL"): $(stat -c %s "$WHEEL") bytes"
echo "$WHEEL"
