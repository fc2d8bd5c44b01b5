#!/usr/bin/env bash
# Throwaway Openfire 5.1 for the end-to-end benchmark, with its own MUC or with mucscale as a plugin inside it.
#
#   bench/e2e/openfire.sh start <workdir> <variant>     variant: muc | muc-log | mucscale
#   bench/e2e/openfire.sh stop  <workdir>
#
# start: copies $OPENFIRE_HOME (default /work/openfire-5.1.1; never modified) to <workdir>/openfire without its
# logs, embedded-db and plugins (but the admin console), pre-creates the embedded HSQLDB with Openfire's own schema
# script plus the settings below, sets it up unattended (autosetup, XMPP domain localhost, every listener on 127.0.0.1
# and a free port, admin console on loopback, s2s/components/BOSH off), starts it pinned to CPU $E2E_SERVER_CPU (0),
# waits until an in-band-registered account logs in with SASL PLAIN over plain TCP and the MUC service answers
# disco#info (for mucscale: the plugin's component is registered), then writes <workdir>/server.env
# (C2S_PORT, DOMAIN, MUC_DOMAIN, SERVER_PIDS, LABEL).
#   muc       Openfire's own MUC (conference.localhost), room conversation logging off
#   muc-log   the same with Openfire's default conversation logging on (ofMucConversationLog in HSQLDB)
#   mucscale  target-e2e/mucscale.jar (E2E_PLUGIN_JAR) in plugins/: MUC Scale on mucscale.localhost, its room log in
#             Openfire's database (HSQLDB) as the plugin does; Openfire's own conference service stays, unused
# Common: client TLS policy disabled (plain TCP), in-band registration on, new-connection rate limit off, idle
# disconnect off, rooms without occupant limit, history E2E_MUC_HISTORY (0) messages, mucscale's flood limits far
# above any scenario's rate. JVM: OPENFIRE_JAVA_OPTS (default -Xms2g -Xmx2g -XX:+UseG1GC; G1 named because a JVM
# pinned to one CPU would otherwise pick Serial). E2E_OPENFIRE_JFR="delay=90s,duration=60s" records a JFR profile
# (settings=profile) to <workdir>/openfire.jfr (or give filename=...). E2E_MUCSCALE_PROPS="key=value ...": extra
# mucscale settings; E2E_OPENFIRE_PROPS="key=value ...": extra Openfire system properties (e.g.
# sasl.scram-sha-1.iteration-count=4096 is Openfire's default: every in-band registration and every PLAIN login
# hashes the password that many times, which dominates a ramp-up of thousands of users). The plugin jar is built
# from the working tree only when missing: delete target-e2e/mucscale.jar after changes. The java command line is in
# <workdir>/openfire-cmdline.txt; Openfire's log is <workdir>/server.log (a link to openfire/logs/openfire.log).
# E2E_OPENFIRE_LAUNCHER=openfire.sh starts it the way an operator does instead: the installation's own bin/openfire.sh,
# after sourcing E2E_OPENFIRE_ENV_FILE with sh as the RPM and Debian init scripts source /etc/sysconfig/openfire or
# /etc/default/openfire (so OPENFIRE_OPTS or JDK_JAVA_OPTIONS from that file are the JVM options, and
# OPENFIRE_JAVA_OPTS is not used), with JAVA_HOME=E2E_OPENFIRE_JAVA_HOME when set; E2E_OPENFIRE_JFR is appended to
# OPENFIRE_OPTS. The JVM's real command line is then added to openfire-cmdline.txt once it runs.
# stop: stops exactly the Openfire JVM that start recorded (<workdir>/started.pids), waits up to E2E_STOP_WAIT_S (60)
# s for it to exit, and prints how many WARN/ERROR lines its log holds.
# Cluster: E2E_OPENFIRE_NODES=N (default 1 and no E2E_HAZELCAST_PLUGIN: everything above, unchanged; 1 with
# E2E_HAZELCAST_PLUGIN: a one-member cluster set up the same way, a baseline for N) starts N Openfire nodes clustered by Openfire's
# hazelcast plugin (E2E_HAZELCAST_PLUGIN, a built hazelcast.jar; given, never built here), as RealOpenfireClusterIT
# sets them up: one throwaway MariaDB (lib.sh e2e_start_mariadb) that all share, holding Openfire's schema (its own
# openfire_mysql.sql) and the settings above; node i in <workdir>/node<i>/openfire with node id e2e-node-<i>, clustering
# on, conf/hazelcast-local-config.xml (TCP-IP members on 127.0.0.1, no multicast; phone-home off), its XMPP listeners
# and admin console on 127.0.0.<i> with the same ports (Openfire keeps listener ports in the shared database), the
# hazelcast plugin and (mucscale) mucscale.jar in plugins/ before start, mucscale's Prometheus endpoint open to
# 127.0.0.1. Nodes start one after the other; start waits until each has joined and (mucscale) each MUC Scale sees all
# N members. server.env then also has NODES, NODE_HOSTS, NODE_PIDS and NODE_METRICS (each node's Prometheus URL);
# SERVER_PIDS lists MariaDB and every node. OPENFIRE_JAVA_OPTS applies to each node. E2E_OPENFIRE_SEPARATE=1 makes
# each node a one-member cluster of its own (itself as the only TCP-IP member to join; everything else the same, the
# database shared): N nodes that share nothing in memory, as N copies of the 1-node baseline.
# E2E_OPENFIRE_NODE_CPUS="0 1" pins node i to the i-th CPU of that list (cycling) instead of all to E2E_SERVER_CPU:
# each node on a core of its own, as nodes on separate machines are (MariaDB stays on E2E_SERVER_CPU).
# E2E_OPENFIRE_ACCOUNTS="<prefix> <first> <count> <password> [iterations]" (cluster only): creates the accounts
# <prefix><first>..<prefix><first+count-1> as rows in ofUser before the nodes start, with SCRAM-SHA-1 credentials of
# [iterations] (default 4096, Openfire's) and no stored password: what Openfire 5.1.1's DefaultAuthProvider writes
# when user.scramHashedPasswordOnly is true (autosetup sets it), and checks for SASL PLAIN; seconds instead of the
# minutes that in-band registration of tens of thousands takes.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

