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
BIN="$(bash scripts/kgadvise-bin.sh --release)"

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
  local best="" rss="" cpu=""
  for _ in $(seq "${REPEAT:-3}"); do
    /usr/bin/time -v -o "$OUT/time-$name.txt" "$@" > "$OUT/out-$name.txt"
    local wall kb
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$OUT/time-$name.txt")
    kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/time-$name.txt")
    c=$(awk -F': ' '/User time|System time/ {s+=$2} END {print s}' "$OUT/time-$name.txt")
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall; rss=$kb; cpu=$c; fi
  done
  echo "$name $best $rss $cpu"
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
echo "== timing (best of ${REPEAT:-3}; pandas once)" >&2
R_WC=$(run wc wc -l "$LOG")
R_KG=$(run kgadvise env KGADVISE_THREADS=1 "$BIN" diagnose "$LOG" --json)
R_KP=$(run kgadvise2 env KGADVISE_THREADS=2 "$BIN" diagnose "$LOG" --json)
R_PD=$(REPEAT=1 run pandas .venv-bench/bin/python bench/diagnose_pandas.py "$LOG")

LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
SIZE=$(stat -c %s "$LOG")
LINES=$(cat "$OUT/out-wc.txt" | awk '{print $1}')
python3 - "$SIZE" "$LINES" "$LOAD_START" "$LOAD_END" "$R_WC" "$R_KG" "$R_KP" "$R_PD" <<'PY'
import sys, json, platform, os, datetime
size, lines = int(sys.argv[1]), int(sys.argv[2])
load_start, load_end = sys.argv[3], sys.argv[4]
runs = {}
for r in sys.argv[5:]:
    name, wall, rss, cpu = r.split()
    runs[name] = (float(wall), int(rss), float(cpu))
kg = runs["kgadvise"][0]
cpu = "unknown CPU"
try:
    for l in open("/proc/cpuinfo"):
        if l.startswith("model name"):
            cpu = l.split(":", 1)[1].strip(); break
except OSError:
    pass
print(f"Measured {datetime.date.today()} on {cpu}, {os.cpu_count()} cores, Linux {platform.release()}; "
      f"log: {size/1e9:.2f} GB, {lines:,} lines, 2 GPUs, page cache warm; best of 3 (pandas once); "
      f"load average (1/5/15 min) {load_start} at the start, {load_end} at the end.\n")
print("| tool | wall s | CPU s (user+sys) | throughput MB/s | wall vs kgadvise | CPU vs kgadvise | peak RSS MiB |")
print("|---|---|---|---|---|---|---|")
for name, label in [("kgadvise", "`kgadvise diagnose --json` (1 thread)"),
                    ("kgadvise2", "`kgadvise diagnose --json` (KGADVISE_THREADS=2)"),
                    ("wc", "`wc -l`"), ("pandas", "pandas `read_csv` + groupby")]:
    wall, rss, cpu = runs[name]
    ratio = wall / kg if kg > 0 else float("nan")
    cratio = cpu / runs["kgadvise"][2] if runs["kgadvise"][2] > 0 else float("nan")
    print(f"| {label} | {wall:.2f} | {cpu:.2f} | {size/1e6/wall:.0f} | {ratio:.2f}x | {cratio:.2f}x | {rss/1024:.0f} |")
print()
best = min(kg, runs["kgadvise2"][0])
print(f"pandas / kgadvise = {runs['pandas'][0]/best:.1f}x wall, {runs['pandas'][2]/runs['kgadvise'][2]:.1f}x CPU (target >= 10x); "
      f"kgadvise / wc -l = {best/runs['wc'][0]:.1f}x wall, {runs['kgadvise'][2]/max(runs['wc'][2], 0.01):.1f}x CPU (target <= 2x); "
      f"kgadvise peak RSS = {runs['kgadvise'][1]/1024:.1f} MiB, {runs['kgadvise2'][1]/1024:.1f} MiB with 2 threads (target <= 64 MiB)")
PY
echo "== kgadvise verdicts: $(python3 -c "import json;print(json.load(open('$OUT/out-kgadvise.txt'))['verdicts'])")" >&2
if [ -z "${KEEP:-}" ]; then rm -f "$LOG"; fi
