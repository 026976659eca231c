#!/usr/bin/env bash
# Shadow mode's sampler, measured in one run: the cost of a shadow-sampling tick (no suspension) and of a
# reconciliation (snapshot + alignment, under suspension), for 1, 16 and 64 busy threads at stack depths 10 and
# 1,000; and hook cost per call with the sampler on (stack snapshots enabled) against shadow mode's hooks alone.
# Usage: bench/hybrid_cost.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
dll="$(build_bench Spinners)"
out="$(mktemp -d)"
stat() { python3 -c "import json, sys; sys.setrecursionlimit(1000000); s=json.load(open('$1'))['stats']; print(s$2)"; }
echo "threads depth  shadow_sample_ns  reconcile_ns  suspend_wait_ns  suspended_ns  snapshots frames_compared unexplained"
for depth in 10 1000; do
  for threads in 1 16 64; do
    "$build/umbra" run --interval-ms 10 --reconcile-ms 50 -o "$out/h" --format json -- \
      dotnet "$dll" "$threads" $((4000 / threads + 20)) "$depth" >/dev/null 2>&1
    f="$out/h.json"
    printf "%7s %5s  %16s  %12s  %15s  %12s  %9s %15s %11s\n" "$threads" "$depth" \
      "$(stat "$f" "['sampler']['shadow_sample_ns_mean']")" "$(stat "$f" "['sampler']['snapshot_ns_mean']")" \
      "$(stat "$f" "['sampler']['suspend_wait_ns_mean']")" \
      "$(stat "$f" "['sampler']['suspended_ns_mean']")" "$(stat "$f" "['reconcile']['snapshots']")" \
      "$(stat "$f" "['reconcile']['frames_compared']")" "$(stat "$f" "['reconcile']['unexplained']")"
  done
done
machine_line
rm -rf "$out"