usage() { sed -n '2,54p' "$0" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd="$1"; work="$2"; variant="${3:-}"
E2E_STOP_WAIT_S="${E2E_STOP_WAIT_S:-60}"
nodes="${E2E_OPENFIRE_NODES:-1}"
case "$nodes" in ''|*[!0-9]*|0) echo "openfire.sh: E2E_OPENFIRE_NODES must be a number >= 1, was '$nodes'" >&2; exit 2 ;; esac

log_summary() { # the WARN/ERROR lines of Openfire's log (every node's), without its ANSI colours
  local log w e
  for log in "$work/openfire/logs/openfire.log" "$work"/node*/openfire/logs/openfire.log; do
    [ -f "$log" ] || continue
    w=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -c ' WARN ' || true)
    e=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -c ' ERROR ' || true)
    echo "openfire.sh: $log: $w WARN, $e ERROR lines" >&2
  done
}

case "$cmd" in
  stop)
    work="$(cd "$work" && pwd)"
    e2e_stop_recorded
    log_summary
    exit 0 ;;
  start) ;;
  *) usage ;;
esac
case "$variant" in
  muc) muc_log=false ;;
  muc-log) muc_log=true ;;
  mucscale) muc_log=false ;;
  *) e2e_die "unknown variant '$variant' (muc, muc-log, mucscale)" ;;
esac

src="${OPENFIRE_HOME:-/work/openfire-5.1.1}"
[ -f "$src/lib/startup.jar" ] && [ -f "$src/resources/database/openfire_hsqldb.sql" ] \
  || e2e_die "no Openfire installation at $src (set OPENFIRE_HOME)"
hsqldb_jar="$(ls "$src"/lib/hsqldb-*.jar 2>/dev/null | head -n 1)"
[ -n "$hsqldb_jar" ] || e2e_die "no hsqldb jar in $src/lib"
history="${E2E_MUC_HISTORY:-0}"
case "$history" in ''|*[!0-9]*) e2e_die "E2E_MUC_HISTORY must be a whole number, was '$history'" ;; esac

