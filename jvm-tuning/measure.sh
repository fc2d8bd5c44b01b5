#!/usr/bin/env bash
# Measures one JVM preset for mucscale standalone under a bounded load, on loopback only.
#
#   jvm-tuning/measure.sh PRESET [SCENARIO]
#
# PRESET    a file name under jvm-tuning/presets/ without ".jvmopts" (g1-default, g1-low-pause, zgc,
#           zgc-generational, parallel) or a path to any JVM options file (one option per line, "#" comments).
# SCENARIO  "gc" (default; see below) or any built-in loadgen scenario (smoke, rooms50, ...).
#
# What it does, in order:
#   1. builds the standalone component and the load generator when their jars are missing
#      (mvn -pl standalone,loadgen -am package with the build suffix -jvm; MEASURE_REBUILD=1 forces it);
#   2. starts a throwaway Prosody on free loopback ports (in-band registration, its own MUC off) and mucscale
#      standalone as its XEP-0114 component, with the preset's options read by the java launcher as an @argfile
#      plus GC logging for the measurement (-Xlog:gc*,safepoint to gc.log);
#   3. runs the load generator against it (bounded by the scenario's deadline and by `timeout`);
#   4. reads mucscale's dashboard JSON and Prometheus text, stops everything it started and writes
#      summary.json + summary.txt: deliveries/s, delivery latency p50/p99/p99.9/max, GC pauses (count, p99, max from
#      the GC log and from mucscale's own GC monitor), safepoint stalls, ZGC allocation stalls, server CPU us per
#      delivery, server RSS.
#
# The "gc" scenario: 400 users in 8 rooms of exactly 50 (rooms50 scaled down to what a 2-core machine shared with
# other work holds), plain TCP with SASL PLAIN so logins are cheap, then one steady level of
# MEASURE_RATE (default 30) messages/s for MEASURE_SECONDS (default 45) after a 10 s warm-up: about 1,470
# deliveries/s. One steady rate (no stepping) so every preset gets the same offered load and the latency differences
# come from the JVM, not from where a ramp stopped.
#
# Environment:
#   MEASURE_OUT      results folder (default jvm-tuning/results/<time>-<preset>)
#   MEASURE_PIN      1 (default): mucscale on CPU 1, Prosody and the generator on CPU 0 (taskset); 0: no pinning
#   MEASURE_NICE     scheduling priority of everything it starts (default -10, needs root; 0 leaves it alone)
#   MEASURE_RATE, MEASURE_SECONDS, MEASURE_USERS   the "gc" scenario's rate, level length and user count
#   MEASURE_SET      extra loadgen overrides, space-separated key=value
#   JAVA_HOME        JDK for presets marked "measure-jdk: 17" (default /usr/lib/jvm/java-17-openjdk-amd64)
#   JDK25_HOME       JDK for presets marked "measure-jdk: 25" (default /usr/lib/jvm/temurin-25-jdk-amd64)
#   MEASURE_REBUILD  1 rebuilds the jars even when present
# Exit status: 0 measured (even with loss: the summary says so), 1 setup failed, 2 bad usage.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"

usage() { sed -n '2,12p' "$0" >&2; exit 2; }
build_jars() { # the standalone component and the load generator, with their own build suffix (shared machine)
  echo "measure: building standalone and loadgen (mvn package, tests skipped, suffix -jvm)" >&2
  JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}" \
    mvn -B -ntp -q -pl standalone,loadgen -am -DskipTests -Dmucscale.build.suffix=-jvm package >&2
}
standalone_jar="$here/standalone/target-jvm/mucscale-standalone.jar"
loadgen_jar="$here/loadgen/target-jvm/mucscale-loadgen.jar"
if [ "${1:-}" = --build-only ]; then # used by run-matrix.sh: build (when missing or MEASURE_REBUILD=1) and stop
  if [ "${MEASURE_REBUILD:-0}" = 1 ] || [ ! -f "$standalone_jar" ] || [ ! -f "$loadgen_jar" ]; then build_jars; fi
  exit 0
