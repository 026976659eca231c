#!/usr/bin/env bash
# Sampled mode's costs, measured in one run:
#  1. one sampler tick with 1, 16 and 64 busy managed threads (the sampler's own stats: whole tick, time suspended);
#  2. the slowdown of a CPU-bound 2-thread program at 100 Hz and 1 kHz against no profiler, alternating variants.
# Usage: bench/sampler_cost.sh [runs]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${UMBRA_BUILD_DIR:-$root/build}"
runs="${1:-5}"
app="$build/bench/Spinners"
dotnet build "$root/bench/Spinners/Spinners.csproj" -c Release --nologo -v quiet -o "$app" \
  -p:BaseIntermediateOutputPath="$build/bench/spinners-obj/" >/dev/null
out="$(mktemp -d)"
stat() { python3 -c "import json,sys; s=json.load(open('$1'))['stats']['sampler']; print(s['$2'])"; }

echo "== one tick (10 ms interval, threads busy in managed code)"
for threads in 1 16 64; do
  "$build/umbra" run --mode sampled --interval-ms 10 -o "$out/t$threads" --format json -- \
    dotnet "$app/Spinners.dll" "$threads" $((500000 / threads)) >/dev/null 2>&1
  echo "threads=$threads tick_ns_mean=$(stat "$out/t$threads.json" tick_ns_mean) suspended_ns_mean=$(stat "$out/t$threads.json" suspended_ns_mean) suspended_ns_max=$(stat "$out/t$threads.json" suspended_ns_max) ticks=$(stat "$out/t$threads.json" ticks)"
done

echo "== slowdown of 2 CPU-bound threads"
declare -A results
for ((i = 0; i < runs; i++)); do
  for variant in none 100hz 1khz; do
    case "$variant" in
      none) ms="$(dotnet "$app/Spinners.dll" 2 500000 | sed -n 's/^elapsed_ms=\([0-9.]*\).*/\1/p')" ;;
      100hz) ms="$("$build/umbra" run --mode sampled --interval-ms 10 -o "$out/s" --format json -- dotnet "$app/Spinners.dll" 2 500000 2>/dev/null | sed -n 's/^elapsed_ms=\([0-9.]*\).*/\1/p')" ;;
      1khz) ms="$("$build/umbra" run --mode sampled --interval-ms 1 -o "$out/s" --format json -- dotnet "$app/Spinners.dll" 2 500000 2>/dev/null | sed -n 's/^elapsed_ms=\([0-9.]*\).*/\1/p')" ;;
    esac
    results[$variant]+="$ms "
    echo "run $i $variant ${ms} ms"
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
none="$(echo "${results[none]}" | median)"
for v in 100hz 1khz; do
  m="$(echo "${results[$v]}" | median)"
  echo "median $v: $m ms vs none $none ms: slowdown $(awk "BEGIN {printf \"%.1f%%\", 100 * ($m / $none - 1)}")"
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); runtime $(dotnet --list-runtimes | grep NETCore.App | tail -1 | cut -d' ' -f2)"
rm -rf "$out"
