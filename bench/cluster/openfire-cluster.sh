#!/usr/bin/env bash
# The mission's full shape on a two-node Openfire cluster: OFC_USERS (26,000) users in OFC_ROOMS (530) rooms (largest
# OFC_LARGEST, 427; Zipf 0.5 as ref-5000), half connected to each node, every room spread over both nodes, at a few
# fixed message rates. See README.md here ("Inside a two-node Openfire cluster").
# OFC_NODES (default "2"): the cases, run one after the other with the same settings, e.g. "1 2": 1 = one Openfire
# that is a one-member cluster (same MariaDB, hazelcast plugin and accounts; one generator plays everyone), the
# baseline for what spreading the rooms over 2 nodes costs; the table at the end gives each case's server CPU per
# delivery against the 1-node case's at the same level. "2o": two nodes, each room's users all on the node that owns
# the room (accounts.shardOwners with the members the nodes list in mucscale_cluster_member), so nothing is relayed or
# forwarded: what two nodes cost without inter-node fan-out (replication still runs), tagged "-owner". "2s": the same
# placement on two nodes that are not clustered with each other (each a one-member cluster, E2E_OPENFIRE_SEPARATE=1,
# sharing only MariaDB): two copies of the 1-node case, what two JVMs cost with no clustering between them, "-separate".
#
#   OPENFIRE_HOME=/path/to/openfire HAZELCAST_PLUGIN=/path/to/hazelcast.jar bench/cluster/openfire-cluster.sh [-- loadgen options]
#
# Given, never built here: OPENFIRE_HOME (an Openfire 5.1 installation) and HAZELCAST_PLUGIN (Openfire's hazelcast
# plugin jar). Built from this checkout when missing: the plugin (target-e2e/mucscale.jar, E2E_PLUGIN_JAR) and the
# load generator (loadgen/target-e2e/, E2E_LOADGEN_JAR).
# Steps: waits until the machine is idle (1-minute load below OFC_IDLE_LOAD, 1.0, at most OFC_IDLE_WAIT_S, 300 s;
# recorded either way); E2E_OPENFIRE_NODES=2 bench/e2e/openfire.sh start (one throwaway MariaDB, Openfire's schema,
# the accounts lg1..lg<users> as ofUser rows with OFC_ITERATIONS (4096) SCRAM iterations, two nodes on 127.0.0.1 and
# 127.0.0.2, all pinned to CPU 0, mucscale's room log off (OFC_MUCSCALE_PROPS) as bench/cluster's mucscale-nolog);
# the sampler (sampler.py: both nodes' Prometheus counters, CPU and RSS of both nodes and MariaDB, once a second); two
# load generator processes pinned to CPU 1, process k playing accounts.shard=k/2 of ONE plan against node k+1, so
# every room has members on both nodes; they meet at a barrier (run.barrierDir) before sending, then run a warm-up
# of OFC_WARMUP_S (30) s and one level of OFC_DURATION_S (30) s per rate of OFC_RATES (messages/s per process; the
# cluster gets twice that) without stopping on p99; 5 s into the warm-up both nodes get a full GC (jcmd GC.run)
# and their live heap is read (jcmd GC.heap_info); threads.py records the nodes' per-thread CPU at every phase
# change. Then everything stops and openfire_summary.py writes the figures.
# Left behind: bench/cluster/results/<UTC time>-openfire-<nodes>n-<users>u[-OFC_TAG]/ with gen0/ and gen1/ (loadgen JSON,
# CSV, HTML), loadgen-*.log, samples.jsonl, heap-*.txt, metrics-*.prom, server logs, meta.json, summary.json (git
# keeps the last two). Bounded: each generator by its run.deadlineS (OFC_DEADLINE_S; by default 900, or the warm-up
# plus the levels plus 600 s when that is longer) and timeout at deadline +
# 180 s, the sampler by the same, the server start and stop by bench/e2e's own limits.
# OFC_TOTAL_RATES ("40,80", say) instead of OFC_RATES gives the rates of the whole cluster, each generator offering
# its share (rate / nodes): what a 1-node vs 2-node comparison at the same load needs.
# Environment: OFC_USERS, OFC_ROOMS, OFC_LARGEST, OFC_RATES ("25,50,75,100"), OFC_WARMUP_S, OFC_DURATION_S,
# OFC_CONNECT_RATE (150 logins/s per process), OFC_ITERATIONS, OFC_DEADLINE_S, OFC_TAG, OFC_JAVA_OPTS (each node's
# JVM, default -Xms3g -Xmx3g -XX:+UseG1GC), OFC_MUCSCALE_PROPS, OFC_OPENFIRE_PROPS, OFC_IDLE_LOAD, OFC_IDLE_WAIT_S, E2E_PIN=0,
# E2E_KEEP_WORK=1, LOADGEN_JAVA_OPTS. OFC_NODE_CPUS="0 1": node i on the i-th CPU of the list (each node a core of
# its own, as on separate machines; the 1-node case on the first) and the generators, sampler and thread reader not
# pinned, in every case of the invocation, so the baseline and the pair treat the generators alike.
# OFC_PERF_S=30: perf_record.sh profiles every node for 30 s of level 2 (the JVMs get -XX:+PreserveFramePointer) into
# <result>/perf/ (perf-threads.txt, perf-symbols.txt; needs perf and root).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
e2e="$root/bench/e2e"

extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,44p' "$0"; exit 0 ;;
    *) echo "openfire-cluster.sh: unknown argument '$1' (loadgen options go after --)" >&2; exit 2 ;;
  esac
done
: "${OPENFIRE_HOME:?set OPENFIRE_HOME to an Openfire 5.1 installation}"
: "${HAZELCAST_PLUGIN:?set HAZELCAST_PLUGIN to the Openfire hazelcast plugin jar}"
[ -f "$OPENFIRE_HOME/lib/startup.jar" ] || { echo "openfire-cluster.sh: no Openfire at $OPENFIRE_HOME" >&2; exit 2; }
[ -f "$HAZELCAST_PLUGIN" ] || { echo "openfire-cluster.sh: no file $HAZELCAST_PLUGIN" >&2; exit 2; }
node_cpus="${OFC_NODE_CPUS:-}"
for c in $node_cpus; do # refused before anything is built or started
  [[ "$c" =~ ^[0-9]+$ ]] && [ "$c" -lt "$(nproc)" ] \
    || { echo "openfire-cluster.sh: OFC_NODE_CPUS takes CPU numbers below $(nproc), was '$node_cpus'" >&2; exit 2; }
done
users="${OFC_USERS:-26000}"; rooms="${OFC_ROOMS:-530}"; largest="${OFC_LARGEST:-427}"
rates="${OFC_RATES:-25,50,75,100}"; iterations="${OFC_ITERATIONS:-4096}"
# the default deadline leaves 600 s for logins, joins and the ramp-down beside the warm-up and the levels (a 2-node
# ramp-up alone took 300 s on a slow machine; a deadline that ends the run within the levels loses them)
warmup_s="${OFC_WARMUP_S:-30}"; duration_s="${OFC_DURATION_S:-30}"
level_count="$(tr ',' '\n' <<< "${OFC_TOTAL_RATES:-$rates}" | grep -c .)"
needed=$(( warmup_s + level_count * duration_s + 600 ))
deadline="${OFC_DEADLINE_S:-$(( needed > 900 ? needed : 900 ))}"; idle_load="${OFC_IDLE_LOAD:-1.0}"; idle_wait="${OFC_IDLE_WAIT_S:-300}"
password=loadgen-secret
# Openfire 5.1.1 binds every resource on a pool of at most 25 threads (no queue) under a cluster-wide lock it waits
# 1 s for, and refuses the bind ("conflict") when either runs out: at hundreds of logins per second on a shared core
# that refused up to 10 % of the logins in a trial run. Both raised; OFC_OPENFIRE_PROPS adds more.
openfire_props="xmpp.session.bind.conflict.maximum-pool-size=256 xmpp.session.bind.conflict.lock-timeout=30000 ${OFC_OPENFIRE_PROPS:-}"

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
source "$root/bench/e2e/lib.sh"
e2e_loadgen_setup openfire-cluster.sh   # bench/e2e/lib.sh: MUCSCALE_LOADGEN_JAR and gen_pin
if [ -n "$node_cpus" ]; then gen_pin=(); fi   # OFC_NODE_CPUS: the generators float in every case
# the same plan in both processes; what differs is the shard, the node and the barrier's partner
opts=(--set "users=$users" --set "rooms.count=$rooms" --set "rooms.largest=$largest" --set accounts.register=false
      --set "accounts.password=$password" --set server.tls=none --set server.sasl=PLAIN
      --set "connect.connectionsPerSec=${OFC_CONNECT_RATE:-150}" --set join.timeoutMs=90000 --set join.resendAfterMs=30000
      --set "levels.ratesPerSec=$rates" --set "levels.warmupS=$warmup_s" --set "levels.durationS=$duration_s"
      --set levels.p99ThresholdMs=100000 --set "run.deadlineS=$deadline" --set rampDown.drainMs=15000 "${extra[@]}")
