#!/usr/bin/env bash
# Several mucscale plugin jars inside the same Openfire, interleaved, each run a fresh Openfire (issue 14 item 1:
# "with clustering off, the single-node end-to-end figures must not drop"; docs/benchmarks/cluster.md).
#
#   bench/e2e/plugin-ab.sh [--rounds N] [--scenario S] [--tag T] NAME=JAR [NAME=JAR ...] [-- loadgen options]
#   bench/e2e/plugin-ab.sh ... --lock-per-round ...   # hold the lock over a whole round, not per run
#   bench/e2e/plugin-ab.sh ... --lock-whole ...       # hold it over every round (a session that must not be cut)
#   bench/e2e/plugin-ab.sh ... --until HH:MM ...      # start no run after this UTC time (the rest is skipped)
#   bench/e2e/plugin-ab.sh ... --runs FILE ...        # append to this run list (continue a session) instead of a new one
#   bench/e2e/plugin-ab.sh --summarize RUNS_FILE [--scenario S] [-- loadgen options]   # the table again, from a .runs file
#
# Round i runs every NAME=JAR once through `E2E_PLUGIN_JAR=JAR bench/e2e/run.sh openfire mucscale S <options>`; odd
# rounds in the order given, even rounds reversed (A B, B A, ...), so a machine that drifts during the session
# weighs on every arm alike. Each run holds `flock $E2E_BENCH_LOCK` (/work/bench.lock: other benchmarks on the shared
# machine take the same lock) and records the 1-minute load average when it got the lock and when it finished.
# At the end: bench/e2e/results/plugin-ab-<UTC time>[-T].md, one row per run (every level: offered msg/s,
# deliveries/s, p50, p99, server CPU µs per delivery, lost; and the medians over the level's 1-s samples of server
# CPU per delivery and of p99, which one interference spike on the shared machine moves less than the level's own
# figures), then per arm the mean over its runs and the ratio of each arm to the first. The run list (arm, jar
# sha256, load averages, exit, results dir) is kept beside it as plugin-ab-<time>.runs. Bounded: run.sh bounds each
# run (the scenario's deadline + 180 s).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
rounds=2; scenario=ref-5000; tag=; summarize=; per_round=0; runs=; until=
arms=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --scenario) scenario="$2"; shift 2 ;;
    --tag) tag="-$2"; shift 2 ;;
    --summarize) summarize="$2"; shift 2 ;;
    --lock-per-round) per_round=1; shift ;;
    --lock-whole) per_round=2; shift ;;
    --until) until="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --) shift; break ;;
    *=*) arms+=("$1"); shift ;;
    *) sed -n '2,22p' "$0" >&2; exit 2 ;;
  esac
