#!/usr/bin/env python3
"""Where the server CPU of openfire-cluster.sh cases went, per thread group and level, against a baseline case.

    thread_groups.py BASELINE_RESULT_DIR CASE_RESULT_DIR... [--levels 2,3]

Reads each result directory's summary.json, where openfire_summary.py keeps the split per level
(threadGroupsUsPerDelivery, from cpu_by_group over threads.py's snapshots at the level's ends), and prints µs of CPU
per delivery by group (Openfire's socket writers, mucscale's room and cluster threads, Hazelcast, compilers, GC, the
admin console that answers the sampler's scrapes, ...) with each case's difference to the baseline at the same level.
A summary written before the split existed is refused with the command that adds it (its threads.jsonl is needed).
Thread sums miss threads that ended within the level (Hazelcast's cached executor threads, say), so the totals can be
below the summary's process CPU; the split is what this is for. Read-only.
"""
import json
import os
import re
import sys

# (name shown, pattern on threads.py's 15-character thread group names), first match wins
GROUPS = [
    ("Openfire socket writers", r"^socket_c2s-work"),
    ("Openfire other c2s", r"^socket_c2s"),
    ("mucscale room threads", r"^mucscale-room"),
    ("mucscale cluster threads", r"^mucscale-cluste"),
    ("Hazelcast", r"^hz\."),
    ("JIT compilers", r"^(C1|C2) Compiler|^Sweeper"),
    ("GC", r"^(GC Thread|G1 |VM Thread)"),
    ("admin console (scrapes)", r"^Jetty-QTP-Admin"),
]
OTHER = "everything else"
NAMES = [n for n, _ in GROUPS] + [OTHER]


def group(thread):
    for name, pattern in GROUPS:
        if re.search(pattern, thread):
            return name
    return OTHER


def cpu_by_group(before, after, clk_tck):
    """CPU seconds by group, summed over all nodes, between two threads.py snapshots."""
    groups = dict.fromkeys(NAMES, 0.0)
    for node, threads in after["threads"].items():
        prior = before["threads"].get(node) or {}
        for thread, ticks in (threads or {}).items():
            groups[group(thread)] += (ticks - prior.get(thread, 0)) / clk_tck
    return groups


def per_delivery(result_dir):
    """{level: {group: µs per delivery}} from the result's summary.json."""
    with open(os.path.join(result_dir, "summary.json")) as f:
        levels = json.load(f)["levels"]
    if not all("threadGroupsUsPerDelivery" in lv for lv in levels):
        sys.exit(f"thread_groups.py: {result_dir}/summary.json has no thread groups; write it again with "
                 f"bench/cluster/openfire_summary.py {result_dir} > {result_dir}/summary.json (needs its threads.jsonl)")
    return {lv["level"]: lv["threadGroupsUsPerDelivery"] for lv in levels}


def main(argv):
    levels = None
    if "--levels" in argv:
        i = argv.index("--levels")
        levels = {int(x) for x in argv[i + 1].split(",")}
        argv = argv[:i] + argv[i + 2:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    dirs = [d.rstrip("/") for d in argv]
    cases = [(os.path.basename(d), per_delivery(d)) for d in dirs]
    base_name, base = cases[0]
    for lv in sorted(base):
        if levels and lv not in levels:
            continue
        print(f"\nlevel {lv}: µs of CPU per delivery, all nodes summed (difference to {base_name})")
        header = "| thread group | " + " | ".join(n for n, _ in cases) + " |"
        print(header)
        print("|---" * (len(cases) + 1) + "|")
        for g in NAMES + ["total"]:
            cells = []
            for i, (_, c) in enumerate(cases):
                if lv not in c:
                    cells.append("–")
                    continue
                v = sum(c[lv].values()) if g == "total" else c[lv][g]
                b = sum(base[lv].values()) if g == "total" else base[lv][g]
                cells.append(f"{v:.2f}" if i == 0 else f"{v:.2f} ({v - b:+.2f})")
            print(f"| {g} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
