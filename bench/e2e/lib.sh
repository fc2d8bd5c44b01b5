# Shared helpers for bench/e2e/<server>.sh (sourced, not run). Everything stays on 127.0.0.1.
#
# Process bookkeeping: every process a start script launches is recorded in <workdir>/started.pids as
# "<name> <pid> <starttime>" (starttime: field 22 of /proc/<pid>/stat), and `stop` signals only those, and only
# while the pid still has the recorded start time, so a recycled pid is never hit.

e2e_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
e2e_m2="${E2E_M2_REPO:-$HOME/.m2/repository}"   # captured before any script changes HOME
E2E_SERVER_CPU="${E2E_SERVER_CPU:-0}"

e2e_die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# pin: the server side runs on CPU $E2E_SERVER_CPU (E2E_PIN=0 turns pinning off, e.g. on a 1-CPU machine).
# A prefix array, not a function, so that "${pin[@]}" cmd & makes $! the server's own pid (taskset execs it).
pin=()
if [ "${E2E_PIN:-1}" = 1 ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  pin=(taskset -c "$E2E_SERVER_CPU")
fi

e2e_free_port() { # a loopback port nothing listens on and not handed out earlier in this workdir
  # below the kernel's ephemeral range: the generator's thousands of client sockets (and their TIME_WAIT) live there,
  # and a port that refuses connections can still be taken (seen: ejabberd's listener failed with eaddrinuse)
  local p low
  low=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  [ "$low" -gt 11000 ] 2>/dev/null || low=32768
  while :; do
    p=$(( 10000 + RANDOM % (low - 10000) ))
    grep -qx "$p" "$work/ports" 2>/dev/null && continue
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
    echo "$p" >> "$work/ports"
    echo "$p"; return
  done
}

e2e_wait_port() { # port seconds what [pid that must stay alive]
  local i
  for i in $(seq 1 $(( $2 * 10 ))); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    if [ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null; then echo "$3 exited before opening port $1" >&2; return 1; fi
    sleep 0.1
  done
  echo "$3 did not open port $1 within $2 s" >&2; return 1
}

e2e_starttime() { awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null; }

e2e_record() { # name pid
  echo "$1 $2 $(e2e_starttime "$2")" >> "$work/started.pids"
}

e2e_alive() { # pid starttime
  [ -n "$2" ] && [ "$(e2e_starttime "$1")" = "$2" ]
}

# Stops what started.pids lists, newest first: TERM, up to E2E_STOP_WAIT_S (20) s, then KILL.
e2e_stop_recorded() {
  local f="$work/started.pids" name pid st i
  [ -f "$f" ] || return 0
  tac "$f" | while read -r name pid st; do
    e2e_alive "$pid" "$st" || continue
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 $(( ${E2E_STOP_WAIT_S:-20} * 10 ))); do e2e_alive "$pid" "$st" || break; sleep 0.1; done
    if e2e_alive "$pid" "$st"; then
      echo "stop: $name ($pid) ignored TERM for ${E2E_STOP_WAIT_S:-20} s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  mv "$f" "$f.stopped"
}

e2e_command_and_variant() { # usage-lines "$@": sets cmd, work, variant, muc, log_mode; handles "stop" itself
  local usage="$1"; shift
  [ $# -ge 2 ] || { sed -n "$usage" "$0" >&2; exit 2; }
  cmd="$1"; work="$2"; variant="${3:-}"
  case "$cmd" in
    stop) work="$(cd "$work" && pwd)"; e2e_stop_recorded; exit 0 ;;
    start) ;;
    *) sed -n "$usage" "$0" >&2; exit 2 ;;
  esac
  case "$variant" in
    muc) muc=conference.localhost; log_mode= ;;
    mucscale) muc=muc.localhost; log_mode=hsqldb ;;
    mucscale-mariadb) muc=muc.localhost; log_mode=mariadb ;;
    mucscale-nolog) muc=muc.localhost; log_mode=none ;;
    *) e2e_die "unknown variant '$variant' (muc, mucscale, mucscale-mariadb, mucscale-nolog)" ;;
  esac
}

