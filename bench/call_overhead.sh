#!/usr/bin/env bash
# ns that shadow mode adds per managed call: bench/CallLoop without a profiler, under umbra without snapshots
# (--reconcile-ms 0), and under umbra's default (snapshots enabled, which moves ELT2 hooks to a slower path),
# alternating variants in one run; prints each run and the medians. Usage: bench/call_overhead.sh [runs] [calls]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
runs="${1:-5}"
calls="${2:-20000000}"
dll="$(build_bench CallLoop)"
out="$(mktemp -d)"
measure() {  # variant -> ns per call
  case "$1" in
    none) dotnet "$dll" "$calls" ;;
    hooks) "$build/umbra" run --reconcile-ms 0 -o "$out/shadow" --format json -- dotnet "$dll" "$calls" 2>/dev/null ;;
    shadow) "$build/umbra" run -o "$out/shadow" --format json -- dotnet "$dll" "$calls" 2>/dev/null ;;
    snapflag) "$build/umbra" run --reconcile-ms 60000 -o "$out/shadow" --format json -- dotnet "$dll" "$calls" 2>/dev/null ;;
  esac | sed -n 's/^ns_per_call=//p'
}
declare -A results
for ((i = 0; i < runs; i++)); do
  for variant in none hooks snapflag shadow; do
    v="$(measure "$variant")"
    results[$variant]+="$v "
    echo "run $i $variant $v ns/call"
  done
done
none="$(echo "${results[none]}" | median)"
hooks="$(echo "${results[hooks]}" | median)"
snapflag="$(echo "${results[snapflag]}" | median)"
shadow="$(echo "${results[shadow]}" | median)"
machine_line
echo "median ns/call: none=$none"
for v in hooks snapflag shadow; do
  m="${!v}"
  echo "  $v=$m added=$(awk "BEGIN {printf \"%.2f\", $m - $none}") ratio=$(awk "BEGIN {printf \"%.1f\", $m / $none}")"
done
echo "(hooks: --reconcile-ms 0; snapflag: snapshots enabled but one per minute; shadow: the default, one per 100 ms)"
rm -rf "$out"