"$root/bin/mucscale-loadgen" show ref-5000 "${opts[@]}" > /dev/null \
  || { echo "openfire-cluster.sh: loadgen rejected the options" >&2; exit 2; }

# e2e_wait_idle: bench/e2e/lib.sh
wait_idle() { e2e_wait_idle "$idle_load" "$idle_wait" openfire-cluster.sh; }

batch="$(date -u +%Y%m%dT%H%M%SZ)"
outs=(); final=0
for case_name in ${OFC_NODES:-2}; do
case "$case_name" in 1|2|2o|2s) ;; *) echo "openfire-cluster.sh: OFC_NODES takes 1, 2, 2o and 2s, was '$case_name'" >&2; exit 2 ;; esac
nodes="${case_name:0:1}"; placement=slot; separate=0; suffix=
case "$case_name" in 2o) placement=owner; suffix=-owner ;; 2s) placement=owner; separate=1; suffix=-separate ;; esac
out="$here/results/$batch-openfire-${nodes}n-${users}u${OFC_TAG:+-$OFC_TAG}$suffix"
outs+=("$out")
for ((k = 0; k < nodes; k++)); do mkdir -p "$out/gen$k"; done
case_opts=()
if [ -n "${OFC_TOTAL_RATES:-}" ]; then
  case_opts=(--set "levels.ratesPerSec=$(python3 -c 'import sys; print(",".join("%g" % (float(r) / int(sys.argv[2])) for r in sys.argv[1].split(",")))' "$OFC_TOTAL_RATES" "$nodes")")