e2e_check_workdir() { # creates it; refuses one that still has running processes
  mkdir -p "$work"
  work="$(cd "$work" && pwd)"
  if [ -f "$work/started.pids" ]; then
    e2e_die "$work/started.pids exists: stop the previous server first ($0 stop $work)"
  fi
}

e2e_wait_login() { # port domain [muc domain] [timeout s]
  python3 "$e2e_root/bench/e2e/xmpp_check.py" 127.0.0.1 "$1" "$2" ${3:+"$3"} --register --timeout "${4:-60}"
}

e2e_write_env() { # label, then uses $c2s $domain $muc and started.pids
  local pids
  pids="$(awk '$1 != "helper" { printf "%s%s", sep, $2; sep=" " }' "$work/started.pids")"
  cat > "$work/server.env" <<ENV
C2S_PORT=$c2s
DOMAIN=$domain
MUC_DOMAIN=$muc
SERVER_PIDS="$pids"
LABEL=$1
ENV
}

# ---- mucscale standalone (shared by every server that takes an XEP-0114 component) ----

e2e_standalone_jar() {
  local jar="${E2E_STANDALONE_JAR:-}"
  [ -n "$jar" ] || jar="$e2e_root/standalone/target-e2e/mucscale-standalone.jar"
  if [ ! -f "$jar" ]; then
    echo "building mucscale standalone (suffix -e2e, tests skipped)" >&2
    (cd "$e2e_root" && mvn -B -ntp -q -pl standalone -am -DskipTests -Dmucscale.build.suffix=-e2e package >&2) \
      || e2e_die "could not build the standalone jar"
  fi
  echo "$jar"
}

# Starts a throwaway MariaDB for the room log (log mode "mariadb"): its own datadir under the workdir, a free
# loopback port, default durability (innodb_flush_log_at_trx_commit=1). Sets $jdbc_url $jdbc_user $jdbc_password.
e2e_start_mariadb() {
  local port sock i
  port=$(e2e_free_port); sock="$work/mariadb/mysqld.sock"
  mkdir -p "$work/mariadb/data"
  local as_root=(); [ "$(id -u)" = 0 ] && as_root=(--user=root)
  mariadb-install-db --no-defaults --datadir="$work/mariadb/data" --auth-root-authentication-method=socket \
    --skip-test-db --skip-name-resolve "${as_root[@]}" > "$work/mariadb/install.log" 2>&1 \
    || { tail -n 20 "$work/mariadb/install.log" >&2; e2e_die "mariadb-install-db failed"; }
  "${pin[@]}" /usr/sbin/mariadbd --no-defaults --datadir="$work/mariadb/data" --port="$port" --bind-address=127.0.0.1 \
    --socket="$sock" --pid-file="$work/mariadb/mysqld.pid" --log-error="$work/mariadb/error.log" \
    --skip-name-resolve --skip-log-bin --performance-schema=OFF --innodb-buffer-pool-size=256M \
    --max-connections=100 --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci "${as_root[@]}" \
    > "$work/mariadb/stdout.log" 2>&1 &
  e2e_record mariadb $!
  e2e_wait_port "$port" 60 mariadbd $! || { tail -n 20 "$work/mariadb/error.log" >&2; return 1; }
  for i in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.1; done
  mariadb --no-defaults --socket="$sock" --user=root --batch -e \
    "CREATE DATABASE mucscale CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
     CREATE USER 'bench'@'%' IDENTIFIED BY 'bench-secret'; GRANT ALL PRIVILEGES ON mucscale.* TO 'bench'@'%';" \
    || e2e_die "could not create the mucscale database"
  jdbc_url="jdbc:mariadb://127.0.0.1:$port/mucscale"; jdbc_user=bench; jdbc_password=bench-secret
}

