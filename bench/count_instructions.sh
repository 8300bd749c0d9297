#!/usr/bin/env bash
# Instructions per skinned vertex of each kernel A/B case of sinew-bench, counted
# by valgrind's callgrind (every thread, submit + wait of one dispatch: the JIT
# code lavapipe runs, plus a fixed per-dispatch cost that is small next to
# 1,048,576 vertices). Deterministic, unlike the timings on a shared machine.
# Usage: bench/count_instructions.sh [BUILD_DIR] [CASES]   (CASES: --kernel-cases list)
# Round 0 compiles the pipelines; the counts are those of round 1.
set -euo pipefail
build=${1:-build}
cases=${2:-dqs,dqs-scale,dqs+bulge}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" \
  "$build/bin/sinew-bench" --kernels-only --kernel-rounds 2 --kernel-cases "$cases" >/dev/null 2>"$dir/log" ||
  { tail -20 "$dir/log"; exit 1; }
printf '%-24s %-8s %4s %16s %10s\n' case kernel wg instructions per_vertex
for f in "$dir"/cg.out.*; do
  label=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
  IFS='|' read -r tag round verts kern wg name <<<"$label"
  [ "$tag" = kcase ] && [ "$round" = 1 ] || continue
  ir=$(sed -n 's/^summary: //p' "$f" | awk '{print $1}')
  awk -v n="$name" -v k="$kern" -v w="$wg" -v ir="$ir" -v v="$verts" \
    'BEGIN { printf "%-24s %-8s %4s %16d %10.1f\n", n, k, w, ir, ir / v }'
done
