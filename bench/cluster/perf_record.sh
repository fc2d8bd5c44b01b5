#!/usr/bin/env bash
# A perf profile of server JVMs during one phase of a loadgen run, Java frames named, for what JFR cannot see
# (kernel time: context switches, loopback TCP, futexes; and native IO of Hazelcast and Netty).
#
#   perf_record.sh OUT_DIR LOADGEN_LOG PHASE_REGEX SECONDS NAME=PID...
#
# Waits (at most 30 min) until LOADGEN_LOG has a progress line whose phase matches PHASE_REGEX ("level 2/", say),
# then records every PID at 499 Hz with call graphs (perf record -e cpu-clock -g) for SECONDS, asks each JVM for its
# symbol map (jcmd Compiler.perfmap, /tmp/perf-<pid>.map) and writes into OUT_DIR: perf.data, the maps, and two
# reports, perf-threads.txt (samples by thread group and node, as ms of CPU per second) and perf-symbols.txt (the
# top symbols of each node, kernel ones marked [k]). Frames of JIT-compiled code are walked only when the JVMs run
# with -XX:+PreserveFramePointer (openfire-cluster.sh's OFC_PERF_S adds it). Needs perf and root (or
# kernel.perf_event_paranoid <= 1). Read-only towards the JVMs; perf's own cost (a few % at 499 Hz) is in the phase.
set -euo pipefail
[ $# -ge 5 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
out="$1"; log="$2"; phase="$3"; secs="$4"; shift 4
command -v perf > /dev/null || { echo "perf_record.sh: perf is not installed (apt-get install linux-perf)" >&2; exit 2; }
mkdir -p "$out"
names=(); pids=()
for a in "$@"; do names+=("${a%%=*}"); pids+=("${a#*=}"); done
for i in $(seq 1 3600); do
  grep -Eq "^\[ *[0-9]+s\] $phase" "$log" 2>/dev/null && break
  sleep 0.5
done
grep -Eq "^\[ *[0-9]+s\] $phase" "$log" 2>/dev/null || { echo "perf_record.sh: no phase '$phase' in $log" >&2; exit 1; }
sleep 3 # into the phase, past its first progress line
perf record -q -e cpu-clock -F 499 -g -p "$(IFS=,; echo "${pids[*]}")" -o "$out/perf.data" -- sleep "$secs" \
  2> "$out/perf-record.log" || { echo "perf_record.sh: perf record failed (see $out/perf-record.log)" >&2; exit 1; }
for p in "${pids[@]}"; do
  timeout 60 jcmd "$p" Compiler.perfmap > /dev/null 2>&1 && cp "/tmp/perf-$p.map" "$out/" || true
done
perf script -i "$out/perf.data" -F pid,comm 2> /dev/null | PYTHONPATH="$(dirname "$0")" python3 -c '
import collections, sys
from threads import group  # the grouping threads.py records, so both name a thread group alike
secs, names = float(sys.argv[1]), dict(a.split("=", 1)[::-1] for a in sys.argv[2:])
ms, total = collections.Counter(), collections.Counter()
for line in sys.stdin:
    comm, _, pid = line.rstrip().rpartition(" ")
    node = names.get(pid.strip(), pid.strip())
    ms[(group(comm), node)] += 1000 / 499 / secs
    total[node] += 1000 / 499 / secs
print(f"# ms of CPU per second over {secs:g} s, by thread group (trailing digits dropped) and node")
for node, v in sorted(total.items()):
    print(f"{v:8.1f}  TOTAL  {node}")
for (name, node), v in ms.most_common():
    if v >= 0.5:
        print(f"{v:8.1f}  {name}  {node}")
' "$secs" "$@" > "$out/perf-threads.txt"
for i in "${!pids[@]}"; do
  echo "## ${names[$i]} (pid ${pids[$i]}): top symbols, % of this node's samples"
  perf report -i "$out/perf.data" --pid "${pids[$i]}" --no-children --sort sym -g none -q --stdio 2>/dev/null \
    | head -40 | cut -c1-200
done > "$out/perf-symbols.txt"
echo "perf_record.sh: $out/perf-threads.txt, $out/perf-symbols.txt" >&2
