#!/usr/bin/env bash
# Benchmark of `kgadvise diagnose` on a 1 GB 2-GPU nvidia-smi CSV log, against `wc -l` (the floor: read the
# file and count lines) and pandas (read_csv + groupby mean/quantiles), in one run on the same file.
# Prints throughput, ratios and peak RSS (GNU time -v) as a Markdown table for BENCHMARKS.md.
#
#   bash bench/diagnose.sh              # 1 GB (BENCH_BYTES=200000000 for a quick run; KEEP=1 keeps the log)
#
# Needs: cargo, python3 with venv, /usr/bin/time. pandas is installed from PyPI into .venv-bench (once).
set -euo pipefail
cd "$(dirname "$0")/.."
BYTES="${BENCH_BYTES:-1000000000}"
OUT=bench-out
LOG="$OUT/diagnose-$BYTES.csv"
mkdir -p "$OUT"

echo "== building kgadvise (release)" >&2
cargo build --release -q -p kgadvise-cli
BIN=target/release/kgadvise

if ! .venv-bench/bin/python -c "import pandas" 2>/dev/null; then
  echo "== installing pandas into .venv-bench" >&2
  python3 -m venv .venv-bench
  .venv-bench/bin/pip install -q --disable-pip-version-check pandas
fi

if [ ! -f "$LOG" ]; then
  echo "== generating $LOG" >&2
  python3 bench/gen_nvsmi_log.py "$LOG" "$BYTES"
fi
cat "$LOG" > /dev/null   # warm the page cache: every tool reads from memory

# run NAME CMD...: best wall time of $REPEAT runs (GNU time), and the peak RSS of the best one.
run() {
  local name=$1; shift
  local best="" rss=""
  for _ in $(seq "${REPEAT:-3}"); do
    /usr/bin/time -v -o "$OUT/time-$name.txt" "$@" > "$OUT/out-$name.txt"
    local wall kb
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$OUT/time-$name.txt")
    kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/time-$name.txt")
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall; rss=$kb; fi
  done
  echo "$name $best $rss"
}

echo "== timing (best of ${REPEAT:-3}; pandas once)" >&2
R_WC=$(run wc wc -l "$LOG")
R_KG=$(run kgadvise "$BIN" diagnose "$LOG" --json)
R_PD=$(REPEAT=1 run pandas .venv-bench/bin/python bench/diagnose_pandas.py "$LOG")

SIZE=$(stat -c %s "$LOG")
LINES=$(cat "$OUT/out-wc.txt" | awk '{print $1}')
python3 - "$SIZE" "$LINES" "$R_WC" "$R_KG" "$R_PD" <<'PY'
import sys, json, platform, os, datetime
size, lines = int(sys.argv[1]), int(sys.argv[2])
runs = {}
for r in sys.argv[3:]:
    name, wall, rss = r.split()
    runs[name] = (float(wall), int(rss))
kg = runs["kgadvise"][0]
cpu = "unknown CPU"
try:
    for l in open("/proc/cpuinfo"):
        if l.startswith("model name"):
            cpu = l.split(":", 1)[1].strip(); break
except OSError:
    pass
print(f"Measured {datetime.date.today()} on {cpu}, {os.cpu_count()} cores, Linux {platform.release()}; "
      f"log: {size/1e9:.2f} GB, {lines:,} lines, 2 GPUs, page cache warm; best of 3 (pandas once).\n")
print("| tool | wall s | throughput MB/s | vs kgadvise | peak RSS MiB |")
print("|---|---|---|---|---|")
for name, label in [("kgadvise", "`kgadvise diagnose --json`"), ("wc", "`wc -l`"), ("pandas", "pandas `read_csv` + groupby")]:
    wall, rss = runs[name]
    ratio = wall / kg if kg > 0 else float("nan")
    print(f"| {label} | {wall:.2f} | {size/1e6/wall:.0f} | {ratio:.2f}x | {rss/1024:.0f} |")
print()
print(f"pandas / kgadvise = {runs['pandas'][0]/kg:.1f}x (target >= 10x); "
      f"kgadvise / wc -l = {kg/runs['wc'][0]:.1f}x (target <= 2x); "
      f"kgadvise peak RSS = {runs['kgadvise'][1]/1024:.1f} MiB (target <= 64 MiB)")
PY
echo "== kgadvise verdicts: $(python3 -c "import json;print(json.load(open('$OUT/out-kgadvise.txt'))['verdicts'])")" >&2
if [ -z "${KEEP:-}" ]; then rm -f "$LOG"; fi
