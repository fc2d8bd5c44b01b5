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
set -euo pipefail
source "$(dirname "$0")/lib.sh"

usage() { sed -n '2,30p' "$0" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd="$1"; work="$2"; variant="${3:-}"
E2E_STOP_WAIT_S="${E2E_STOP_WAIT_S:-60}"

log_summary() { # the WARN/ERROR lines of Openfire's log, without its ANSI colours
  local log="$work/openfire/logs/openfire.log"
  [ -f "$log" ] || return 0
  local w e
  w=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -c ' WARN ' || true)
  e=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -c ' ERROR ' || true)
  echo "openfire.sh: $log: $w WARN, $e ERROR lines" >&2
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
home="$work/openfire"
rm -rf "$home"
mkdir -p "$home/plugins" "$home/logs"
# Everything but logs, the embedded database and plugins (except the admin console) from the installation.
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
ln -sfn openfire/logs/openfire.log "$work/server.log"

c2s=$(e2e_free_port); admin=$(e2e_free_port)
p=(); for i in $(seq 1 10); do p+=("$(e2e_free_port)"); done
admin_password="e2e-admin-$RANDOM$RANDOM"

cat > "$home/conf/openfire.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<!-- generated by bench/e2e/openfire.sh ($variant) -->
<jive>
  <adminConsole><port>$admin</port><securePort>-1</securePort><interface>127.0.0.1</interface></adminConsole>
  <network><interface>127.0.0.1</interface></network>
  <locale>en</locale>
  <connectionProvider><className>org.jivesoftware.database.EmbeddedConnectionProvider</className></connectionProvider>
  <xmpp>
    <socket><plain><port>$c2s</port></plain><ssl><port>${p[0]}</port></ssl></socket>
    <server><socket><active>false</active><port>${p[1]}</port><ssl><active>false</active><port>${p[2]}</port></ssl></socket></server>
    <component><socket><active>false</active><port>${p[3]}</port></socket><ssl><active>false</active><port>${p[4]}</port></ssl></component>
    <multiplex><socket><active>false</active><port>${p[5]}</port></socket><ssl><active>false</active><port>${p[6]}</port></ssl></multiplex>
    <proxy><enabled>false</enabled><port>${p[7]}</port></proxy>
  </xmpp>
  <httpbind><enabled>false</enabled><port><plain>${p[8]}</plain><secure>${p[9]}</secure></port></httpbind>
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
    <database><mode>embedded</mode></database>
    <admin><email>admin@$domain</email><password>$admin_password</password></admin>
  </autosetup>
</jive>
XML

# Database settings. Openfire reads its MUC service's settings only from ofMucServiceProp (no XML fallback), so the
# embedded database is created here, by Openfire's own schema script, with these rows in it; autosetup then finds a
# current schema and keeps them. "P" rows go to ofProperty, "M" rows to the conference service's ofMucServiceProp.
{
  echo "P register.inband=true"
  echo "P xmpp.client.tls.policy=disabled"
  echo "P xmpp.client.idle=-1"
  echo "P xmpp.client.idle.ping=false"
  echo "P xmpp.ratelimit.newconnections.c2s.enabled=false"
  echo "P xmpp.auth.anonymous=false"
  echo "P update.service-enabled=false"
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
} > "$work/openfire-db-settings.txt"

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

# shellcheck disable=SC2206
jvm=(${OPENFIRE_JAVA_OPTS:--Xms2g -Xmx2g -XX:+UseG1GC})
if [ -n "${E2E_OPENFIRE_JFR:-}" ]; then
  jfr="$E2E_OPENFIRE_JFR"
  case "$jfr" in *filename=*) ;; *) jfr="$jfr,filename=$work/openfire.jfr" ;; esac
  case "$jfr" in *settings=*) ;; *) jfr="$jfr,settings=profile" ;; esac
  jvm+=("-XX:StartFlightRecording=$jfr")
