#!/usr/bin/env bash
# Failover timeline: runs ClusterProcessesEndToEndTest (three standalone nodes behind a real Prosody, a real
# PostgreSQL room log, 18 clients, 6 rooms, 360 messages/s; the node holding the component link is killed with
# SIGKILL, later a second node leaves with SIGTERM) FAILOVER_RUNS times (3) and keeps each run's timeline:
#
#   bench/cluster/failover.sh                      # 3 runs
#   FAILOVER_RUNS=5 FAILOVER_TAG=after bench/cluster/failover.sh
#   FAILOVER_WARMUP_ROUNDS=40 bench/cluster/failover.sh   # kill after 4 s of traffic, as the test alone (default 100: 10 s)
#   FAILOVER_ROUND_MS=200 FAILOVER_WARMUP_ROUNDS=50 bench/cluster/failover.sh   # half the message rate (180/s), so
#                                                  # the steady round-trip p99 is well under 100 ms and its return
#                                                  # after the kill can be timed (default 100 ms: 360 messages/s)
#   FAILOVER_PACED=1 bench/cluster/failover.sh     # each round's messages spread evenly over the round instead of one
#                                                  # burst (a burst of 216 deliveries alone takes Prosody's one
#                                                  # thread about 100 ms, the p99 goal)
#   flock /work/bench.lock bench/cluster/failover.sh   # on a shared machine: one benchmark at a time
#
# Each run's timeline (ms after the kill: the survivors' Hazelcast suspicion and removal of the dead member, the
# component link taken over, the engine's view change, rooms taken over, replication rounds that stalled, per room
# the first message accepted again as its sender saw it, backlog drained, per-second round-trip p99 and delivery lag)
# is built by the test (FailoverTimeline.java) from the nodes' logs and the clients' receive times. Left behind:
# bench/cluster/results/<UTC time>-failover[-tag]/run-<i>.txt (timeline and the test's output), the nodes' logs,
# meta.json (commit, machine, 1-minute load average before/after each run) and summary.json (per run: the figures
# and phases; git keeps these two), and a table on stdout (failover_summary.py).
# Bounded: each run is one mvn test invocation, killed by `timeout` after FAILOVER_RUN_TIMEOUT_S (600) s.
# Builds nothing into ~/.m2 (mvn test only, never install).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${FAILOVER_RUNS:-3}"
warmup="${FAILOVER_WARMUP_ROUNDS:-100}" # rounds (FAILOVER_ROUND_MS each) of traffic before the kill; the test alone uses 40
round_ms="${FAILOVER_ROUND_MS:-100}"
paced="${FAILOVER_PACED:-0}"
case "$paced" in 0) paced=false ;; 1) paced=true ;; *) echo "failover.sh: FAILOVER_PACED takes 0 or 1, was '$paced'" >&2; exit 2 ;; esac
case "$round_ms" in ''|*[!0-9]*) echo "failover.sh: FAILOVER_ROUND_MS takes a number of ms (10..1000), was '$round_ms'" >&2; exit 2 ;; esac
tag="${FAILOVER_TAG:+-$FAILOVER_TAG}"
out="$here/results/$(date -u +%Y%m%dT%H%M%SZ)-failover$tag"
mkdir -p "$out"
commit="$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- engine standalone || echo '+dirty')"
{
  printf '{"commit": "%s", "date": "%s", "warmup_rounds": %s, "round_ms": %s, "paced": %s, "runs": %s, "nproc": %s, "mem_gib": %s, "os": "%s", "java": "%s", "loads": [' \
    "$commit" "$(date -u +%FT%TZ)" "$warmup" "$round_ms" "$paced" "$runs" "$(nproc)" \
    "$(awk '/MemTotal/ {printf "%.1f", $2/1048576}' /proc/meminfo)" \
    "$(. /etc/os-release && echo "$PRETTY_NAME")" "$(java -version 2>&1 | head -1 | tr -d '"')"
} > "$out/meta.json"
for i in $(seq 1 "$runs"); do
  before="$(cut -d' ' -f1 /proc/loadavg)"
  rc=0
  (cd "$root" && timeout "${FAILOVER_RUN_TIMEOUT_S:-600}" mvn -B -ntp -o -q -pl standalone -am \
      -Dtest=ClusterProcessesEndToEndTest -Dsurefire.failIfNoSpecifiedTests=false \
      -Dmucscale.test.failover-warmup-rounds="$warmup" -Dmucscale.test.failover-round-ms="$round_ms" \
      -Dmucscale.test.failover-paced="$paced" test) \
      > "$out/run-$i.mvn.log" 2>&1 || rc=$?
  after="$(cut -d' ' -f1 /proc/loadavg)"
  {
    echo "# run $i: exit $rc, load average (1 min) before $before, after $after"
    cat "$root/standalone/target/cluster-failover-timeline.txt" 2>/dev/null || echo "# no timeline (the test failed early)"
    grep -h "GRACEFUL" "$root"/standalone/target/surefire-reports/*ClusterProcessesEndToEndTest-output.txt 2>/dev/null || true
  } > "$out/run-$i.txt"
  cp -r "$root/standalone/target/cluster-nodes" "$out/run-$i-nodes" 2>/dev/null || true
  [ "$i" -gt 1 ] && printf ', ' >> "$out/meta.json"
  printf '{"run": %s, "exit": %s, "load1_before": %s, "load1_after": %s}' "$i" "$rc" "$before" "$after" >> "$out/meta.json"
  echo "run $i of $runs: exit $rc (load $before -> $after)" >&2
done
echo ']}' >> "$out/meta.json"
python3 "$here/failover_summary.py" "$out"