# Starts mucscale standalone as the component $muc on 127.0.0.1:$comp with secret $secret, pinned to the server CPU.
# Log mode: hsqldb (embedded, default), mariadb (throwaway MariaDB, also pinned to the server CPU) or none.
# E2E_MUCSCALE_NODES=N (default 1): N standalone nodes forming one mucscale cluster (embedded Hazelcast on free
# loopback ports, cluster name unique to the workdir), each in <workdir>/node<i>/ (mucscale.properties, mucscale.log,
# db/), all connecting to the same component port; <workdir>/mucscale.properties is a link to node 1's. With 1 (the
# default) nothing changes: one unclustered node with its files directly in <workdir>. Every node is recorded as
# "mucscale<i>" (one node: "mucscale") and so counted as a server process.
e2e_start_standalone() { # log-mode
  local nodes="${E2E_MUCSCALE_NODES:-1}" i members="" cports=() hz_opts
  case "$nodes" in ''|*[!0-9]*|0) e2e_die "E2E_MUCSCALE_NODES must be a number >= 1, was '$nodes'" ;; esac
  [ "$1" = mariadb ] && e2e_start_mariadb
  if [ "$nodes" = 1 ]; then
    e2e_start_standalone_node "$1" "$work" mucscale ""
    return
  fi
  for i in $(seq 1 "$nodes"); do cports+=("$(e2e_free_port)"); members="$members${members:+,}127.0.0.1:${cports[$((i - 1))]}"; done
  # Hazelcast 5.5 on Java 17 wants these (it warns and runs slower without them)
  hz_opts="--add-modules java.se --add-exports java.base/jdk.internal.ref=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.management/sun.management=ALL-UNNAMED --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED"
  for i in $(seq 1 "$nodes"); do
    mkdir -p "$work/node$i"
    e2e_start_standalone_node "$1" "$work/node$i" "mucscale$i" "$hz_opts" \
      "mucscale.standalone.cluster-enabled=true" "mucscale.standalone.cluster-members=$members" \
      "mucscale.standalone.cluster-port=${cports[$((i - 1))]}" "mucscale.standalone.cluster-name=e2e-$(basename "$work")"
  done
  ln -sf "node1/mucscale.properties" "$work/mucscale.properties"
}

# One standalone node: log-mode dir record-name extra-java-opts [extra key=value settings...]
e2e_start_standalone_node() {
  local jar http mode="$1" dir="$2" name="$3" extra_opts="$4"
  shift 4
  jar="$(e2e_standalone_jar)"
  http=$(e2e_free_port)
  {
    echo "mucscale.standalone.server-host=127.0.0.1"
    echo "mucscale.standalone.server-port=$comp"
    echo "mucscale.standalone.component-domain=$muc"
    echo "mucscale.standalone.component-secret=$secret"
    echo "mucscale.store.spill-directory=$dir/spill"
    echo "mucscale.metrics.http-port=$http"
    echo "mucscale.metrics.prometheus-enabled=true"
    # what is measured is the server, not its flood limits: limits far above any scenario's rate (still evaluated)
    echo "mucscale.muc.occupant-messages-per-second=1000000"
    echo "mucscale.muc.occupant-burst=1000000"
    echo "mucscale.muc.room-messages-per-second=10000000"
    echo "mucscale.muc.room-burst=10000000"
    echo "mucscale.muc.history-size=0"
    echo "mucscale.muc.default-max-occupants=100000"
    case "$mode" in
      hsqldb) echo "mucscale.store.jdbc-url=jdbc:hsqldb:file:$dir/db/mucscale;shutdown=true" ;;
      mariadb)
        echo "mucscale.store.jdbc-url=$jdbc_url"
        echo "mucscale.store.jdbc-user=$jdbc_user"
        echo "mucscale.store.jdbc-password=$jdbc_password" ;;
      none) echo "mucscale.store.enabled=false" ;;
      *) e2e_die "unknown log mode $mode" ;;
    esac
    [ $# -gt 0 ] && printf '%s\n' "$@"
    [ -n "${E2E_MUCSCALE_PROPS:-}" ] && printf '%s\n' $E2E_MUCSCALE_PROPS
  } > "$dir/mucscale.properties"
  # The standalone jar bundles only HSQLDB; for MariaDB the client jar (Maven's copy) goes on the class path.
  local launch=(-jar "$jar")
  if [ "$mode" = mariadb ]; then
    local driver="${E2E_MARIADB_DRIVER:-$e2e_m2/org/mariadb/jdbc/mariadb-java-client/3.5.1/mariadb-java-client-3.5.1.jar}"
    if [ ! -f "$driver" ]; then
      (cd "$e2e_root" && mvn -B -ntp -q dependency:get -Dartifact=org.mariadb.jdbc:mariadb-java-client:3.5.1 >&2) || true
    fi
    [ -f "$driver" ] || e2e_die "no MariaDB JDBC driver at $driver (set E2E_MARIADB_DRIVER)"
    launch=(-cp "$jar:$driver" org.mucscale.standalone.Main)
  fi
  # G1 named explicitly: on one pinned CPU the JVM would otherwise pick the Serial collector.
  # shellcheck disable=SC2086
  "${pin[@]}" java ${E2E_MUCSCALE_JAVA_OPTS:--XX:+UseG1GC -Xms256m -Xmx1g} $extra_opts "${launch[@]}" --config "$dir/mucscale.properties" \
    > "$dir/mucscale.log" 2>&1 &
  e2e_record "$name" $!
  e2e_wait_port "$http" 90 "mucscale standalone ($name)" $! || { tail -n 30 "$dir/mucscale.log" >&2; return 1; }
}

