#!/usr/bin/env bash
# Cluster benchmark: mucscale standalone nodes clustered behind a throwaway Prosody or ejabberd; see README.md here.
#
#   bench/cluster/run.sh [CASE ...] [-- loadgen options]
#   CASE = <server>:<nodes>   server: prosody | ejabberd; nodes: 1 = one unclustered node (the baseline)
#   default cases: prosody:1 prosody:2 prosody:3 ejabberd:1 ejabberd:2
#
# Each case: waits until the machine is idle (1-minute load average below CLUSTER_IDLE_LOAD, 1.0, for at most
# CLUSTER_IDLE_WAIT_S, 300 s; the load is recorded either way), starts bench/e2e/<server>.sh with E2E_MUCSCALE_NODES=
# <nodes> (server and every node pinned to CPU 0), samples every node's counters and every server process's CPU/RSS
# each second (sampler.py, CPU 1), runs the loadgen scenario (default ref-5000) at ONE fixed rate pinned to CPU 1,
# stops everything, and leaves bench/cluster/results/<UTC time>-<server>-<nodes>n/. At the end summarize.py prints one
# table for all cases of this invocation, with ratios against the 1-node case of the same server.
# Bounded: every loadgen run by its scenario deadline + timeout; the sampler by the same deadline; server start/stop
# by bench/e2e's own limits.
# Warm-up: before the measured run, CLUSTER_WARMUP_RUNS (1) small runs of the same scenario against the same server
# (CLUSTER_WARMUP_OPTS, default 1,000 users in 20 rooms, 15 s of messages; into <result>/warmup-<i>/, not summarized):
# on one shared core, fresh node JVMs spend their first ~15 s of CPU each in the C2 compiler (Hazelcast and mucscale
# code), which starved Prosody during the measured run's join ramp (joins timed out) when the nodes started cold.
# Environment: CLUSTER_SCENARIO (ref-5000), CLUSTER_RATE (20 msg/s), CLUSTER_WARMUP_S (10), CLUSTER_DURATION_S (30),
# CLUSTER_VARIANT (mucscale-nolog), CLUSTER_DEADLINE_S (240), CLUSTER_TAG (a word added to the result names),
# E2E_STANDALONE_JAR / E2E_LOADGEN_JAR (default: built from the checkout with suffix -e2e), E2E_PIN=0, and the
# other bench/e2e variables (E2E_MUCSCALE_JAVA_OPTS, E2E_MUCSCALE_PROPS, E2E_EJABBERD_BALANCING, LOADGEN_JAVA_OPTS).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
e2e="$root/bench/e2e"

cases=(); extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *:*) cases+=("$1"); shift ;;
    *) echo "run.sh: bad case '$1' (want <server>:<nodes>)" >&2; exit 2 ;;
  esac
