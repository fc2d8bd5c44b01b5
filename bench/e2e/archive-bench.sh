#!/usr/bin/env bash
# Issue 16's archive benchmark: `rooms50` at a fixed rate near half capacity behind ejabberd + mucscale standalone
# (MariaDB room log), with a room of COUNT (1,000,000) logged messages, in one session; see bench/e2e/README.md.
#
#   bench/e2e/archive-bench.sh [--rate 40] [--seconds 60] [--qps 20] [--count 1000000] [--cases "nolog off on query max"]
#
# Cases, each a fresh server (bench/e2e/run.sh ejabberd mucscale-mariadb rooms50) with the same prefilled room:
#   nolog  (a') log-all-rooms=false, archive-by-default=false: no room log at all (the no-logging reference)
#   off    (a)  archive-by-default=false: the baseline (log-all-rooms=true still writes the log)
#   on     (b)  archive-by-default=true (the default), no archive queries
#   query  (c)  as on, plus archive_load.py at --qps queries/s (pages of 50 after a random id) during the level
#   max    (d)  as on, plus archive_load.py as fast as 4 clients get answers (the most queries/s beside the chat)
# ejabberd, not Prosody: Prosody's component path did not carry rooms50's 2,000 joins (docs/benchmarks/e2e.md).
# Prints one table (chat deliveries/s, p99, server CPU µs/delivery, ratios against `off`; archive queries/s and p99).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
rate=40; seconds=60; qps=20; count=1000000; cases="nolog off on query max"
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) rate="$2"; shift 2 ;; --seconds) seconds="$2"; shift 2 ;; --qps) qps="$2"; shift 2 ;;
    --count) count="$2"; shift 2 ;; --cases) cases="$2"; shift 2 ;;
    *) sed -n '2,15p' "$0" >&2; exit 2 ;;
  esac
done
room=archive-bench
prefill="\"$here/archive_prefill.sh\" \"\$E2E_WORK\" $room@\$MUC_DOMAIN $count"
load() { # queries/s
  echo "exec python3 \"$here/archive_load.py\" 127.0.0.1 \$C2S_PORT \$DOMAIN \$MUC_DOMAIN --room $room --ids bench-:$count --rate $1 --clients 4 --window-log \"\$E2E_OUT/loadgen.log\" --out \"\$E2E_OUT/archive-load.json\""
}
dirs=()
for c in $cases; do
  beside=""
  case "$c" in
    nolog) props="mucscale.muc.log-all-rooms=false mucscale.muc.archive-by-default=false" ;;
    off) props="mucscale.muc.archive-by-default=false" ;;
    on) props="mucscale.muc.archive-by-default=true" ;;
    query) props="mucscale.muc.archive-by-default=true"; beside="$(load "$qps")" ;;
    max) props="mucscale.muc.archive-by-default=true"; beside="$(load 100000)" ;;
    *) echo "archive-bench.sh: unknown case $c" >&2; exit 2 ;;
  esac
  echo "archive-bench.sh: case $c ($props) load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  E2E_MUCSCALE_PROPS="$props" E2E_BEFORE_LOAD="$prefill" E2E_BESIDE_LOAD="$beside" \
    "$here/run.sh" ejabberd mucscale-mariadb rooms50 --set levels.ratesPerSec="$rate" --set levels.warmupS=20 \
      --set levels.durationS="$seconds" --set levels.p99ThresholdMs=100000 --set run.progressIntervalS=1 \
      > "/tmp/archive-bench-$c.log" 2>&1 || echo "archive-bench.sh: case $c exited $? (see /tmp/archive-bench-$c.log)" >&2
  d="$(sed -n 's/^run.sh: results in //p' "/tmp/archive-bench-$c.log" | tail -n 1)"
  [ -n "$d" ] && { echo "$c $d" >&2; dirs+=("$c=$d"); cp "/tmp/archive-bench-$c.log" "$d/archive-bench.log"; }
  sleep 10
done
python3 - "${dirs[@]}" <<'PY'
import glob, json, os, sys
rows, base = [], None
for arg in sys.argv[1:]:
    case, d = arg.split("=", 1)
    js = [f for f in glob.glob(d + "/*.json") if os.path.basename(f) not in ("meta.json", "summary.json",
          "mucscale-dashboard.json", "archive-load.json")]
    r = json.load(open(js[0]))
    lv = r["levels"][0]
    def g(*keys):
        for k in keys:
            if k in lv: return lv[k]
        return None
    meta = json.load(open(d + "/meta.json"))
    a = json.load(open(d + "/archive-load.json")) if os.path.exists(d + "/archive-load.json") else None
    row = {"case": case, "dps": g("deliveriesPerSec"), "p99": g("p99Ms"), "cpu": g("serverCpuUsPerDelivery"),
           "load": meta["load1_before"], "arch": a, "dir": os.path.basename(d)}
    if case == "off": base = row
    rows.append(row)
print("| case | deliveries/s | p99 ms | server CPU µs/delivery | ratio to off (p99, CPU) | archive queries/s, p50/p99 ms (errors, short pages) | load avg | run |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    ratio = "%.2f, %.2f" % (r["p99"] / base["p99"], r["cpu"] / base["cpu"]) if base and r["p99"] and r["cpu"] else "–"
    a = r["arch"]
    arch = "%.1f/s, %s/%s (%d, %d)" % (a["queriesPerSec"], a["p50Ms"], a["p99Ms"], a["errors"], a["shortPages"]) if a else "–"
    print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (r["case"], r["dps"], r["p99"], r["cpu"], ratio, arch, r["load"], r["dir"]))
PY