# Waits until `want` standalone nodes log that their component link is up (a clustered node that cannot get the link,
# e.g. Prosody's second connection, keeps retrying in the background and never logs it).
e2e_wait_links() { # want seconds
  local i n f
  for i in $(seq 1 $(( $2 * 10 ))); do
    n=0
    for f in "$work"/mucscale.log "$work"/node*/mucscale.log; do
      [ -f "$f" ] && grep -q "component $muc: connected to" "$f" && n=$((n + 1))
    done
    [ "$n" -ge "$1" ] && return 0
    sleep 0.1
  done
  echo "only $n of $1 standalone nodes hold a component link after $2 s" >&2; return 1
}

# Waits until the 1-minute load average is below $1 (at most $2 s, checking every 5 s), then prints the load average
# it ended at; past $2 s it warns on stderr and prints the load anyway (the caller records it either way). $3 names
# the caller in its messages.
e2e_wait_idle() { # max-load max-wait-s caller-name
  local i l
  for ((i = 0; i < $2; i += 5)); do
    l="$(cut -d' ' -f1 /proc/loadavg)"
    awk -v l="$l" -v m="$1" 'BEGIN { exit !(l < m) }' && { echo "$l"; return; }
    [ $((i % 60)) = 0 ] && echo "$3: load average $l >= $1; waiting (up to $2 s)" >&2
    sleep 5
  done
  l="$(cut -d' ' -f1 /proc/loadavg)"
  echo "$3: WARNING: still not idle after $2 s (load $l); measuring anyway, recorded" >&2
  echo "$l"
}

# The load generator for a run script: exports MUCSCALE_LOADGEN_JAR (E2E_LOADGEN_JAR, or loadgen/target-e2e/, built
# from the checkout with suffix -e2e when missing) and sets gen_pin, the prefix that pins it to CPU $E2E_GEN_CPU (1)
# (empty with E2E_PIN=0 or on one CPU). $1 names the caller in its messages.
e2e_loadgen_setup() { # caller-name
  local jar="${E2E_LOADGEN_JAR:-$e2e_root/loadgen/target-e2e/mucscale-loadgen.jar}"
  if [ ! -f "$jar" ]; then
    echo "$1: building the load generator (suffix -e2e, tests skipped)" >&2
    (cd "$e2e_root" && mvn -B -ntp -q -pl loadgen -am -DskipTests -Dmucscale.build.suffix=-e2e package >&2)
  fi
  export MUCSCALE_LOADGEN_JAR="$jar"
  gen_pin=()
  if [ "${E2E_PIN:-1}" = 1 ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    gen_pin=(taskset -c "${E2E_GEN_CPU:-1}")
  fi
}