fi
[ $# -ge 1 ] && [ $# -le 2 ] || usage
preset="$1"; scenario="${2:-gc}"
if [ -f "$preset" ]; then preset_file="$(cd "$(dirname "$preset")" && pwd)/$(basename "$preset")"
elif [ -f "jvm-tuning/presets/$preset.jvmopts" ]; then preset_file="$here/jvm-tuning/presets/$preset.jvmopts"
else
  echo "measure: no preset '$preset' (known: $(ls jvm-tuning/presets | sed 's/\.jvmopts$//' | tr '\n' ' '))" >&2
  exit 2
fi
preset_name="$(basename "$preset_file" .jvmopts)"

# Which JDK: a preset says "# measure-jdk: 17" or "# measure-jdk: 25" in its header.
jdk_major="$(sed -n 's/^#.*measure-jdk: *\([0-9][0-9]*\).*/\1/p' "$preset_file" | head -n 1)"
case "${jdk_major:-17}" in
  17) java_home="${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}" ;;
  25) java_home="${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}" ;;
  *) echo "measure: preset $preset_file asks for JDK '$jdk_major'; only 17 and 25 are wired" >&2; exit 2 ;;
esac
server_java="$java_home/bin/java"
[ -x "$server_java" ] || { echo "measure: no JDK at $java_home (set JAVA_HOME / JDK25_HOME)" >&2; exit 1; }
gen_java="${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}/bin/java"
[ -x "$gen_java" ] || gen_java=java
command -v prosody >/dev/null || { echo "measure: prosody is missing (apt-get install prosody)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "measure: python3 is missing" >&2; exit 1; }

# 1. Build what is missing (own suffix so it never collides with other builds on a shared machine).
if [ "${MEASURE_REBUILD:-0}" = 1 ] || [ ! -f "$standalone_jar" ] || [ ! -f "$loadgen_jar" ]; then build_jars; fi

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
out="${MEASURE_OUT:-$here/jvm-tuning/results/$stamp-$preset_name}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d /tmp/mucscale-jvm.XXXXXX)"

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

free_port() { # a loopback port nothing listens on
  local p
  while :; do
    p=$(( 20000 + RANDOM % 40000 ))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}
wait_port() { # port seconds what [pid that must stay alive]
  for _ in $(seq 1 $(( $2 * 10 ))); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    if [ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null; then echo "measure: $3 exited before opening port $1" >&2; return 1; fi
    sleep 0.1
  done
  echo "measure: $3 did not open port $1 within $2 s" >&2; return 1
}

pin_server=(); pin_gen=()
# Raised priority (default nice -10) so the few tenths of a core this measurement uses are not starved by other
# work on a shared machine; the results then say more about the JVM and less about the neighbours. MEASURE_NICE=0: off.
nice_level="${MEASURE_NICE:--10}"
if [ "$nice_level" != 0 ]; then pin_server=(nice -n "$nice_level"); pin_gen=(nice -n "$nice_level"); fi
if [ "${MEASURE_PIN:-1}" = 1 ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  pin_server+=(taskset -c 1); pin_gen+=(taskset -c 0)
fi

domain=localhost; muc="muc.$domain"; secret="jvm-$RANDOM$RANDOM"
c2s=$(free_port); comp=$(free_port); http=$(free_port)
while [ "$comp" = "$c2s" ]; do comp=$(free_port); done
while [ "$http" = "$c2s" ] || [ "$http" = "$comp" ]; do http=$(free_port); done
mkdir -p "$work/prosody/data"

# 2a. Prosody: client port, in-band registration for the generated users, its own MUC off, mucscale as a component.
cat > "$work/prosody/prosody.cfg.lua" <<LUA
data_path = "$work/prosody/data"
pidfile = "$work/prosody/prosody.pid"
run_as_root = true
daemonize = false
log = { { levels = { min = "info" }, to = "file", filename = "$out/prosody.log" } }
modules_enabled = { "roster"; "saslauth"; "disco"; "ping"; "presence"; "message"; "iq"; "register" }
modules_disabled = { "s2s"; "http"; "tls"; "admin_telnet"; "bosh"; "websocket" }
interfaces = { "127.0.0.1" }
c2s_ports = { $c2s }
c2s_interfaces = { "127.0.0.1" }
c2s_direct_tls_ports = {}
legacy_ssl_ports = {}
s2s_ports = {}
http_ports = {}
https_ports = {}
component_ports = { $comp }
component_interfaces = { "127.0.0.1" }
authentication = "internal_plain"
allow_registration = true
min_seconds_between_registrations = 0
allow_unencrypted_plain_auth = true
c2s_require_encryption = false
s2s_require_encryption = false

VirtualHost "$domain"

Component "$muc"
  component_secret = "$secret"
LUA
"${pin_gen[@]}" prosody -F --config "$work/prosody/prosody.cfg.lua" > "$out/prosody.stdout.txt" 2>&1 &
pids+=($!)
wait_port "$c2s" 30 prosody

# 2b. mucscale standalone with the preset (an @argfile: the java launcher skips its "#" comment lines).
cat > "$work/mucscale.properties" <<PROPS
mucscale.standalone.server-host=127.0.0.1
mucscale.standalone.server-port=$comp
mucscale.standalone.component-domain=$muc
mucscale.standalone.component-secret=$secret
mucscale.store.jdbc-url=jdbc:hsqldb:file:$work/db/mucscale;shutdown=true
mucscale.store.spill-directory=$work/spill
mucscale.metrics.http-port=$http
mucscale.metrics.prometheus-enabled=true
PROPS
cp "$preset_file" "$out/preset.jvmopts"
"$server_java" -version > "$out/jdk.txt" 2>&1
gc_log="$out/gc.log"
server_cmd=("$server_java" "@$preset_file"
  "-Xlog:gc*,safepoint:file=$gc_log:timemillis,uptime,level,tags:filecount=0"
  -jar "$standalone_jar" --config "$work/mucscale.properties")
printf '%q ' "${pin_server[@]}" "${server_cmd[@]}" > "$out/server-command.txt"; echo >> "$out/server-command.txt"
"${pin_server[@]}" "${server_cmd[@]}" > "$out/mucscale.log" 2>&1 &
server_pid=$!
pids+=("$server_pid")
wait_port "$http" 90 "mucscale standalone" "$server_pid" || { tail -n 30 "$out/mucscale.log" >&2; exit 1; }
# the component is up once Prosody has accepted its handshake; give it a moment
sleep 2

# 3. The load.
sets=()
if [ "$scenario" = gc ]; then
  rate="${MEASURE_RATE:-30}"; seconds="${MEASURE_SECONDS:-45}"; users="${MEASURE_USERS:-400}"
  run_scenario=rooms50
  sets=(--set "users=$users" --set rooms.size=50 --set server.tls=none --set server.sasl=PLAIN
        --set connect.connectionsPerSec=200 --set connect.maxPendingLogins=100
        --set "levels.ratesPerSec=$rate" --set levels.warmupS=10 --set "levels.durationS=$seconds"
        --set levels.p99ThresholdMs=100000 --set rampDown.drainMs=5000
        --set "run.deadlineS=$(( seconds + 150 ))")
else
  run_scenario="$scenario"
fi
for kv in ${MEASURE_SET:-}; do sets+=(--set "$kv"); done
uptime > "$out/load-before.txt"
load_start_ms=$(date +%s%3N)
echo "measure: $preset_name ($("$server_java" -version 2>&1 | head -n 1)) scenario $scenario, results in $out" >&2
gen_status=0
"${pin_gen[@]}" timeout --signal=TERM --kill-after=20 900 \
  "$gen_java" -Xms256m -Xmx1g -XX:+UseParallelGC -jar "$loadgen_jar" run "$run_scenario" \
  --server "127.0.0.1:$c2s" --domain "$domain" --muc "$muc" --server-pid "$server_pid" \
  --label "$preset_name" --out "$out/loadgen" --quiet "${sets[@]}" > "$out/loadgen.txt" 2>&1 || gen_status=$?
load_end_ms=$(date +%s%3N)
uptime > "$out/load-after.txt"

# 4. mucscale's own view, then stop.
curl -s --max-time 10 "http://127.0.0.1:$http/mucscale-dashboard-data?range=900" > "$out/dashboard.json" || true
curl -s --max-time 10 "http://127.0.0.1:$http/metrics" > "$out/metrics.prom" || true
grep -E '^VmHWM|^VmRSS' "/proc/$server_pid/status" > "$out/server-rss.txt" 2>/dev/null || true
cleanup; trap - EXIT INT TERM

python3 "$here/jvm-tuning/summarize.py" --out "$out" --preset "$preset_name" --scenario "$scenario" \
  --load-start-ms "$load_start_ms" --load-end-ms "$load_end_ms" --generator-exit "$gen_status"
