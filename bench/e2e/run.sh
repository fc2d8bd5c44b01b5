#!/usr/bin/env bash
# One end-to-end benchmark run; see bench/e2e/README.md.
#
#   bench/e2e/run.sh <server> <variant> <scenario> [loadgen options, e.g. --set users=200 --set levels.durationS=5]
#
# Starts bench/e2e/<server>.sh <variant> in a temp workdir (server pinned to CPU $E2E_SERVER_CPU, default 0), runs
# the loadgen scenario pinned to CPU $E2E_GEN_CPU (default 1) over plain TCP + SASL PLAIN with --server-pid for every
# server process, stops the server, and leaves in bench/e2e/results/<UTC time>-<server>-<variant>-<scenario>/:
# the loadgen JSON/CSV/HTML, loadgen.log, server.env, meta.json, the server's logs, and summary.json + summary.md.
# E2E_WARMUP_RUNS=N (default 0): before the measured run, run the same scenario with the same options N times against
# the same server (same pinning; each into $out/warmup-<i>/ with its own loadgen.log; not summarized), so the measured
# run meets a warm server (JIT-compiled, caches filled) instead of one started seconds ago; E2E_WARMUP_PAUSE_S (5)
# between runs. Reruns reuse the accounts (registration answers `conflict`, then login) and re-create the rooms.
# Bounded: the loadgen scenario's own deadline, plus `timeout` at deadline + E2E_RUN_SLACK_S (180) s, per run.
# Exit: loadgen's exit code (0 done), 1 the server did not start, 2 bad usage, 124 timeout.
# Environment: E2E_LOADGEN_JAR, E2E_STANDALONE_JAR (default: <module>/target-e2e/*.jar, built when missing),
# E2E_PIN=0 (no pinning), E2E_KEEP_WORK=1 (keep the temp workdir), LOADGEN_JAVA_OPTS, E2E_MUCSCALE_JAVA_OPTS,
# E2E_MUCSCALE_PROPS ("key=value key=value": extra mucscale settings).
# E2E_BEFORE_LOAD="cmd": run (bash -c) once the server is up, before any loadgen run; failing stops the run.
# E2E_BESIDE_LOAD="cmd": started (bash -c, pinned like the generator) just before the measured loadgen run, TERM'd
# after it (then up to 30 s to finish). Both see E2E_WORK, E2E_OUT, C2S_PORT, DOMAIN, MUC_DOMAIN; their output goes to
# $out/before-load.log and $out/beside-load.log. Used by archive-bench.sh (issue 16).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[ $# -ge 3 ] || { sed -n '2,23p' "$0" >&2; exit 2; }
server="$1"; variant="$2"; scenario="$3"; shift 3
script="$here/$server.sh"
warmup_runs="${E2E_WARMUP_RUNS:-0}"
warmup_pause_s="${E2E_WARMUP_PAUSE_S:-5}"
case "$warmup_runs" in ''|*[!0-9]*) echo "run.sh: E2E_WARMUP_RUNS must be a whole number, was '$warmup_runs'" >&2; exit 2;; esac
case "$warmup_pause_s" in ''|*[!0-9]*) echo "run.sh: E2E_WARMUP_PAUSE_S must be a whole number, was '$warmup_pause_s'" >&2; exit 2;; esac
[ -x "$script" ] || { echo "run.sh: no server script $script" >&2; exit 2; }

source "$root/bench/e2e/lib.sh"
e2e_loadgen_setup run.sh   # bench/e2e/lib.sh: MUCSCALE_LOADGEN_JAR and gen_pin

# the effective scenario (validates the overrides before anything starts) and its deadline
deadline="$("$root/bin/mucscale-loadgen" show "$scenario" "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["run"]["deadlineS"])')" \
  || { echo "run.sh: loadgen rejected the scenario or its overrides" >&2; exit 2; }

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
out="$here/results/$stamp-$server-$variant-$scenario"
mkdir -p "$out"
work="$(mktemp -d "/tmp/e2e-$server-$variant.XXXXXX")"
load1_before="$(cut -d' ' -f1 /proc/loadavg)"
if awk -v l="$load1_before" 'BEGIN { exit !(l > 0.5) }'; then
  echo "run.sh: WARNING: load average $load1_before before the run: the machine is not idle, rates will be low" >&2
fi

beside_pid=
finish() {
  [ -n "$beside_pid" ] && kill -TERM "$beside_pid" 2>/dev/null || true
  "$script" stop "$work" || true
  for f in "$work"/server.env "$work"/mucscale.log "$work"/mucscale.properties "$work"/prosody/prosody.log \
           "$work"/prosody/prosody.cfg.lua "$work"/ejabberd/ejabberd.yml "$work"/ejabberd/logs/ejabberd.log \
           "$work"/ejabberd/logs/error.log "$work"/mariadb/error.log "$work"/server.log; do
    rel="${f#"$work"/}"
    [ -f "$f" ] && tail -c 2000000 "$f" > "$out/server-${rel//\//-}" || true
  done
  if [ "${E2E_KEEP_WORK:-0}" = 1 ]; then echo "run.sh: workdir kept: $work" >&2; else rm -rf "$work"; fi
}
trap finish EXIT
trap 'exit 130' INT TERM

