#!/usr/bin/env bash
# Runs a list of end-to-end benchmarks one after another, bounded in time, and prints one markdown table.
#
#   bench/e2e/matrix.sh [--budget-min N] [--list FILE] [--pause-s S] [-- loadgen options for every run]
#
# The list: FILE (or stdin when FILE is "-") with one "server variant scenario [loadgen options]" per line ("#"
# comments), or, without --list, the default matrix below (openfire lines only when bench/e2e/openfire.sh exists).
# Each run is bench/e2e/run.sh (server on CPU 0, generator on CPU 1, results under bench/e2e/results/). A run starts
# only if its worst case (the scenario's deadline + run.sh's slack) still fits into the budget (default 240 min);
# the rest are listed as skipped. Between runs it pauses --pause-s (default 15) s so the machine settles.
# Output: the table on stdout and in bench/e2e/results/matrix-<UTC time>.md, plus the log matrix-<time>.log.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
budget_min=240; list=""; pause_s=15; common=()
while [ $# -gt 0 ]; do
  case "$1" in
    --budget-min) budget_min="$2"; shift 2 ;;
    --list) list="$2"; shift 2 ;;
    --pause-s) pause_s="$2"; shift 2 ;;
    --) shift; common=("$@"); break ;;
    *) sed -n '2,13p' "$0" >&2; exit 2 ;;
  esac
done

default_list() {
  local s extra
  for s in ref-5000 rooms50 joinstorm; do
    # joinstorm: a slow server's presence storm (427 joins, ~180,000 presence stanzas) gets 120 s to complete and
    # the 5 msg/s check 30 s to come out of the backlog, so the join rate is measured, not the default timeouts.
    # Joins are re-sent only after 60 s (default 10 s): a re-sent join of someone already in the room is a presence
    # update that the room broadcasts to everyone again, so early re-sends multiply a slow server's storm (seen at
    # small scale: 160 of 200 joins re-sent and join p99 tripled).
    extra=""; [ "$s" = joinstorm ] && extra="--set join.timeoutMs=120000 --set join.resendAfterMs=60000 --set rampDown.drainMs=30000"
    echo "prosody muc $s $extra"
    echo "prosody mucscale $s $extra"
    echo "ejabberd muc $s $extra"
    echo "ejabberd mucscale $s $extra"
    if [ -x "$here/openfire.sh" ]; then
      echo "openfire muc $s $extra"
      echo "openfire mucscale $s $extra"
    fi
  done
  # issue 6: room log on (HSQLDB, MariaDB) against off, same server and scenario
  echo "prosody mucscale-nolog rooms50"
  echo "prosody mucscale-mariadb rooms50"
}
if [ "$list" = --print-default ] || [ "${1:-}" = --print-default ]; then default_list; exit 0; fi
if [ -z "$list" ]; then lines="$(default_list)"
elif [ "$list" = - ]; then lines="$(cat)"
else lines="$(cat "$list")"; fi

# build once up front (own suffix), so no run pays for a build
if [ ! -f "${E2E_LOADGEN_JAR:-$root/loadgen/target-e2e/mucscale-loadgen.jar}" ] \
   || [ ! -f "${E2E_STANDALONE_JAR:-$root/standalone/target-e2e/mucscale-standalone.jar}" ] || [ "${E2E_REBUILD:-0}" = 1 ]; then
  echo "matrix: building loadgen and standalone (suffix -e2e, tests skipped)" >&2
  (cd "$root" && mvn -B -ntp -q -pl loadgen,standalone -am -DskipTests -Dmucscale.build.suffix=-e2e package >&2)
fi
export E2E_LOADGEN_JAR="${E2E_LOADGEN_JAR:-$root/loadgen/target-e2e/mucscale-loadgen.jar}"

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$here/results"
log="$here/results/matrix-$stamp.log"
table="$here/results/matrix-$stamp.md"
start=$(date +%s)
summaries=(); notes=()
while read -r server variant scenario rest; do
  [ -z "${server:-}" ] && continue
  case "$server" in \#*) continue ;; esac
  # shellcheck disable=SC2206
  extra=(${rest:-})
  deadline="$(MUCSCALE_LOADGEN_JAR="$E2E_LOADGEN_JAR" "$root/bin/mucscale-loadgen" show "$scenario" "${extra[@]}" "${common[@]}" 2>/dev/null \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["run"]["deadlineS"])' 2>/dev/null || echo bad)"
  if [ "$deadline" = bad ]; then notes+=("$server $variant $scenario: scenario or overrides rejected"); continue; fi
  worst=$(( deadline + ${E2E_RUN_SLACK_S:-180} + 60 ))
  elapsed=$(( $(date +%s) - start ))
  if [ $(( elapsed + worst )) -gt $(( budget_min * 60 )) ]; then
    notes+=("$server $variant $scenario: skipped (worst case ${worst}s does not fit the ${budget_min} min budget)")
    continue
  fi
  echo "matrix: $(date -u +%H:%M:%S) $server $variant $scenario (worst case ${worst}s)" | tee -a "$log" >&2
  rc=0
  before="$(ls -d "$here"/results/*-"$server-$variant-$scenario" 2>/dev/null | tail -n 1 || true)"
  "$here/run.sh" "$server" "$variant" "$scenario" "${extra[@]}" "${common[@]}" >> "$log" 2>&1 < /dev/null || rc=$?
  dir="$(ls -d "$here"/results/*-"$server-$variant-$scenario" 2>/dev/null | tail -n 1 || true)"
  if [ -n "$dir" ] && [ "$dir" != "$before" ] && [ -f "$dir/summary.json" ]; then
    summaries+=("$dir/summary.json")
  else
    notes+=("$server $variant $scenario: no results (see $log)")
  fi
  [ "$rc" = 0 ] || notes+=("$server $variant $scenario: run.sh exit $rc (see $log)")
  sleep "$pause_s"
done <<< "$lines"

{
  echo "## bench/e2e matrix $stamp"
  echo
  echo "Machine: $(nproc) CPUs, $(uname -r), load average at the end $(cut -d' ' -f1-3 /proc/loadavg); commit $(cd "$root" && git rev-parse --short HEAD)."
  echo "Server pinned to CPU ${E2E_SERVER_CPU:-0}, generator to CPU ${E2E_GEN_CPU:-1}. Common loadgen options: ${common[*]:-none}."
  echo
  if [ ${#summaries[@]} -gt 0 ]; then python3 "$here/summarize.py" table "${summaries[@]}"; fi
  echo
  for n in "${notes[@]}"; do echo "- $n"; done
} | tee "$table"
echo "matrix: table in $table, log in $log" >&2
