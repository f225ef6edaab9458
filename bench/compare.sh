#!/usr/bin/env bash
# Benchmark of `kgadvise compare --metric auc --resamples 300` on 1,000,000 rows against a numpy
# implementation of the same paired bootstrap, in one run (same data, same machine, same moment).
#
# The numpy side uses the SAME counts-based algorithm as kgadvise (sort each model once; per resample:
# np.random integers -> np.bincount count vector -> one vectorised pass over the sorted order with
# tie groups), i.e. the fast way to do it in numpy, not the naive re-sort per resample.
# kgadvise is timed end to end (process start, reading and parsing both 1M-row CSVs, pairing by id,
# bootstrap, JSON out); numpy is timed for the bootstrap only (CSV loading reported separately).
#
# Needs: cargo, python3 with numpy (set PYTHON=/path/to/python, e.g. a venv with `pip install numpy`).
# Usage: bash bench/compare.sh [ROWS] [RESAMPLES]
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000}
RESAMPLES=${2:-300}
PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import numpy' 2>/dev/null; then
  echo "bench/compare.sh: $PYTHON has no numpy; run e.g. python3 -m venv /tmp/v && /tmp/v/bin/pip install numpy, then PYTHON=/tmp/v/bin/python bash bench/compare.sh" >&2
  exit 2
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

BIN="$(bash scripts/kgadvise-bin.sh --release)"

"$PYTHON" - "$WORK" "$ROWS" <<'PY'
import sys, numpy as np
work, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)
y = (rng.random(n) < 0.3).astype(np.int8)
s = y + rng.normal(0, 1.2, n)
ctrl = np.round(1 / (1 + np.exp(-(s + rng.normal(0, 1.0, n)))), 4)   # rounded: many ties
idea = np.round(1 / (1 + np.exp(-(s * 1.02 + rng.normal(0, 1.0, n)))), 4)
ids = np.arange(n)
for name, p in (("idea", idea), ("control", ctrl)):
    with open(f"{work}/{name}.csv", "w") as f:
        f.write("id,y_true,y_pred\n")
        np.savetxt(f, np.column_stack([ids, y, p]), fmt=["%d", "%d", "%.4f"], delimiter=",")
PY

# wall seconds and CPU seconds (user + sys) of each run: CPU time is the fairer figure on a busy machine
TIME=/usr/bin/time
"$TIME" -f "%e %U %S" -o "$WORK/t.txt" "$BIN" compare --idea "$WORK/idea.csv" --control "$WORK/control.csv" --metric auc --resamples "$RESAMPLES" --json > "$WORK/out.json"
"$TIME" -f "%e %U %S" -o "$WORK/t1.txt" "$BIN" compare --idea "$WORK/idea.csv" --control "$WORK/control.csv" --metric auc --resamples "$RESAMPLES" --threads 1 --json > "$WORK/out1.json"
read -r RUST_S U S < "$WORK/t.txt"
read -r RUST1_S U1 S1 < "$WORK/t1.txt"
RUST1_CPU=$(echo "$U1 + $S1" | bc -l)
cmp -s <(grep '"se"' "$WORK/out.json") <(grep '"se"' "$WORK/out1.json") || { echo "threads changed the answer" >&2; exit 1; }

"$PYTHON" - "$WORK" "$RESAMPLES" "$RUST_S" "$RUST1_S" "$(nproc)" "$RUST1_CPU" <<'PY'
import sys, time, json, numpy as np
work, R, rust_s, rust1_s, cores = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
rust1_cpu = float(sys.argv[6])
t = time.perf_counter()
a = np.loadtxt(f"{work}/idea.csv", delimiter=",", skiprows=1)
c = np.loadtxt(f"{work}/control.csv", delimiter=",", skiprows=1)
load_s = time.perf_counter() - t
y = a[:, 1].astype(bool)

def prepare(p):
    order = np.argsort(p, kind="stable")
    ps = p[order]
    starts = np.flatnonzero(np.r_[True, ps[1:] != ps[:-1]])
    return order, y[order], starts

def auc(prep, w):
    order, lab, starts = prep
    ws = w[order]
    gp = np.add.reduceat(ws * lab, starts).astype(np.float64)
    gn = np.add.reduceat(ws * ~lab, starts).astype(np.float64)
    neg_before = np.cumsum(gn) - gn
    P, N = gp.sum(), gn.sum()
    return (gp @ neg_before + 0.5 * gp @ gn) / (P * N)

t = time.perf_counter()
cpu = time.process_time()
pi, pc = prepare(a[:, 2]), prepare(c[:, 2])
n = len(y)
ones = np.ones(n, dtype=np.int64)
gain = auc(pi, ones) - auc(pc, ones)
rng = np.random.default_rng(42)
gains = np.empty(R)
for r in range(R):
    w = np.bincount(rng.integers(0, n, n), minlength=n)
    gains[r] = auc(pi, w) - auc(pc, w)
numpy_s = time.perf_counter() - t
numpy_cpu = time.process_time() - cpu
se = gains.std(ddof=1)
out = json.load(open(f"{work}/out.json"))
print(f"rows {n}, resamples {R}, metric auc")
print(f"kgadvise (release, end to end incl. CSV parsing, {cores} threads): {rust_s:.2f} s  gain {out['gain']:.6f} se {out['se']:.6f} z {out['z']:.2f}")
print(f"kgadvise --threads 1: {rust1_s:.2f} s wall, {rust1_cpu:.2f} s CPU (same answer)")
print(f"numpy counts-based bootstrap (excl. CSV load {load_s:.2f} s): {numpy_s:.2f} s wall, {numpy_cpu:.2f} s CPU  gain {gain:.6f} se {se:.6f} z {gain/se:.2f}")
print(f"ratio numpy / kgadvise, wall: {numpy_s / rust_s:.1f}x ({cores} threads), {numpy_s / rust1_s:.1f}x (1 thread); CPU, 1 thread each: {numpy_cpu / rust1_cpu:.1f}x")
PY