echo "run.sh: $server $variant $scenario -> $out" >&2
"$script" start "$work" "$variant" > "$out/server-start.log" 2>&1 || { cat "$out/server-start.log" >&2; exit 1; }
# shellcheck disable=SC1091
source "$work/server.env"
cp "$work/server.env" "$out/server.env"
pids_csv="${SERVER_PIDS// /,}"
export E2E_WORK="$work" E2E_OUT="$out" C2S_PORT DOMAIN MUC_DOMAIN
if [ -n "${E2E_BEFORE_LOAD:-}" ]; then
  echo "run.sh: before the load: $E2E_BEFORE_LOAD" >&2
  bash -c "$E2E_BEFORE_LOAD" > "$out/before-load.log" 2>&1 || { cat "$out/before-load.log" >&2; exit 1; }
  tail -n 3 "$out/before-load.log" >&2
fi

# one loadgen run of the scenario against this server: loadgen <label> <out dir> (then the caller's overrides)
loadgen() {
  local label="$1" dir="$2"
  shift 2
  timeout --kill-after=30 "$(( deadline + ${E2E_RUN_SLACK_S:-180} ))" "${gen_pin[@]}" "$root/bin/mucscale-loadgen" run \
    "$scenario" --server "127.0.0.1:$C2S_PORT" --domain "$DOMAIN" --muc "$MUC_DOMAIN" --server-pid "$pids_csv" \
    --label "$label" --out "$dir" --set server.tls=none --set server.sasl=PLAIN \
    ${HTTP_PORT:+--set clients.websocketPort=$HTTP_PORT} "$@"
}

# warm-up runs: the same scenario and options against the same server, results kept apart and not summarized
warmup_exits=""
for ((i = 1; i <= warmup_runs; i++)); do
  wdir="$out/warmup-$i"
  mkdir -p "$wdir"
  echo "run.sh: warm-up run $i/$warmup_runs -> $wdir" >&2
  wstatus=0
  loadgen "$LABEL-$scenario-warmup$i" "$wdir" "$@" > "$wdir/loadgen.log" 2>&1 || wstatus=$?
  warmup_exits="$warmup_exits $wstatus"
  # its closing summary (stopped by, joined, join p99 and joins/s), so a failing warm-up is seen at once
  tail -n 6 "$wdir/loadgen.log" | sed 's/^/run.sh:   warm-up: /' >&2
  [ "$wstatus" = 0 ] || echo "run.sh: WARNING: warm-up run $i exited $wstatus (see $wdir/loadgen.log); going on" >&2
  sleep "$warmup_pause_s"   # the server finishes closing the last run's sessions and destroying its rooms
done

if [ -n "${E2E_BESIDE_LOAD:-}" ]; then
  echo "run.sh: beside the load: $E2E_BESIDE_LOAD" >&2
  "${gen_pin[@]}" bash -c "$E2E_BESIDE_LOAD" > "$out/beside-load.log" 2>&1 &
  beside_pid=$!
fi
status=0
set -x
loadgen "$LABEL-$scenario" "$out" "$@" 2>&1 | tee "$out/loadgen.log" || status=${PIPESTATUS[0]}
{ set +x; } 2>/dev/null
if [ -n "$beside_pid" ]; then
  kill -TERM "$beside_pid" 2>/dev/null || true
  for _ in $(seq 1 300); do kill -0 "$beside_pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$beside_pid" 2>/dev/null || true
  wait "$beside_pid" 2>/dev/null || echo "run.sh: WARNING: the beside-load command failed (see $out/beside-load.log)" >&2
  beside_pid=
  tail -n 20 "$out/beside-load.log" >&2
fi
load1_after="$(cut -d' ' -f1 /proc/loadavg)"
# mucscale's own view (room log rows written, queue overflows, fan-out timings) before it stops
if [ -f "$work/mucscale.properties" ]; then
  mport="$(sed -n 's/^mucscale.metrics.http-port=//p' "$work/mucscale.properties")"
  curl -s --max-time 10 "http://127.0.0.1:$mport/metrics" > "$out/mucscale-metrics.prom" || true
  curl -s --max-time 10 "http://127.0.0.1:$mport/mucscale-dashboard-data?range=900" > "$out/mucscale-dashboard.json" || true
fi

WARMUP_RUNS="$warmup_runs" WARMUP_EXITS="$warmup_exits" python3 - "$out/meta.json" "$server" "$variant" "$scenario" "$load1_before" "$load1_after" "$status" \
  "$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$@" <<'PY'
import json, os, sys
a = sys.argv
json.dump({"server": a[2], "variant": a[3], "scenario": a[4], "load1_before": float(a[5]), "load1_after": float(a[6]),
           "loadgen_exit": int(a[7]), "commit": a[8], "overrides": a[9:], "nproc": os.cpu_count(),
           "pinning": os.environ.get("E2E_PIN", "1") == "1", "warmup_runs": int(os.environ["WARMUP_RUNS"]),
           "warmup_exits": [int(x) for x in os.environ["WARMUP_EXITS"].split()]}, open(a[1], "w"), indent=1)
PY
# loadgen's results file is named after the label (other .json files here: meta, summary, mucscale's dashboard)
json="$(ls -t "$out/$LABEL-$scenario"-*.json 2>/dev/null | head -n 1 || true)"
if [ -n "$json" ]; then
  python3 "$here/summarize.py" run "$json" "$out/meta.json" > "$out/summary.json"
  python3 "$here/summarize.py" table "$out/summary.json" > "$out/summary.md"
  cat "$out/summary.md"
else
  echo "run.sh: loadgen wrote no results (exit $status); see $out/loadgen.log" >&2
  [ "$status" = 0 ] && status=1
fi
echo "run.sh: results in $out" >&2
exit "$status"
