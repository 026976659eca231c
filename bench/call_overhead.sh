#!/usr/bin/env bash
# ns that shadow mode adds per managed call: bench/CallLoop without a profiler, under umbra without snapshots
# (--reconcile-ms 0), and under umbra's default (snapshots enabled, which moves ELT2 hooks to a slower path),
# alternating variants in one run; prints each run and the medians. Usage: bench/call_overhead.sh [runs] [calls]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${UMBRA_BUILD_DIR:-$root/build}"
runs="${1:-5}"
calls="${2:-20000000}"
app="$build/bench/CallLoop"
dotnet build "$root/bench/CallLoop/CallLoop.csproj" -c Release --nologo -v quiet -o "$app" \
  -p:BaseIntermediateOutputPath="$build/bench/obj/" >/dev/null
out="$(mktemp -d)"
measure() {  # variant -> ns per call
  case "$1" in
    none) dotnet "$app/CallLoop.dll" "$calls" ;;
    hooks) "$build/umbra" run --reconcile-ms 0 -o "$out/shadow" --format json -- dotnet "$app/CallLoop.dll" "$calls" 2>/dev/null ;;
    shadow) "$build/umbra" run -o "$out/shadow" --format json -- dotnet "$app/CallLoop.dll" "$calls" 2>/dev/null ;;
    snapflag) "$build/umbra" run --reconcile-ms 60000 -o "$out/shadow" --format json -- dotnet "$app/CallLoop.dll" "$calls" 2>/dev/null ;;
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
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
none="$(echo "${results[none]}" | median)"
hooks="$(echo "${results[hooks]}" | median)"
snapflag="$(echo "${results[snapflag]}" | median)"
shadow="$(echo "${results[shadow]}" | median)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); runtime $(dotnet --list-runtimes | grep NETCore.App | tail -1 | cut -d' ' -f2)"
echo "median ns/call: none=$none"
for v in hooks snapflag shadow; do
  m="${!v}"
  echo "  $v=$m added=$(awk "BEGIN {printf \"%.2f\", $m - $none}") ratio=$(awk "BEGIN {printf \"%.1f\", $m / $none}")"
done
echo "(hooks: --reconcile-ms 0; snapflag: snapshots enabled but one per minute; shadow: the default, one per 100 ms)"
rm -rf "$out"
