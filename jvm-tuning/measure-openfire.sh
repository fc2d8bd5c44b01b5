#!/usr/bin/env bash
# Measures one JVM preset for mucscale INSIDE Openfire 5.1 at a fixed rate of ref-5000, on loopback only.
#
#   jvm-tuning/measure-openfire.sh PRESET [FORM]
#
# PRESET  a preset under jvm-tuning/presets/ (g1-default, g1-low-pause, zgc, zgc-generational, parallel, shenandoah).
# FORM    how the preset reaches Openfire's JVM, as jvm-tuning/README.md tells operators to apply it:
#   sysconfig (default)  forms/PRESET.sysconfig (OPENFIRE_OPTS="...") sourced by sh before the installation's
#                        bin/openfire.sh runs, as the RPM init script sources /etc/sysconfig/openfire (the tarball's
#                        bin/openfire.sh reads the same OPENFIRE_OPTS from the environment)
#   default              forms/PRESET.default (export JDK_JAVA_OPTIONS="..."), as Debian's /etc/default/openfire
#   argfile              OPENFIRE_OPTS="@PRESET.jvmopts @gc-log.jvmopts": the README's tarball example
# Each form's GC-log line is kept, with its folder pointed at this run's results (an operator writes their logs
# folder there): -Xlog:gc*,safepoint with wall time, so the pauses line up with the generator's timeline.
#
# What it does, in order:
#   1. builds the plugin and the load generator when their jars are missing (mvn -pl plugin,loadgen -am package,
#      suffix -jvm: target-jvm/mucscale.jar, loadgen/target-jvm/mucscale-loadgen.jar; MEASURE_REBUILD=1 forces it);
#   2. starts a throwaway Openfire from $OPENFIRE_HOME (never modified) with mucscale installed, through
#      bench/e2e/openfire.sh (E2E_OPENFIRE_LAUNCHER=openfire.sh) on the JDK the preset names ("measure-jdk: N"), pinned
#      to CPU 0 with everything it starts at nice MEASURE_NICE;
#   3. with MEASURE_LOCK set, waits for that lock (flock, at most MEASURE_LOCK_WAIT_S) and holds it for the load only;
#      records the 1-minute load average, starts threadcpu.py on the JVM (one sample a second) and runs the load
#      generator on CPU 1: ref-5000 (5,000 users, 100 rooms, Zipf 0.5, largest 427), plain TCP with SASL PLAIN, a
#      warm-up of MEASURE_WARMUP_S at the rate, then one level of MEASURE_SECONDS at MEASURE_RATE messages/s;
#      mucscale's Prometheus text is saved before, every 10 s during (metrics/) and after the load;
#   4. stops Openfire (JFR, when asked for, is written at exit) and writes summary.json + summary.txt
#      (summarize_openfire.py): delivery p50/p99/p99.9/max of the level, its worst second and the stop-the-world time
#      before it, GC pauses (count, max, total) and the longest safepoint from the GC log, server CPU us per delivery,
#      RSS, and CPU per thread group with the collector's share; the generator's own GC pauses from its GC log
#      (loadgen-gc.log): a pause of the generator delays every delivery it times in that moment.
# Results: jvm-tuning/results/<time>-openfire-<preset>/ (ignored by git).
#
# Environment:
#   OPENFIRE_HOME     an Openfire 5.1.1 installation (required; copied, never changed)
#   MEASURE_RATE      messages/s (default 180: a ref-5000 message reaches 92.05 others on average, so about 16,570/s)
#   MEASURE_SECONDS   length of the measured level (default 600), MEASURE_WARMUP_S warm-up at the rate (default 60)
#   MEASURE_HEAP      e.g. 2g: sets the form's -Xms and -Xmx (the operator's sizing step; default: as the preset)
#   MEASURE_JFR=1     also records JFR (settings=profile) for the whole run into <results>/openfire.jfr
#   MEASURE_LOCK      a lock file shared with other benchmarks (e.g. /work/bench.lock); MEASURE_LOCK_WAIT_S (3600)
#   MEASURE_NICE      priority of Openfire, the generator and the sampler (default -10; 0 leaves it alone)
#   MEASURE_SET       extra loadgen overrides, space-separated key=value
#   MEASURE_OUT       results folder; JAVA_HOME / JDK25_HOME the JDKs for "measure-jdk: 17" / "25" (as measure.sh)
#   MEASURE_JDK       17 or 25: run the preset on that JDK instead of the one its "measure-jdk" line names (the
#                     generator stays on JAVA_HOME's); every preset on both JDKs is what the matrix asks for
#   MEASURE_GEN_GC    the generator JVM's collector options (default -XX:+UseParallelGC, as in every run before
#                     2026-11-28 21:00 UTC); e.g. "-XX:+UseShenandoahGC" keeps the generator's own pauses out of
#                     the latencies it times (its GC log, loadgen-gc.log, shows them either way)
#   MEASURE_LO_RPS    a CPU mask (hex, e.g. 2 = CPU 1) for loopback's receive packet steering during the run
#                     (/sys/class/net/lo/queues/rx-0/rps_cpus, root only, restored after): the receiving side's
#                     packet processing, which on loopback runs on the sending CPU, i.e. the server's, moves to the
#                     generator's CPU, as in a deployment where the clients' kernels do it on their own machines
#   E2E_OPENFIRE_PROPS, E2E_MUCSCALE_PROPS pass through to bench/e2e/openfire.sh; E2E_PIN=0 turns pinning off
# Exit status: 0 measured (even with loss: the summary says so), 1 setup failed, 2 bad usage.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"

