#!/usr/bin/env bash
# Sampled mode's costs, measured in one run:
#  1. one sampler tick with 1, 16 and 64 busy managed threads (the sampler's own stats: whole tick, time suspended);
#  2. the slowdown of a CPU-bound 2-thread program at 100 Hz and 1 kHz against no profiler, alternating variants.
# Usage: bench/sampler_cost.sh [runs]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
runs="${1:-5}"
dll="$(build_bench Spinners)"
out="$(mktemp -d)"
stat() { python3 -c "import json,sys; s=json.load(open('$1'))['stats']['sampler']; print(s['$2'])"; }

echo "== one tick (10 ms interval, threads busy in managed code)"
for threads in 1 16 64; do
  "$build/umbra" run --mode sampled --interval-ms 10 -o "$out/t$threads" --format json -- \
    dotnet "$dll" "$threads" $((500000 / threads)) >/dev/null 2>&1
  echo "threads=$threads tick_ns_mean=$(stat "$out/t$threads.json" tick_ns_mean) suspended_ns_mean=$(stat "$out/t$threads.json" suspended_ns_mean) suspended_ns_max=$(stat "$out/t$threads.json" suspended_ns_max) ticks=$(stat "$out/t$threads.json" ticks)"
done

echo "== slowdown of 2 CPU-bound threads"
declare -A results
for ((i = 0; i < runs; i++)); do
  for variant in none 100hz 1khz; do
    case "$variant" in
      none) ms="$(dotnet "$dll" 2 500000 | sed -n 's/^elapsed_ms=\([0-9.]*\).*/\1/p')" ;;
      100hz) ms="$("$build/umbra" run --mode sampled --interval-ms 10 -o "$out/s" --format json -- dotnet "$dll" 2 500000 2>/dev/null | sed -n 's/^elapsed_ms=\([0-9.]*\).*/\1/p')" ;;
      1khz) ms="$("$build/umbra" run --mode sampled --interval-ms 1 -o "$out/s" --format json -- dotnet "$dll" 2 500000 2>/dev/null | sed -n 's/^elapsed_ms=\([0-9.]*\).*/\1/p')" ;;
    esac
    results[$variant]+="$ms "
    echo "run $i $variant ${ms} ms"
  done
done
none="$(echo "${results[none]}" | median)"
for v in 100hz 1khz; do
  m="$(echo "${results[$v]}" | median)"
  echo "median $v: $m ms vs none $none ms: slowdown $(awk "BEGIN {printf \"%.1f%%\", 100 * ($m / $none - 1)}")"
done
machine_line
rm -rf "$out"