fi
work="$(mktemp -d /tmp/ofcluster.XXXXXX)"
load_before="$(wait_idle)"
echo "openfire-cluster.sh: $nodes node(s), $users users, $rooms rooms, rates $rates msg/s per generator, load $load_before -> $out" >&2
status=0
(
  set -euo pipefail
  stop_all() {
    [ -n "${heap_pid:-}" ] && kill "$heap_pid" 2>/dev/null || true
    [ -n "${threads_pid:-}" ] && kill "$threads_pid" 2>/dev/null || true
    [ -n "${sampler_pid:-}" ] && { touch "$work/sampler.stop"; wait "$sampler_pid" 2>/dev/null || true; }
    E2E_OPENFIRE_NODES="$nodes" "$e2e/openfire.sh" stop "$work" > "$out/server-stop.log" 2>&1 || true
    for f in "$work"/server.env "$work"/node*/openfire/logs/openfire.log "$work"/node*/openfire/logs/stdout.log \
             "$work"/node*/openfire-cmdline.txt "$work"/mariadb/error.log "$work"/openfire-db-settings.txt; do
      [ -f "$f" ] || continue
      rel="${f#"$work"/}"; tail -c 2000000 "$f" > "$out/server-${rel//\//-}"
    done
    if [ "${E2E_KEEP_WORK:-0}" = 1 ]; then echo "openfire-cluster.sh: workdir kept: $work" >&2; else rm -rf "$work"; fi
  }
  trap stop_all EXIT
  perf_opt=; [ "${OFC_PERF_S:-0}" != 0 ] && perf_opt=" -XX:+PreserveFramePointer" # perf walks JIT frames by it
  E2E_OPENFIRE_NODES="$nodes" E2E_OPENFIRE_SEPARATE="$separate" E2E_HAZELCAST_PLUGIN="$HAZELCAST_PLUGIN" OPENFIRE_HOME="$OPENFIRE_HOME" \
    OPENFIRE_JAVA_OPTS="${OFC_JAVA_OPTS:--Xms3g -Xmx3g -XX:+UseG1GC}${perf_opt}" \
    E2E_OPENFIRE_ACCOUNTS="lg 1 $users $password $iterations" \
    E2E_MUCSCALE_PROPS="${OFC_MUCSCALE_PROPS:-mucscale.store.enabled=false}" \
    E2E_OPENFIRE_PROPS="$openfire_props" E2E_OPENFIRE_NODE_CPUS="$node_cpus" \
    "$e2e/openfire.sh" start "$work" mucscale > "$out/server-start.log" 2>&1 \
    || { tail -n 40 "$out/server-start.log" >&2; exit 1; }
  # shellcheck disable=SC1091
  source "$work/server.env"
  cp "$work/server.env" "$out/server.env"
  read -r -a hosts <<< "$NODE_HOSTS"; read -r -a npids <<< "$NODE_PIDS"; read -r -a metrics <<< "$NODE_METRICS"
  db_pid="$(awk '$1 == "mariadb" { print $2 }' "$work/started.pids")"
  sampler_args=(--pid "mariadb=$db_pid")
  for ((k = 0; k < nodes; k++)); do sampler_args+=(--node "node$((k + 1))=${metrics[$k]}" --pid "node$((k + 1))=${npids[$k]}"); done
  "${gen_pin[@]}" python3 "$here/sampler.py" "$out/samples.jsonl" "$work/sampler.stop" "$((deadline + 120))" "${sampler_args[@]}" &
  sampler_pid=$!
  placement_opts=()
  if [ "$placement" = owner ]; then
    # each node's own name from its mucscale_cluster_member{local="true"}, once it sees a view of all (2s: of itself)
    owners=(); view_size="$nodes"; [ "$separate" = 1 ] && view_size=1
    for ((k = 0; k < nodes; k++)); do
      name=
      for i in $(seq 1 120); do
        scrape="$(curl -s --max-time 5 "${metrics[$k]}" || true)"
        if [ "$(grep -c '^mucscale_cluster_member{' <<< "$scrape")" = "$view_size" ]; then
          name="$(sed -n 's/^mucscale_cluster_member{node="\([^"]*\)",local="true",}.*/\1/p' <<< "$scrape")"
          [ -n "$name" ] && break
        fi
        sleep 1
      done
      [ -n "$name" ] || { echo "openfire-cluster.sh: node $((k + 1)) never listed $view_size cluster member(s)" >&2; exit 1; }
      owners+=("$name")
    done
    placement_opts=(--set "accounts.shardOwners=$(IFS=,; echo "${owners[*]}")")
    echo "openfire-cluster.sh: rooms placed whole on their owners: ${owners[*]}" >&2
  fi
  gen_pids=()
  for ((k = 0; k < nodes; k++)); do
    timeout --kill-after=30 "$((deadline + 180))" "${gen_pin[@]}" "$root/bin/mucscale-loadgen" run ref-5000 \
      --server "${hosts[$k]}:$C2S_PORT" --domain "$DOMAIN" --muc "$MUC_DOMAIN" --server-pid "${npids[$k]}" \
      --label "openfire-${nodes}n-gen$k" --out "$out/gen$k" "${opts[@]}" --set "accounts.shard=$k/$nodes" \
      --set "run.barrierDir=$work/barrier" "${case_opts[@]}" "${placement_opts[@]}" > "$out/loadgen-$k.log" 2>&1 &
    gen_pids+=($!)
  done
  # per-thread CPU of every node at each phase change of generator 0 (threads.py), for what limited it
  thread_args=(); for ((k = 0; k < nodes; k++)); do thread_args+=("node$((k + 1))=${npids[$k]}"); done
  "${gen_pin[@]}" python3 "$here/threads.py" "$out/threads.jsonl" "$out/loadgen-0.log" "$((deadline + 120))" "${thread_args[@]}" &
  threads_pid=$!
  # OFC_PERF_S: a perf profile of every node over that many seconds of level 2 (perf_record.sh), into $out/perf/
  perf_pid=
  if [ "${OFC_PERF_S:-0}" != 0 ]; then
    "${gen_pin[@]}" "$here/perf_record.sh" "$out/perf" "$out/loadgen-0.log" "level 2/" "$OFC_PERF_S" "${thread_args[@]}" \
      > "$out/perf.log" 2>&1 &
    perf_pid=$!
  fi
  # live heap with everyone connected and joined: a full GC on each node 5 s into the warm-up (not measured)
  (
    for i in $(seq 1 $((deadline * 2))); do
      grep -q -e "barrier ready: all" -e "warm-up" "$out/loadgen-0.log" 2>/dev/null && break
      sleep 0.5
    done
    sleep 7
    for ((n = 1; n <= nodes; n++)); do
      p="${npids[$((n - 1))]}"
      { date -u +%FT%TZ; grep VmRSS "/proc/$p/status"; timeout 60 jcmd "$p" GC.run; timeout 60 jcmd "$p" GC.heap_info
        grep VmRSS "/proc/$p/status"; } > "$out/heap-node$n.txt" 2>&1 || true
    done
  ) &
  heap_pid=$!
  tail -f "$out/loadgen-0.log" --pid "${gen_pids[0]}" &
  lstatus=0
  for g in "${gen_pids[@]}"; do wait "$g" || lstatus=$?; done
  wait "$heap_pid" 2>/dev/null || true; heap_pid=
  [ -z "$perf_pid" ] || wait "$perf_pid" || echo "openfire-cluster.sh: no perf profile (see $out/perf.log)" >&2
  for ((n = 1; n <= nodes; n++)); do curl -s --max-time 10 "${metrics[$((n - 1))]}" > "$out/metrics-node$n.prom" || true; done
  exit "$lstatus"
) || status=$?
python3 - "$out/meta.json" "$nodes" "$users" "$rooms" "$largest" "$rates" "$load_before" "$(cut -d' ' -f1 /proc/loadavg)" \
  "$status" "$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$iterations" "$case_name" "$placement" "$separate" "${opts[@]}" <<'PY'
import json, os, platform, subprocess, sys
a = sys.argv
jdk = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
json.dump({"server": "openfire-5.1.1", "nodes": int(a[2]), "generators": int(a[2]), "users": int(a[3]),
           "rooms": int(a[4]), "largest": int(a[5]), "rates_per_generator": a[6], "load1_before": float(a[7]),
           "load1_after": float(a[8]), "exit": int(a[9]), "commit": a[10], "scram_iterations": int(a[11]),
           "case": a[12], "placement": a[13], "separate": a[14] == "1", "overrides": a[15:],
           "nproc": os.cpu_count(), "pinning": os.environ.get("E2E_PIN", "1") == "1",
           "node_cpus": os.environ.get("OFC_NODE_CPUS", ""), "jdk": jdk,
           "mem_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
           "kernel": platform.release()}, open(a[1], "w"), indent=1)
PY
python3 "$here/openfire_summary.py" "$out" > "$out/summary.json" || echo "openfire-cluster.sh: could not summarize $out" >&2
[ "$status" = 0 ] || { echo "openfire-cluster.sh: exit $status (see $out/loadgen-*.log, $out/server-start.log)" >&2; final=$status; }
sleep "${OFC_PAUSE_S:-10}"
done
python3 "$here/openfire_summary.py" --table "${outs[@]}" | tee "$here/results/$batch-openfire-summary.md" || true
echo "openfire-cluster.sh: results in ${outs[*]}" >&2
exit "$final"
