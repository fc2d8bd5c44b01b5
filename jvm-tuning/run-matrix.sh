#!/usr/bin/env bash
# Runs several presets interleaved, ROUNDS times (A B C ... A B C ...), so machine noise shows as spread between the
# rounds instead of as a difference between presets, then prints the comparison table (jvm-tuning/table.py).
#   jvm-tuning/run-matrix.sh [ROUNDS] [PRESET...]      default: 2 rounds of all five presets, "gc" scenario
#   MEASURE_TARGET=openfire jvm-tuning/run-matrix.sh [ROUNDS] [PRESET...]
#                                                      mucscale inside Openfire (measure-openfire.sh, OPENFIRE_HOME
#                                                      needed): default 2 rounds of all six presets, ref-5000 at a
#                                                      fixed rate, each preset in MEASURE_FORM (sysconfig)
# Results: jvm-tuning/results/<session>/<round>-<preset>/ (MEASURE_* variables pass through to the measuring script).
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:-2}"; shift || true
presets=("$@")
case "${MEASURE_TARGET:-standalone}" in
  standalone)
    script="$here/jvm-tuning/measure.sh"; form=()
    [ ${#presets[@]} -gt 0 ] || presets=(g1-default g1-low-pause zgc zgc-generational parallel) ;;
  openfire)
    script="$here/jvm-tuning/measure-openfire.sh"; form=("${MEASURE_FORM:-sysconfig}")
    [ ${#presets[@]} -gt 0 ] || presets=(g1-default g1-low-pause zgc zgc-generational parallel shenandoah) ;;
  *) echo "run-matrix: MEASURE_TARGET is standalone or openfire, was '$MEASURE_TARGET'" >&2; exit 2 ;;
esac
session="$here/jvm-tuning/results/$(date -u +%Y%m%dT%H%M%SZ)${MEASURE_TARGET:+-$MEASURE_TARGET}"
mkdir -p "$session"
# Build once up front, so the first measurement does not also pay for Maven.
bash "$script" --build-only || exit 1
for r in $(seq 1 "$rounds"); do
  for p in "${presets[@]}"; do
    MEASURE_OUT="$session/$r-$p" bash "$script" "$p" "${form[@]}" || echo "run-matrix: $p round $r failed" >&2
  done
done
python3 "$here/jvm-tuning/table.py" "$session" | tee "$session/table.md"