fi
java_cmd=(java -server "${jvm[@]}" -DopenfireHome="$home" -Dopenfire.lib.dir="$home/lib"
  -Dlog4j.configurationFile="$home/lib/log4j2.xml" -Dlog4j2.formatMsgNoLookups=true -Djava.net.preferIPv4Stack=true
  -jar "$home/lib/startup.jar")
launcher="${E2E_OPENFIRE_LAUNCHER:-java}"
case "$launcher" in
  java) ;;
  openfire.sh)
    [ -f "$home/bin/openfire.sh" ] || e2e_die "E2E_OPENFIRE_LAUNCHER=openfire.sh but $src has no bin/openfire.sh"
    env_file="${E2E_OPENFIRE_ENV_FILE:-/dev/null}"
    [ -r "$env_file" ] || e2e_die "E2E_OPENFIRE_ENV_FILE=$env_file cannot be read"
    jfr_opt=; [ -n "${E2E_OPENFIRE_JFR:-}" ] && jfr_opt="${jvm[${#jvm[@]}-1]}"
    # sh, not bash: the init scripts and bin/openfire.sh are POSIX sh; each step execs the next, so $! is the JVM
    java_cmd=(env OPENFIRE_HOME="$home" ${E2E_OPENFIRE_JAVA_HOME:+JAVA_HOME="$E2E_OPENFIRE_JAVA_HOME"}
      E2E_ENV_FILE="$env_file" E2E_JFR_OPT="$jfr_opt"
      sh -c '. "$E2E_ENV_FILE" && OPENFIRE_OPTS="${OPENFIRE_OPTS:-} $E2E_JFR_OPT" && export OPENFIRE_OPTS &&
             unset E2E_ENV_FILE E2E_JFR_OPT && exec sh "$OPENFIRE_HOME/bin/openfire.sh"') ;;
  *) e2e_die "unknown E2E_OPENFIRE_LAUNCHER '$launcher' (java, openfire.sh)" ;;
esac
echo "${pin[*]} ${java_cmd[*]}" > "$work/openfire-cmdline.txt"
# one descriptor per client connection: ref-5000 needs more than a default soft limit of 1024
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
(cd "$home" && exec "${pin[@]}" "${java_cmd[@]}" > "$home/logs/stdout.log" 2>&1) &
pid=$!
# the subshell execs taskset, which execs java: $! is the JVM itself
e2e_record openfire "$pid"
e2e_wait_port "$c2s" 180 openfire "$pid" || { tail -n 30 "$home/logs/stdout.log" "$home/logs/openfire.log" >&2; exit 1; }
e2e_wait_login "$c2s" "$domain" "$muc" 180 || { tail -n 30 "$home/logs/openfire.log" >&2; exit 1; }
if [ "$variant" = mucscale ]; then
  # grep -c, not -q: -q exits at the first match, sed then dies of SIGPIPE and pipefail fails the check at random
  sed 's/\x1b\[[0-9;]*m//g' "$home/logs/openfire.log" | grep -c "MUC Scale started" > /dev/null \
    || { tail -n 30 "$home/logs/openfire.log" >&2; e2e_die "mucscale answered disco but its start is not in the log"; }
fi
if [ "$launcher" = openfire.sh ]; then # what the launcher made of the env file: the JVM's own command line
  { echo "# the JVM's command line (/proc/$pid/cmdline):"; tr '\0' ' ' < "/proc/$pid/cmdline"; echo; } >> "$work/openfire-cmdline.txt"
fi
e2e_write_env "openfire-$variant"
echo "ADMIN_URL=http://127.0.0.1:$admin/ (admin / $admin_password)" > "$work/admin.txt"
trap - EXIT
echo "openfire.sh: ready ($variant, pid $pid, $(tr '\n' ' ' < "$work/server.env"))"
if [ "$launcher" = openfire.sh ]; then
  echo "openfire.sh: started by $home/bin/openfire.sh with $env_file sourced; pinned: ${pin[*]:-no}"
else
  echo "openfire.sh: JVM: ${jvm[*]}; pinned: ${pin[*]:-no}"
fi