done
[ ${#arms[@]} -ge 1 ] || [ -n "$summarize" ] || { sed -n '2,22p' "$0" >&2; exit 2; }
case "$rounds" in ''|*[!0-9]*) echo "plugin-ab.sh: --rounds must be a whole number" >&2; exit 2 ;; esac
for a in "${arms[@]}"; do [ -f "${a#*=}" ] || { echo "plugin-ab.sh: no jar ${a#*=}" >&2; exit 2; }; done
summary() { # runs file, scenario, options: the markdown table
python3 - "$1" "$2" "$3" <<'PY'
import glob, json, os, statistics, sys
runs_path, scenario, opts = sys.argv[1], sys.argv[2], sys.argv[3]
rows, per_arm = [], {}
for line in open(runs_path):
    name, sha, before, after, status, ended, d = line.split()
    # loadgen's results file is named after the run's label: <label>-<scenario>-<time>.json (run.sh)
    js = glob.glob(os.path.join(d, "*-%s-*.json" % scenario)) if d != "none" else []
    levels, lost, series = [], None, []
    if js:
        r = json.load(open(js[0]))
        levels = [l for l in r.get("levels", []) if l.get("kind") == "level"]
        lost = "%d / %d" % (r["summary"]["lost"], r["summary"]["expectedDeliveries"])
        series = r.get("series", [])
    for n, l in enumerate(levels, 1):
        # the level's 1-s samples (phase "level <n>/<m> ..."): medians of server CPU per delivery and of p99
        sec = [x for x in series if x.get("phase", "").startswith("level %d/" % n) and x.get("deliveriesPerSec", 0) > 0]
        l = dict(l)
        l["srvMed"] = statistics.median([x["serverCpuPct"] * 1e4 / x["deliveriesPerSec"] for x in sec]) if sec else float("nan")
        l["p99Med"] = statistics.median([x["p99Ms"] for x in sec]) if sec else float("nan")
        rows.append("| %s | %s | %s | %s → %s | %g | %.0f | %.2f | %.1f | %.2f | %.2f | %.1f | %s | %s |" % (
            name, sha, os.path.basename(d), before, after, l["ratePerSec"], l["deliveriesPerSec"], l["p50Ms"],
            l["p99Ms"], l["serverCpuUsPerDelivery"], l["srvMed"], l["p99Med"], lost, status))
        per_arm.setdefault(name, {}).setdefault(l["ratePerSec"], []).append(l)
    if not levels:
        rows.append("| %s | %s | %s | %s → %s | – | – | – | – | – | – | – | – | %s (no levels) |" % (
            name, sha, os.path.basename(d), before, after, status))
print("# plugin-ab: %s inside Openfire, interleaved\n" % scenario)
print("Options: `%s`; runs: `%s`\n" % (opts, os.path.basename(runs_path)))
print("| arm | jar sha256 | results | load1 before → after | msg/s | deliveries/s | p50 ms | p99 ms | server CPU µs/delivery "
      "| median of 1-s samples: µs/delivery | median of 1-s samples: p99 ms | lost / expected | exit |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
print("\n".join(rows))
names = list(per_arm)
if names:
    print("\nMeans per arm and level (ratio to %s):\n" % names[0])
    print("| arm | msg/s | runs | deliveries/s | p50 ms | p99 ms | server CPU µs/delivery | median-of-1-s µs | CPU ratio "
          "| median-of-1-s ratio | p50 ratio | p99 ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    mean = lambda ls, k: sum(l[k] for l in ls) / len(ls)
    for n in names:
        for rate, ls in sorted(per_arm[n].items()):
            base = per_arm[names[0]].get(rate)
            ratio = lambda k: "%.3f" % (mean(ls, k) / mean(base, k)) if base and mean(base, k) else "–"
            print("| %s | %g | %d | %.0f | %.2f | %.1f | %.2f | %.2f | %s | %s | %s | %s |" % (
                n, rate, len(ls), mean(ls, "deliveriesPerSec"), mean(ls, "p50Ms"), mean(ls, "p99Ms"),
                mean(ls, "serverCpuUsPerDelivery"), mean(ls, "srvMed"), ratio("serverCpuUsPerDelivery"),
                ratio("srvMed"), ratio("p50Ms"), ratio("p99Ms")))
PY
}

if [ -n "$summarize" ]; then
  summary "$summarize" "$scenario" "$*"
  exit 0
fi
lock="${E2E_BENCH_LOCK:-/work/bench.lock}"
stamp="$(date -u +%Y%m%dT%H%MZ)"
if [ -z "$runs" ]; then
  runs="$here/results/plugin-ab-$stamp$tag.runs"   # name, jar sha256, load before, load after, exit, ended, results dir
  : > "$runs"
else
  stamp="$(basename "$runs" .runs)"; stamp="${stamp#plugin-ab-}"; tag=
fi
take_lock() { exec 9>"$lock"; flock 9; }
drop_lock() { flock -u 9; exec 9>&-; }

late() { [ -n "$until" ] && [ "$(date -u +%H:%M)" \> "$until" ]; }
if [ "$per_round" = 2 ]; then
  echo "plugin-ab.sh: every round, waiting for $lock" >&2
  take_lock
fi
for ((r = 1; r <= rounds; r++)); do
  order=("${arms[@]}")
  if (( r % 2 == 0 )); then
    order=(); for ((k = ${#arms[@]} - 1; k >= 0; k--)); do order+=("${arms[$k]}"); done
  fi
  if [ "$per_round" = 1 ]; then
    echo "plugin-ab.sh: round $r/$rounds, waiting for $lock" >&2
    take_lock
  fi
  for a in "${order[@]}"; do
    name="${a%%=*}"; jar="${a#*=}"
    if late; then echo "plugin-ab.sh: past $until UTC: $name of round $r skipped" >&2; continue; fi
    if [ "$per_round" = 0 ]; then
      echo "plugin-ab.sh: round $r/$rounds: $name ($jar), waiting for $lock" >&2
      take_lock
    fi
    before="$(cut -d' ' -f1 /proc/loadavg)"
    echo "plugin-ab.sh: $(date -u +%T) lock held, load1 $before: $name" >&2
    status=0
    E2E_PLUGIN_JAR="$jar" "$here/run.sh" openfire mucscale "$scenario" "$@" > "$runs.$r.$name.log" 2>&1 9>&- || status=$?
    after="$(cut -d' ' -f1 /proc/loadavg)"
    if [ "$per_round" = 0 ]; then drop_lock; fi
    dir="$(sed -n 's/^run.sh: results in //p' "$runs.$r.$name.log" | tail -n 1)"
    echo "$name $(sha256sum "$jar" | cut -c1-12) $before $after $status $(date -u +%T) ${dir:-none}" >> "$runs"
    echo "plugin-ab.sh: $(date -u +%T) $name exit $status, load1 $before -> $after, $dir" >&2
    [ -n "$dir" ] && cp "$runs.$r.$name.log" "$dir/plugin-ab.log" && rm -f "$runs.$r.$name.log"
    sleep 10
  done
  if [ "$per_round" = 1 ]; then drop_lock; fi
done
if [ "$per_round" = 2 ]; then drop_lock; fi

summary "$runs" "$scenario" "$*" > "$here/results/plugin-ab-$stamp$tag.md"
cat "$here/results/plugin-ab-$stamp$tag.md"