plugin_jar=
if [ "$variant" = mucscale ]; then
  plugin_jar="${E2E_PLUGIN_JAR:-$e2e_root/target-e2e/mucscale.jar}"
  if [ ! -f "$plugin_jar" ]; then
    [ -z "${E2E_PLUGIN_JAR:-}" ] || e2e_die "E2E_PLUGIN_JAR=$plugin_jar does not exist"
    echo "building the mucscale plugin (suffix -e2e, tests skipped)" >&2
    (cd "$e2e_root" && mvn -B -ntp -q -pl plugin -am -DskipTests -Dmucscale.build.suffix=-e2e package >&2) \
      || e2e_die "could not build the plugin jar"
  fi
fi

e2e_check_workdir
trap 'status=$?; if [ $status != 0 ]; then echo "openfire.sh: start failed; stopping what it started" >&2; e2e_stop_recorded; log_summary; fi' EXIT

domain=localhost
case "$variant" in
  mucscale) muc="mucscale.$domain" ;;
  *) muc="conference.$domain" ;;
esac

# A copy of the installation in $1: everything but logs, the embedded database and plugins (except the admin console).
copy_home() {
  local home="$1" entry name
  rm -rf "$home"
  mkdir -p "$home/plugins" "$home/logs"
  for entry in "$src"/*; do
    name="$(basename "$entry")"
    case "$name" in logs|embedded-db|plugins) continue ;; esac
    cp -a "$entry" "$home/"
  done
  cp -a "$src/plugins/admin" "$home/plugins/admin"
  if [ -n "$plugin_jar" ]; then
    cp "$plugin_jar" "$home/plugins/mucscale.jar"
    echo "openfire.sh: plugin $plugin_jar ($(date -u -r "$plugin_jar" +%FT%TZ), $(stat -c %s "$plugin_jar") bytes)"
  fi
}

# conf/openfire.xml: file admin-port interface connection-provider-xml database-mode database-xml extra-xml
# (listener ports from $c2s and ${p[@]}; the XML properties are per node, the rest is in the database)
write_openfire_xml() {
  cat > "$1" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<!-- generated by bench/e2e/openfire.sh ($variant) -->
<jive>
  <adminConsole><port>$2</port><securePort>-1</securePort><interface>$3</interface></adminConsole>
  <network><interface>$3</interface></network>
  <locale>en</locale>
  $4$7
  <xmpp>
    <socket><plain><port>$c2s</port></plain><ssl><port>${p[0]}</port></ssl></socket>
    <server><socket><active>false</active><port>${p[1]}</port><ssl><active>false</active><port>${p[2]}</port></ssl></socket></server>
    <component><socket><active>false</active><port>${p[3]}</port></socket><ssl><active>false</active><port>${p[4]}</port></ssl></component>
    <multiplex><socket><active>false</active><port>${p[5]}</port></socket><ssl><active>false</active><port>${p[6]}</port></ssl></multiplex>
    <proxy><enabled>false</enabled><port>${p[7]}</port></proxy>
  </xmpp>
  <httpbind><enabled>${E2E_OPENFIRE_HTTPBIND:-false}</enabled><port><plain>${p[8]}</plain><secure>${p[9]}</secure></port></httpbind>
  <mediaproxy><enabled>false</enabled></mediaproxy>
  <update><service-enabled>false</service-enabled><notify-admins>false</notify-admins></update>
  <autosetup>
    <run>true</run>
    <locale>en</locale>
    <xmpp>
      <domain>$domain</domain>
      <fqdn>localhost</fqdn>
      <auth><anonymous>false</anonymous></auth>
      <socket><ssl><active>false</active></ssl></socket>
    </xmpp>
    <database><mode>$5</mode>$6</database>
    <admin><email>admin@$domain</email><password>$admin_password</password></admin>
  </autosetup>
</jive>
XML
}

# Database settings. Openfire reads its MUC service's settings only from ofMucServiceProp (no XML fallback), so the
# database is created here, by Openfire's own schema script, with these rows in it; autosetup then finds a current
# schema and keeps them. "P" rows go to ofProperty, "M" rows to the conference service's ofMucServiceProp.
db_settings() {
  echo "P register.inband=true"
  echo "P xmpp.client.tls.policy=disabled"
  echo "P xmpp.client.idle=-1"
  echo "P xmpp.client.idle.ping=false"
  echo "P xmpp.ratelimit.newconnections.c2s.enabled=false"
  echo "P xmpp.auth.anonymous=false"
  echo "P update.service-enabled=false"
  if { [ "$nodes" -gt 1 ] || [ -n "${E2E_HAZELCAST_PLUGIN:-}" ]; } && [ "$variant" = mucscale ]; then
    # the cluster benchmark's sampler reads every node's counters (from 127.0.0.1, without an admin login)
    echo "P mucscale.metrics.prometheus-enabled=true"
    echo "P mucscale.metrics.prometheus-allowed-addresses=127.0.0.1"
  fi
  for kv in ${E2E_OPENFIRE_PROPS:-}; do echo "P $kv"; done
  echo "M room.maxUsers=0"
  echo "M room.logEnabled=$muc_log"
  echo "M tasks.user.idle=-1"
  if [ "$history" = 0 ]; then echo "M history.type=none"; else echo "M history.type=number"; fi
  echo "M history.maxNumber=$history"
  if [ "$variant" = mucscale ]; then
    # what is measured is the server, not its flood limits: limits far above any scenario's rate (still evaluated)
    echo "P mucscale.muc.occupant-messages-per-second=1000000"
    echo "P mucscale.muc.occupant-burst=1000000"
    echo "P mucscale.muc.room-messages-per-second=10000000"
    echo "P mucscale.muc.room-burst=10000000"
    echo "P mucscale.muc.history-size=$history"
    echo "P mucscale.muc.default-max-occupants=100000"
    for kv in ${E2E_MUCSCALE_PROPS:-}; do echo "P $kv"; done
  fi
}

# The JVM of one Openfire: home record-name [extra JVM options...]; its pid is recorded
launch_openfire() {
  local home="$1" name="$2" jfr
  shift 2
  # shellcheck disable=SC2206
  local jvm=(${OPENFIRE_JAVA_OPTS:--Xms2g -Xmx2g -XX:+UseG1GC} "$@")
  if [ -n "${E2E_OPENFIRE_JFR:-}" ]; then
    jfr="$E2E_OPENFIRE_JFR"
    case "$jfr" in *filename=*) ;; *) jfr="$jfr,filename=$(dirname "$home")/openfire.jfr" ;; esac
    case "$jfr" in *settings=*) ;; *) jfr="$jfr,settings=profile" ;; esac
    jvm+=("-XX:StartFlightRecording=$jfr")
  fi
  local java_cmd=(java -server "${jvm[@]}" -DopenfireHome="$home" -Dopenfire.lib.dir="$home/lib"
    -Dlog4j.configurationFile="$home/lib/log4j2.xml" -Dlog4j2.formatMsgNoLookups=true -Djava.net.preferIPv4Stack=true
    -jar "$home/lib/startup.jar")
  launcher="${E2E_OPENFIRE_LAUNCHER:-java}"
  case "$launcher" in
    java) ;;
    openfire.sh)
      [ $# -eq 0 ] || e2e_die "E2E_OPENFIRE_LAUNCHER=openfire.sh starts one node only (a cluster node needs JVM options the env file does not carry)"
      [ -f "$home/bin/openfire.sh" ] || e2e_die "E2E_OPENFIRE_LAUNCHER=openfire.sh but $src has no bin/openfire.sh"
      env_file="${E2E_OPENFIRE_ENV_FILE:-/dev/null}"
      [ -r "$env_file" ] || e2e_die "E2E_OPENFIRE_ENV_FILE=$env_file cannot be read"
      local jfr_opt=; [ -n "${E2E_OPENFIRE_JFR:-}" ] && jfr_opt="${jvm[${#jvm[@]}-1]}"
      # sh, not bash: the init scripts and bin/openfire.sh are POSIX sh; each step execs the next, so $! is the JVM
      java_cmd=(env OPENFIRE_HOME="$home" ${E2E_OPENFIRE_JAVA_HOME:+JAVA_HOME="$E2E_OPENFIRE_JAVA_HOME"}
        E2E_ENV_FILE="$env_file" E2E_JFR_OPT="$jfr_opt"
        sh -c '. "$E2E_ENV_FILE" && OPENFIRE_OPTS="${OPENFIRE_OPTS:-} $E2E_JFR_OPT" && export OPENFIRE_OPTS &&
               unset E2E_ENV_FILE E2E_JFR_OPT && exec sh "$OPENFIRE_HOME/bin/openfire.sh"') ;;
    *) e2e_die "unknown E2E_OPENFIRE_LAUNCHER '$launcher' (java, openfire.sh)" ;;
  esac
  echo "${pin[*]} ${java_cmd[*]}" > "$(dirname "$home")/openfire-cmdline.txt"
  # one descriptor per client connection: ref-5000 needs more than a default soft limit of 1024
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  (cd "$home" && exec "${pin[@]}" "${java_cmd[@]}" > "$home/logs/stdout.log" 2>&1) &
  pid=$!
  # the subshell execs taskset, which execs java: $! is the JVM itself
  e2e_record "$name" "$pid"
  jvm_text="${jvm[*]}"
}

in_log() { # home text: how many lines of Openfire's log (without ANSI colours) contain text
  # grep -c, not -q: -q exits at the first match, sed then dies of SIGPIPE and pipefail fails the check at random
  sed 's/\x1b\[[0-9;]*m//g' "$1/logs/openfire.log" 2>/dev/null | grep -cF -- "$2" || true
}

wait_in_log() { # home text seconds what
  local i
  for i in $(seq 1 $(( $3 * 5 ))); do
    [ "$(in_log "$1" "$2")" -ge 1 ] && return 0
    sleep 0.2
  done
  tail -n 30 "$1/logs/openfire.log" >&2
  e2e_die "$4: no '$2' in $1/logs/openfire.log within $3 s"
}

c2s=$(e2e_free_port); admin=$(e2e_free_port)
p=(); for i in $(seq 1 10); do p+=("$(e2e_free_port)"); done
admin_password="e2e-admin-$RANDOM$RANDOM"
db_settings > "$work/openfire-db-settings.txt"

if [ "$nodes" = 1 ] && [ -z "${E2E_HAZELCAST_PLUGIN:-}" ]; then
home="$work/openfire"
copy_home "$home"
ln -sfn openfire/logs/openfire.log "$work/server.log"
write_openfire_xml "$home/conf/openfire.xml" "$admin" 127.0.0.1 \
  "<connectionProvider><className>org.jivesoftware.database.EmbeddedConnectionProvider</className></connectionProvider>" \
  embedded "" ""

mkdir -p "$work/tools"
cat > "$work/tools/CreateOpenfireDb.java" <<'JAVA'
import java.nio.file.*;
import java.sql.*;
import java.util.*;

/** Creates Openfire's embedded HSQLDB like Openfire's SchemaManager does, then adds the benchmark's settings. */
public class CreateOpenfireDb {
    public static void main(String[] a) throws Exception {
        Path db = Path.of(a[0]), script = Path.of(a[1]), settings = Path.of(a[2]);
        try (Connection c = DriverManager.getConnection("jdbc:hsqldb:" + db, "sa", "")) {
            StringBuilder stmt = new StringBuilder();
            for (String raw : Files.readAllLines(script)) {
                String line = raw.trim();
                if (line.isEmpty() || line.startsWith("//") || line.startsWith("--") || line.startsWith("#")
                        || line.startsWith("REM") || line.startsWith("/*") || line.startsWith("*")) {
                    continue;
                }
                stmt.append(line).append(' ');
                if (line.endsWith(";")) {
                    String sql = stmt.toString().trim();
                    try (Statement s = c.createStatement()) {
                        s.execute(sql.substring(0, sql.length() - 1));
                    }
                    stmt.setLength(0);
                }
            }
            // a later line for the same key wins (E2E_*_PROPS may override a default above)
            try (PreparedStatement p = c.prepareStatement("MERGE INTO ofProperty t USING (VALUES(CAST(? AS VARCHAR(100)), CAST(? AS VARCHAR(4000)))) v(n, x) ON t.name = v.n"
                    + " WHEN MATCHED THEN UPDATE SET t.propValue = v.x WHEN NOT MATCHED THEN INSERT (name, propValue, encrypted) VALUES (v.n, v.x, 0)");
                 PreparedStatement m = c.prepareStatement("MERGE INTO ofMucServiceProp t USING (VALUES(CAST(? AS VARCHAR(100)), CAST(? AS VARCHAR(4000)))) v(n, x) ON t.serviceID = 1 AND t.name = v.n"
                    + " WHEN MATCHED THEN UPDATE SET t.propValue = v.x WHEN NOT MATCHED THEN INSERT (serviceID, name, propValue) VALUES (1, v.n, v.x)")) {
                for (String line : Files.readAllLines(settings)) {
                    if (line.isBlank()) continue;
                    String kind = line.substring(0, 1), kv = line.substring(2);
                    int eq = kv.indexOf('=');
                    if (eq <= 0) throw new IllegalArgumentException("not key=value: " + kv);
                    PreparedStatement ps = kind.equals("P") ? p : m;
                    ps.setString(1, kv.substring(0, eq));
                    ps.setString(2, kv.substring(eq + 1));
                    ps.executeUpdate();
                }
            }
            try (Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            }
        }
    }
}
JAVA
mkdir -p "$home/embedded-db"
java -cp "$hsqldb_jar" "$work/tools/CreateOpenfireDb.java" "$home/embedded-db/openfire" \
  "$home/resources/database/openfire_hsqldb.sql" "$work/openfire-db-settings.txt" > "$work/create-db.log" 2>&1 \
  || { cat "$work/create-db.log" >&2; e2e_die "could not create the embedded database"; }

launch_openfire "$home" openfire
e2e_wait_port "$c2s" 180 openfire "$pid" || { tail -n 30 "$home/logs/stdout.log" "$home/logs/openfire.log" >&2; exit 1; }
e2e_wait_login "$c2s" "$domain" "$muc" 180 || { tail -n 30 "$home/logs/openfire.log" >&2; exit 1; }
if [ "$variant" = mucscale ]; then
  [ "$(in_log "$home" "MUC Scale started")" -ge 1 ] \
    || { tail -n 30 "$home/logs/openfire.log" >&2; e2e_die "mucscale answered disco but its start is not in the log"; }
fi
if [ "$launcher" = openfire.sh ]; then # what the launcher made of the env file: the JVM's own command line
  { echo "# the JVM's command line (/proc/$pid/cmdline):"; tr '\0' ' ' < "/proc/$pid/cmdline"; echo; } >> "$work/openfire-cmdline.txt"
fi
e2e_write_env "openfire-$variant"
# E2E_OPENFIRE_HTTPBIND=true: Openfire's HTTP binding (BOSH, and WebSocket at /ws/) on this port, for loadgen's
# clients.websocketShare profiles (run.sh passes it as clients.websocketPort)
[ "${E2E_OPENFIRE_HTTPBIND:-false}" = true ] && echo "HTTP_PORT=${p[8]}" >> "$work/server.env"
echo "ADMIN_URL=http://127.0.0.1:$admin/ (admin / $admin_password)" > "$work/admin.txt"
trap - EXIT
echo "openfire.sh: ready ($variant, pid $pid, $(tr '\n' ' ' < "$work/server.env"))"
if [ "$launcher" = openfire.sh ]; then
  echo "openfire.sh: started by $home/bin/openfire.sh with $env_file sourced; pinned: ${pin[*]:-no}"
else
  echo "openfire.sh: JVM: $jvm_text; pinned: ${pin[*]:-no}"
fi
exit 0
fi

# ---- a cluster of $nodes Openfire nodes (E2E_OPENFIRE_NODES; 1 with E2E_HAZELCAST_PLUGIN set: a one-member cluster) ----
hazelcast_jar="${E2E_HAZELCAST_PLUGIN:-}"
[ -n "$hazelcast_jar" ] && [ -f "$hazelcast_jar" ] \
  || e2e_die "E2E_OPENFIRE_NODES=$nodes needs E2E_HAZELCAST_PLUGIN, the path of Openfire's hazelcast plugin jar (was '$hazelcast_jar')"
[ "$nodes" -le 9 ] || e2e_die "at most 9 nodes (127.0.0.1 to 127.0.0.9)"
schema="$src/resources/database/openfire_mysql.sql"
[ -f "$schema" ] || e2e_die "no $schema in the installation"
e2e_start_mariadb
db_port="${jdbc_url#jdbc:mariadb://127.0.0.1:}"; db_port="${db_port%%/*}"
sql() { mariadb --no-defaults --socket="$work/mariadb/mysqld.sock" --user=root --batch mucscale "$@"; }
sql < "$schema" || e2e_die "could not create Openfire's schema from $schema"
python3 - "$work/openfire-db-settings.txt" > "$work/openfire-db-settings.sql" <<'PY'
import sys
def q(v):
    return "'" + v.replace("\\", "\\\\").replace("'", "''") + "'"
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if not line.strip():
        continue
    kind, kv = line[0], line[2:]
    k, sep, v = kv.partition("=")
    if not sep or not k:
        sys.exit("not key=value: " + kv)
    if kind == "P":
        print(f"INSERT INTO ofProperty (name, propValue, encrypted) VALUES ({q(k)}, {q(v)}, 0) "
              "ON DUPLICATE KEY UPDATE propValue = VALUES(propValue);")
    else:
        print(f"INSERT INTO ofMucServiceProp (serviceID, name, propValue) VALUES (1, {q(k)}, {q(v)}) "
              "ON DUPLICATE KEY UPDATE propValue = VALUES(propValue);")
PY
sql < "$work/openfire-db-settings.sql" || e2e_die "could not store the settings"
if [ -n "${E2E_OPENFIRE_ACCOUNTS:-}" ]; then
  # shellcheck disable=SC2086
  set -- $E2E_OPENFIRE_ACCOUNTS
  [ $# -ge 4 ] || e2e_die "E2E_OPENFIRE_ACCOUNTS must be '<prefix> <first> <count> <password> [iterations]'"
  t0=$(date +%s.%N)
  python3 "$e2e_root/bench/e2e/openfire_accounts.py" "$@" | sql || e2e_die "could not create the accounts"
  echo "openfire.sh: $3 accounts $1$2.. ($(sql -N -e 'SELECT COUNT(*) FROM ofUser') rows in ofUser) in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
fi

hz_ports=(); hz_members=""
for i in $(seq 1 "$nodes"); do hz_ports+=("$(e2e_free_port)"); hz_members="$hz_members          <member>127.0.0.1:${hz_ports[$((i - 1))]}</member>
"; done
separate="${E2E_OPENFIRE_SEPARATE:-0}"
# Hazelcast 5.5 on Java 17 wants these (it warns and runs slower without them); nothing leaves the machine
hz_jvm=(-Dhazelcast.phone.home.enabled=false -Dhazelcast.socket.bind.any=false --add-modules java.se
  --add-exports java.base/jdk.internal.ref=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED
  --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.management/sun.management=ALL-UNNAMED
  --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED)
provider="<defaultProvider><driver>com.mysql.cj.jdbc.Driver</driver><serverURL>jdbc:mysql://127.0.0.1:$db_port/mucscale?rewriteBatchedStatements=true&amp;allowLoadLocalInfileInPath=/nonexistent/mucscale-serves-no-local-files&amp;characterEncoding=UTF-8&amp;characterSetResults=UTF-8&amp;serverTimezone=UTC&amp;allowPublicKeyRetrieval=true&amp;useSSL=false</serverURL><username>$jdbc_user</username><password>$jdbc_password</password><minConnections>2</minConnections><maxConnections>25</maxConnections><connectionTimeout>1.0</connectionTimeout></defaultProvider>"
node_hosts=(); node_pids=(); node_metrics=(); members_text=""
for i in $(seq 1 "$nodes"); do members_text="$members_text${members_text:+, }e2e-node-$i"; done
for i in $(seq 1 "$nodes"); do
  host="127.0.0.$i"; nadmin=$(e2e_free_port); home="$work/node$i/openfire"
  mkdir -p "$work/node$i"
  copy_home "$home"
  write_openfire_xml "$home/conf/openfire.xml" "$nadmin" "$host" \
    "<connectionProvider><className>org.jivesoftware.database.DefaultConnectionProvider</className></connectionProvider>" \
    standard "$provider" "
  <database>$provider</database>
  <clustering><enabled>true</enabled><nodeid>e2e-node-$i</nodeid></clustering>"
  # before the hazelcast plugin's first start: it copies its multicast template only when this file is absent
  node_members="$hz_members"
  # separate: only itself to join (TCP-IP joins reach listed members only; the plugin's own config names the cluster)
  [ "$separate" = 1 ] && node_members="          <member>127.0.0.1:${hz_ports[$((i - 1))]}</member>
"
  cat > "$home/conf/hazelcast-local-config.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<hazelcast xmlns="http://www.hazelcast.com/schema/config" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
           xsi:schemaLocation="http://www.hazelcast.com/schema/config https://www.hazelcast.com/schema/config/hazelcast-config-5.5.xsd">
  <network>
    <port auto-increment="false">${hz_ports[$((i - 1))]}</port>
    <join>
      <multicast enabled="false"/>
      <tcp-ip enabled="true">
$node_members      </tcp-ip>
    </join>
    <interfaces enabled="true"><interface>127.0.0.1</interface></interfaces>
  </network>
</hazelcast>
XML
  cp "$hazelcast_jar" "$home/plugins/hazelcast.jar"
  ln -sfn "node$i/openfire/logs/openfire.log" "$work/server-node$i.log"
  if [ -n "${E2E_OPENFIRE_NODE_CPUS:-}" ] && [ ${#pin[@]} -gt 0 ]; then
    read -r -a node_cpus <<< "$E2E_OPENFIRE_NODE_CPUS"
    pin=(taskset -c "${node_cpus[$(( (i - 1) % ${#node_cpus[@]} ))]}")
  fi
  launch_openfire "$home" "openfire$i" "${hz_jvm[@]}"
  node_hosts+=("$host"); node_pids+=("$pid")
  node_metrics+=("http://$host:$nadmin/plugins/mucscale/metrics")
  echo "ADMIN_URL_$i=http://$host:$nadmin/ (admin / $admin_password)" >> "$work/admin.txt"
  for t in $(seq 1 1800); do
    (exec 3<>"/dev/tcp/$host/$c2s") 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { tail -n 30 "$home/logs/stdout.log" "$home/logs/openfire.log" >&2; e2e_die "node $i exited"; }
    sleep 0.1
  done
  wait_in_log "$home" "Joined cluster." 180 "node $i"
  python3 "$e2e_root/bench/e2e/xmpp_check.py" "$host" "$c2s" "$domain" "$muc" --register --timeout 180 \
    || { tail -n 30 "$home/logs/openfire.log" >&2; exit 1; }
  [ "$variant" = mucscale ] && wait_in_log "$home" "MUC Scale started" 60 "node $i"
done
if [ "$variant" = mucscale ] && [ "$nodes" -gt 1 ] && [ "$separate" != 1 ]; then
  for i in $(seq 1 "$nodes"); do wait_in_log "$work/node$i/openfire" "cluster members now [$members_text]" 120 "node $i"; done
fi
e2e_write_env "openfire-$variant-${nodes}n"
cat >> "$work/server.env" <<ENV
NODES=$nodes
NODE_HOSTS="${node_hosts[*]}"
NODE_PIDS="${node_pids[*]}"
NODE_METRICS="${node_metrics[*]}"
ENV
trap - EXIT
echo "openfire.sh: ready ($variant, $nodes nodes, $(tr '\n' ' ' < "$work/server.env"))"
echo "openfire.sh: JVM: $jvm_text; pinned: ${pin[*]:-no}"
