#!/usr/bin/env bash
# Runs several presets interleaved, ROUNDS times (A B C ... A B C ...), so machine noise shows as spread between the
# rounds instead of as a difference between presets, then prints the comparison table (jvm-tuning/table.py).
#   jvm-tuning/run-matrix.sh [ROUNDS] [PRESET...]      default: 2 rounds of all five presets, "gc" scenario
# Results: jvm-tuning/results/<session>/<round>-<preset>/ (MEASURE_* variables pass through to measure.sh).
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:-2}"; shift || true
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(g1-default g1-low-pause zgc zgc-generational parallel)
session="$here/jvm-tuning/results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$session"
# Build once up front, so the first measurement does not also pay for Maven.
bash "$here/jvm-tuning/measure.sh" --build-only || exit 1
for r in $(seq 1 "$rounds"); do
  for p in "${presets[@]}"; do
    MEASURE_OUT="$session/$r-$p" bash "$here/jvm-tuning/measure.sh" "$p" || echo "run-matrix: $p round $r failed" >&2
  done
done
python3 "$here/jvm-tuning/table.py" "$session" | tee "$session/table.md"
