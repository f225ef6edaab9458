#!/usr/bin/env bash
# The live watch's own CPU cost per sample (issue 25: under 1 % of one core at a 1 s interval, so it does not
# slow the training it watches). Runs `kgadvise sample --live --interval-ms 1000` for $SECONDS_RUN seconds
# (default 60) over a fake nvidia-smi that prints one 2xT4 sample a second (as `-lms 1000` does), twice:
# stdout to a file (plain lines) and in a pseudo-terminal (the in-place view, through `script`). The CPU is
# the kgadvise process's own (its threads' time on CPU from /proc/PID/task/*/schedstat, not its children:
# nvidia-smi's cost is the same for every tool). Then gpustat and nvitop, side by side at the same interval, when installed and when
# a GPU answers them (they need NVIDIA's NVML; without a GPU the line says so).
# Usage: bash bench/live-watch-cost.sh [path/to/kgadvise]   (default: a release build of this checkout)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${1:-}"
if [ -z "$BIN" ]; then
  cargo build --release --locked -p kgadvise-cli --bin kgadvise >&2
  BIN="$(cargo metadata --format-version 1 --no-deps --locked |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release/kgadvise"
fi
RUN_S="${SECONDS_RUN:-60}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cat > "$WORK/nvidia-smi" <<'FAKE'
#!/bin/sh
echo "timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], power.limit [W]"
while :; do
  t=$(date -u '+%Y/%m/%d %H:%M:%S.000')
  echo "$t, 0, Tesla T4, 93 %, 9216 MiB, 15360 MiB, 66.50 W, 70.00 W"
  echo "$t, 1, Tesla T4, 0 %, 0 MiB, 15360 MiB, 9.10 W, 70.00 W"
  sleep 1
done
FAKE
chmod +x "$WORK/nvidia-smi"
export KGADVISE_NVIDIA_SMI="$WORK/nvidia-smi"

# CPU seconds of one process (its own threads, not its children), in nanoseconds from each thread's
# schedstat (the ticks of /proc/PID/stat are 10 ms: too coarse for a minute of a quiet process).
cpu_of() { cat /proc/"$1"/task/*/schedstat | awk '{ ns += $1 } END { print ns / 1e9 }'; }

# measure NAME PID: waits RUN_S, reads the process's CPU, prints a table row.
measure() {
  local name="$1" pid="$2"
  sleep "$RUN_S"
  local cpu
  cpu="$(cpu_of "$pid" 2>/dev/null || echo nan)"
  kill -INT "$pid" 2>/dev/null || true
  sleep 1
  kill "$pid" 2>/dev/null || true
  python3 -c "
cpu, run = float('$cpu'), float('$RUN_S')
print(f'| {\"$name\"} | {run:.0f} | {cpu:.3f} | {1000 * cpu / run:.2f} | {100 * cpu / run:.3f} % |')"
}

echo "Measured $(date -u +%Y-%m-%d) on $(uname -m), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start; ${RUN_S} s at 1 s per sample (2 GPUs)."
echo
echo "| tool | s | CPU s | CPU ms per sample | share of one core |"
echo "|---|---|---|---|---|"

"$BIN" sample --live --interval-ms 1000 > "$WORK/plain.txt" 2>&1 &
measure "kgadvise sample --live (plain lines, stdout a file)" $!

if command -v script >/dev/null; then
  script -qfc "$BIN sample --live --interval-ms 1000" "$WORK/pty.txt" > /dev/null 2>&1 &
  spid=$!
  sleep 1
  kpid="$(pgrep -P "$(pgrep -P "$spid" | head -n 1)" -x kgadvise || pgrep -n -x kgadvise)"
  measure "kgadvise sample --live (in-place view in a pty)" "$kpid"
  kill "$spid" 2>/dev/null || true
fi

for tool in "gpustat --interval 1" "nvitop --once"; do
  name="${tool%% *}"
  if ! command -v "$name" >/dev/null; then
    echo "| $name | - | - | - | not installed (pip install $name) |"
  elif ! timeout 10 $name >/dev/null 2>&1 < /dev/null && [ "$name" = gpustat ]; then
    echo "| $name | - | - | - | not measured: no GPU answers NVML here |"
  elif [ "$name" = gpustat ]; then
    $tool > /dev/null 2>&1 &
    measure "gpustat --interval 1" $!
  else
    echo "| nvitop | - | - | - | not measured: its monitor needs a terminal and NVML |"
  fi
done