usage() { sed -n '2,18p' "$0" >&2; exit 2; }
plugin_jar="$here/target-jvm/mucscale.jar"
loadgen_jar="$here/loadgen/target-jvm/mucscale-loadgen.jar"
build_jars() {
  echo "measure-openfire: building the plugin and loadgen (mvn package, tests skipped, suffix -jvm)" >&2
  JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}" \
    mvn -B -ntp -q -pl plugin,loadgen -am -DskipTests -Dmucscale.build.suffix=-jvm package >&2
}
if [ "${1:-}" = --build-only ]; then # used by run-matrix.sh
  if [ "${MEASURE_REBUILD:-0}" = 1 ] || [ ! -f "$plugin_jar" ] || [ ! -f "$loadgen_jar" ]; then build_jars; fi
  exit 0
fi
[ $# -ge 1 ] && [ $# -le 2 ] || usage
preset="$1"; form="${2:-sysconfig}"
preset_file="$here/jvm-tuning/presets/$preset.jvmopts"
[ -f "$preset_file" ] || { echo "measure-openfire: no preset '$preset' (known: $(ls jvm-tuning/presets | sed 's/\.jvmopts$//' | tr '\n' ' '))" >&2; exit 2; }
case "$form" in sysconfig|default|argfile) ;; *) echo "measure-openfire: unknown form '$form' (sysconfig, default, argfile)" >&2; exit 2 ;; esac
: "${OPENFIRE_HOME:?measure-openfire: set OPENFIRE_HOME to an Openfire 5.1.1 installation}"
[ -f "$OPENFIRE_HOME/bin/openfire.sh" ] || { echo "measure-openfire: no bin/openfire.sh in OPENFIRE_HOME=$OPENFIRE_HOME" >&2; exit 1; }

jdk_major="${MEASURE_JDK:-$(sed -n 's/^#.*measure-jdk: *\([0-9][0-9]*\).*/\1/p' "$preset_file" | head -n 1)}"
case "${jdk_major:-17}" in
  17) java_home="${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}" ;;
  25) java_home="${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}" ;;
  *) echo "measure-openfire: JDK '$jdk_major' (the preset's measure-jdk line, or MEASURE_JDK): only 17 and 25 are wired" >&2; exit 2 ;;
esac
[ -x "$java_home/bin/java" ] || { echo "measure-openfire: no JDK at $java_home (set JAVA_HOME / JDK25_HOME)" >&2; exit 1; }
gen_java="${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}/bin/java"
[ -x "$gen_java" ] || gen_java=java

if [ "${MEASURE_REBUILD:-0}" = 1 ] || [ ! -f "$plugin_jar" ] || [ ! -f "$loadgen_jar" ]; then build_jars; fi

rate="${MEASURE_RATE:-180}"; seconds="${MEASURE_SECONDS:-600}"; warmup="${MEASURE_WARMUP_S:-60}"
for v in "$rate" "$seconds" "$warmup"; do
  case "$v" in ''|*[!0-9.]*) echo "measure-openfire: MEASURE_RATE/SECONDS/WARMUP_S must be numbers" >&2; exit 2 ;; esac
done
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
out="${MEASURE_OUT:-$here/jvm-tuning/results/$stamp-openfire-$preset}"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
work="$(mktemp -d /tmp/mucscale-jvm-of.XXXXXX)"
gc_log="$out/gc.log"