done
[ ${#cases[@]} -gt 0 ] || cases=(prosody:1 prosody:2 prosody:3 ejabberd:1 ejabberd:2)
scenario="${CLUSTER_SCENARIO:-ref-5000}"
rate="${CLUSTER_RATE:-20}"
variant="${CLUSTER_VARIANT:-mucscale-nolog}"
idle_load="${CLUSTER_IDLE_LOAD:-1.0}"
idle_wait="${CLUSTER_IDLE_WAIT_S:-300}"

# the server side (Prosody/ejabberd, every mucscale node) may hold many sockets
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

source "$root/bench/e2e/lib.sh"
e2e_loadgen_setup run.sh   # bench/e2e/lib.sh: MUCSCALE_LOADGEN_JAR and gen_pin

warmup_runs="${CLUSTER_WARMUP_RUNS:-1}"
read -r -a warmup_opts <<< "${CLUSTER_WARMUP_OPTS:---set users=1000 --set rooms.count=20 --set rooms.largest=100 --set levels.warmupS=5 --set levels.durationS=10 --set run.deadlineS=120}"
# one fixed rate: warm-up and a single level at the same rate; no stepping. Joins may wait for a busy server (the
# join ramp is not measured): 90 s before a join counts as failed, a re-send after 30 s (each re-send is one more
# presence broadcast to the room).
opts=(--set join.timeoutMs=90000 --set join.resendAfterMs=30000 --set server.tls=none --set server.sasl=PLAIN --set "levels.ratesPerSec=$rate"
      --set "levels.warmupS=${CLUSTER_WARMUP_S:-10}" --set "levels.durationS=${CLUSTER_DURATION_S:-30}"
      --set "levels.p99ThresholdMs=100000" --set "run.deadlineS=${CLUSTER_DEADLINE_S:-240}" "${extra[@]}")
deadline="$("$root/bin/mucscale-loadgen" show "$scenario" "${opts[@]}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["run"]["deadlineS"])')" \
  || { echo "run.sh: loadgen rejected the scenario or its overrides" >&2; exit 2; }

# e2e_wait_idle: bench/e2e/lib.sh
wait_idle() { e2e_wait_idle "$idle_load" "$idle_wait" run.sh; }

batch="$(date -u +%Y%m%dT%H%M%SZ)"
outs=()
for c in "${cases[@]}"; do
  server="${c%%:*}"; nodes="${c#*:}"
  case "$server" in prosody|ejabberd) ;; *) echo "run.sh: unknown server '$server'" >&2; exit 2 ;; esac
  case "$nodes" in ''|*[!0-9]*|0) echo "run.sh: bad node count '$nodes'" >&2; exit 2 ;; esac
  out="$here/results/$batch-$server-${nodes}n${CLUSTER_TAG:+-$CLUSTER_TAG}"
  mkdir -p "$out"; outs+=("$out")
  work="$(mktemp -d "/tmp/cluster-$server-$nodes.XXXXXX")"
  load_before="$(wait_idle)"
  echo "run.sh: [$c] $scenario at $rate msg/s, load $load_before -> $out" >&2
  status=0
  (
    set -euo pipefail
    stop_server() {
      [ -n "${sampler_pid:-}" ] && { touch "$work/sampler.stop"; wait "$sampler_pid" 2>/dev/null || true; }
      E2E_MUCSCALE_NODES="$nodes" "$e2e/$server.sh" stop "$work" || true
      for f in "$work"/server.env "$work"/prosody/prosody.log "$work"/prosody/prosody.cfg.lua "$work"/ejabberd/ejabberd.yml \
               "$work"/ejabberd/logs/ejabberd.log "$work"/ejabberd/logs/error.log "$work"/mucscale.log \
               "$work"/mucscale.properties "$work"/node*/mucscale.log "$work"/node*/mucscale.properties; do
        [ -f "$f" ] || continue
        rel="${f#"$work"/}"; tail -c 2000000 "$f" > "$out/server-${rel//\//-}"
      done
      if [ "${E2E_KEEP_WORK:-0}" = 1 ]; then echo "run.sh: workdir kept: $work" >&2; else rm -rf "$work"; fi
    }
    trap stop_server EXIT
    E2E_MUCSCALE_NODES="$nodes" "$e2e/$server.sh" start "$work" "$variant" > "$out/server-start.log" 2>&1 \
      || { cat "$out/server-start.log" >&2; exit 1; }
    # shellcheck disable=SC1091
    source "$work/server.env"
    cp "$work/server.env" "$out/server.env"
    # which node holds a component link, and each node's metrics port
    node_args=(); pid_args=()
    while read -r name pid _; do
      [ "$name" = helper ] && continue
      pid_args+=(--pid "$name=$pid")
      case "$name" in
        mucscale) props="$work/mucscale.properties" ;;
        mucscale*) props="$work/node${name#mucscale}/mucscale.properties" ;;
        *) continue ;;
      esac
      node_args+=(--node "$name=$(sed -n 's/^mucscale.metrics.http-port=//p' "$props")")
    done < "$work/started.pids"
    {
      for f in "$work"/mucscale.log "$work"/node*/mucscale.log; do
        [ -f "$f" ] || continue
        n=0; grep -q "component $MUC_DOMAIN: connected to" "$f" && n=1
        echo "$f linked=$n"
      done
    } > "$out/links-at-start.txt"
    "${gen_pin[@]}" python3 "$here/sampler.py" "$out/samples.jsonl" "$work/sampler.stop" "$((deadline + 60 + warmup_runs * 310))" \
      "${node_args[@]}" "${pid_args[@]}" &
    sampler_pid=$!
    for ((i = 1; i <= warmup_runs; i++)); do
      mkdir -p "$out/warmup-$i"
      echo "run.sh: [$c] warm-up run $i/$warmup_runs" >&2
      timeout --kill-after=30 300 "${gen_pin[@]}" "$root/bin/mucscale-loadgen" run "$scenario" \
        --server "127.0.0.1:$C2S_PORT" --domain "$DOMAIN" --muc "$MUC_DOMAIN" --server-pid "${SERVER_PIDS// /,}" \
        --label "warmup$i" --out "$out/warmup-$i" "${opts[@]}" "${warmup_opts[@]}" --quiet > "$out/warmup-$i/loadgen.log" 2>&1 \
        || echo "run.sh: WARNING: warm-up run $i exited $? (going on)" >&2
      tail -n 4 "$out/warmup-$i/loadgen.log" | head -n 1 | sed 's/^/run.sh:   warm-up: /' >&2
      sleep 5
    done
    set -x
    lstatus=0
    timeout --kill-after=30 "$((deadline + 180))" "${gen_pin[@]}" "$root/bin/mucscale-loadgen" run "$scenario" \
      --server "127.0.0.1:$C2S_PORT" --domain "$DOMAIN" --muc "$MUC_DOMAIN" --server-pid "${SERVER_PIDS// /,}" \
      --label "$LABEL-${nodes}n-$scenario" --out "$out" "${opts[@]}" > >(tee "$out/loadgen.log") 2>&1 || lstatus=$?
    { set +x; } 2>/dev/null
    # each node's own view at the end (dashboard JSON: cluster section, rooms per node)
    for a in "${node_args[@]}"; do
      [ "$a" = --node ] && continue
      curl -s --max-time 10 "http://127.0.0.1:${a#*=}/mucscale-dashboard-data?range=900" > "$out/dashboard-${a%%=*}.json" || true
      curl -s --max-time 10 "http://127.0.0.1:${a#*=}/metrics" > "$out/metrics-${a%%=*}.prom" || true
    done
    exit "$lstatus"
  ) || status=$?
  python3 - "$out/meta.json" "$server" "$nodes" "$variant" "$scenario" "$rate" "$load_before" \
    "$(cut -d' ' -f1 /proc/loadavg)" "$status" "$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    "${opts[@]}" <<'PY'
import json, os, sys
a = sys.argv
json.dump({"server": a[2], "nodes": int(a[3]), "variant": a[4], "scenario": a[5], "rate": float(a[6]),
           "load1_before": float(a[7]), "load1_after": float(a[8]), "loadgen_exit": int(a[9]), "commit": a[10],
           "overrides": a[11:], "nproc": os.cpu_count(), "pinning": os.environ.get("E2E_PIN", "1") == "1",
           "standalone_jar": os.environ.get("E2E_STANDALONE_JAR", "")}, open(a[1], "w"), indent=1)
PY
  python3 "$here/summarize.py" case "$out" > "$out/summary.json" || echo "run.sh: could not summarize $out" >&2
  [ "$status" = 0 ] || echo "run.sh: [$c] loadgen exited $status (see $out/loadgen.log)" >&2
  sleep "${CLUSTER_PAUSE_S:-10}"
done
python3 "$here/summarize.py" table "${outs[@]}" | tee "$here/results/$batch-summary.md"
echo "run.sh: results in ${outs[*]}" >&2