# The preset in the chosen operator form, its GC-log folder pointed at the results.
case "$form" in
  sysconfig) sed "s#/opt/openfire/logs/gc.log#$gc_log#" "jvm-tuning/forms/$preset.sysconfig" > "$out/openfire.env" ;;
  default) sed "s#/var/log/openfire/gc.log#$gc_log#" "jvm-tuning/forms/$preset.default" > "$out/openfire.env" ;;
  argfile)
    sed "s#/var/log/openfire/gc.log#$gc_log#" jvm-tuning/addons/gc-log.jvmopts > "$out/gc-log.jvmopts"
    cp "$preset_file" "$out/preset.jvmopts"
    echo "OPENFIRE_OPTS=\"@$out/preset.jvmopts @$out/gc-log.jvmopts\"" > "$out/openfire.env" ;;
esac
# The sizing step the README asks of operators (-Xms = -Xmx = about 3x the live set): MEASURE_HEAP=2g sets both.
if [ -n "${MEASURE_HEAP:-}" ]; then
  case "$MEASURE_HEAP" in *[!0-9kmgKMG]*|'') echo "measure-openfire: MEASURE_HEAP is a JVM size like 2g" >&2; exit 2 ;; esac
  for f in "$out/openfire.env" "$out/preset.jvmopts"; do
    [ -f "$f" ] && sed -i "s/-Xms[0-9]*[kmgKMG]\b/-Xms$MEASURE_HEAP/; s/-Xmx[0-9]*[kmgKMG]\b/-Xmx$MEASURE_HEAP/" "$f"
  done
  grep -qs -- "-Xmx$MEASURE_HEAP" "$out/openfire.env" "$out/preset.jvmopts" \
    || { echo "measure-openfire: $preset fixes no heap (-Xmx) for MEASURE_HEAP to change" >&2; exit 2; }
fi
grep -qs "file=$gc_log:" "$out/openfire.env" "$out/gc-log.jvmopts" \
  || { echo "measure-openfire: the $form form of $preset has no GC-log line to point at $gc_log" >&2; exit 1; }
"$java_home/bin/java" -version > "$out/jdk.txt" 2>&1

nice_level="${MEASURE_NICE:--10}"
nice_cmd=(); [ "$nice_level" != 0 ] && nice_cmd=(nice -n "$nice_level")
gen_pin=(); [ "${E2E_PIN:-1}" = 1 ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ] && gen_pin=(taskset -c "${E2E_GEN_CPU:-1}")

started=0; sampler_pid=; scraper_pid=
lo_rps=/sys/class/net/lo/queues/rx-0/rps_cpus; lo_rps_before=
cleanup() {
  for p in $sampler_pid $scraper_pid; do kill "$p" 2>/dev/null || true; done
  if [ -n "$lo_rps_before" ]; then echo "$lo_rps_before" > "$lo_rps" || true; lo_rps_before=; fi
  if [ "$started" = 1 ]; then bash "$here/bench/e2e/openfire.sh" stop "$work" >&2 || true; started=0; fi
  for f in openfire-cmdline.txt openfire-db-settings.txt server.env; do [ -f "$work/$f" ] && cp "$work/$f" "$out/"; done
  [ -d "$work/openfire/logs" ] && cp "$work/openfire/logs/"*.log "$out/" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

# 2. Openfire with mucscale, started by its own bin/openfire.sh with the form sourced.
jfr=; [ "${MEASURE_JFR:-0}" = 1 ] && jfr="settings=profile,dumponexit=true,filename=$out/openfire.jfr"
started=1
E2E_PLUGIN_JAR="$plugin_jar" E2E_OPENFIRE_LAUNCHER=openfire.sh E2E_OPENFIRE_ENV_FILE="$out/openfire.env" \
  E2E_OPENFIRE_JAVA_HOME="$java_home" E2E_OPENFIRE_JFR="$jfr" \
  E2E_MUCSCALE_PROPS="mucscale.metrics.prometheus-enabled=true mucscale.metrics.prometheus-allowed-addresses=127.0.0.1 mucscale.metrics.window=10s ${E2E_MUCSCALE_PROPS:-}" \
  "${nice_cmd[@]}" bash "$here/bench/e2e/openfire.sh" start "$work" mucscale > "$out/openfire-start.txt" 2>&1 \
  || { started=0; tail -n 30 "$out/openfire-start.txt" >&2; exit 1; }
# shellcheck disable=SC1091
source "$work/server.env"
server_pid="${SERVER_PIDS%% *}"
# Proof that the form reached the JVM (JDK_JAVA_OPTIONS and @argfiles are expanded by the launcher, so they show here
# and not in /proc/PID/cmdline): the JVM's own view of its options, and the GC log the form asks for.
"$java_home/bin/jcmd" "$server_pid" VM.command_line > "$out/vm-command-line.txt" 2>&1 || true
"$java_home/bin/jcmd" "$server_pid" VM.flags > "$out/vm-flags.txt" 2>&1 || true
[ -s "$gc_log" ] || { echo "measure-openfire: the JVM writes no $gc_log: the form did not reach it (see $out/vm-command-line.txt)" >&2; exit 1; }

# 3. The load, under the shared lock when one is named.
deadline=$(( ${warmup%.*} + ${seconds%.*} + 360 ))
sets=(--set server.tls=none --set server.sasl=PLAIN --set "levels.ratesPerSec=$rate" --set "levels.warmupS=$warmup"
      --set "levels.durationS=$seconds" --set levels.p99ThresholdMs=100000 --set rampDown.drainMs=10000
      --set "run.deadlineS=$deadline")
for kv in ${MEASURE_SET:-}; do sets+=(--set "$kv"); done
if [ -n "${MEASURE_LOCK:-}" ]; then
  exec 9>>"$MEASURE_LOCK"
  echo "measure-openfire: waiting for $MEASURE_LOCK (at most ${MEASURE_LOCK_WAIT_S:-3600} s)" >&2
  flock -w "${MEASURE_LOCK_WAIT_S:-3600}" 9 || { echo "measure-openfire: $MEASURE_LOCK stayed taken" >&2; exit 1; }
fi
uptime > "$out/load-before.txt"
if [ -n "${MEASURE_LO_RPS:-}" ]; then
  case "$MEASURE_LO_RPS" in *[!0-9a-fA-F]*) echo "measure-openfire: MEASURE_LO_RPS is a hex CPU mask like 2" >&2; exit 2 ;; esac
  lo_rps_before="$(cat "$lo_rps")"
  echo "$MEASURE_LO_RPS" > "$lo_rps" || { echo "measure-openfire: cannot write $lo_rps (root?)" >&2; exit 1; }
  echo "loopback rps_cpus $(cat "$lo_rps") during the run (was $lo_rps_before)" > "$out/lo-rps.txt"
fi
# mucscale's own metrics (Prometheus text, open to loopback for this run; percentiles over 10 s windows) before and
# after the load and every 10 s during it (metrics/<wall-clock ms>.prom): its server-side latency and queue figures,
# to hold against the generator's end-to-end view of the same seconds
admin_url="$(sed -n 's/^ADMIN_URL=\([^ ]*\).*/\1/p' "$work/admin.txt" 2>/dev/null)"
scrape() { [ -n "$admin_url" ] && curl -s --max-time 5 "${admin_url}plugins/mucscale/metrics" > "$1" 9>&- || true; }
scrape "$out/metrics-before.prom"
mkdir -p "$out/metrics"
( for _ in $(seq 1 $(( (deadline + 240) / 10 ))); do
    sleep 10; kill -0 "$server_pid" 2>/dev/null || break; scrape "$out/metrics/$(date +%s%3N).prom"
  done ) 9>&- &
scraper_pid=$!
"${nice_cmd[@]}" "${gen_pin[@]}" python3 "$here/jvm-tuning/threadcpu.py" sample --pid "$server_pid" \
  --out "$out/threads.jsonl" --interval-s 1 --max-s $(( deadline + 240 )) 9>&- &
sampler_pid=$!
echo "measure-openfire: $preset ($form, $(head -n 1 "$out/jdk.txt")) ref-5000 at $rate msg/s, ${warmup} s warm-up + ${seconds} s; results in $out" >&2
gen_status=0
"${nice_cmd[@]}" "${gen_pin[@]}" timeout --signal=TERM --kill-after=20 $(( deadline + 180 )) \
  "$gen_java" -Xms256m -Xmx1g ${MEASURE_GEN_GC:--XX:+UseParallelGC} \
  "-Xlog:gc*,safepoint:file=$out/loadgen-gc.log:time,uptime,level,tags" -jar "$loadgen_jar" run ref-5000 \
  --server "127.0.0.1:$C2S_PORT" --domain "$DOMAIN" --muc "$MUC_DOMAIN" --server-pid "$server_pid" \
  --label "openfire-$preset" --out "$out/loadgen" --quiet "${sets[@]}" > "$out/loadgen.txt" 2>&1 9>&- || gen_status=$?
uptime > "$out/load-after.txt"
scrape "$out/metrics-after.prom"
kill "$sampler_pid" "$scraper_pid" 2>/dev/null || true; wait "$sampler_pid" "$scraper_pid" 2>/dev/null || true
sampler_pid=; scraper_pid=
[ -n "${MEASURE_LOCK:-}" ] && flock -u 9

# 4. Stop (JFR is written at exit), then the summary.
cleanup; trap - EXIT INT TERM
python3 "$here/jvm-tuning/summarize_openfire.py" --out "$out" --preset "$preset" --form "$form" \
  --generator-exit "$gen_status"
