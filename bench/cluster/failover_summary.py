#!/usr/bin/env python3
"""Summarizes bench/cluster/failover.sh results: per run the failover figures and the phases of its timeline.

    python3 bench/cluster/failover_summary.py bench/cluster/results/<dir> [<dir> ...]

Writes <dir>/summary.json and prints a Markdown table (one row per run, then min-max over the runs)."""
import json
import re
import sys
from pathlib import Path

EVENT = re.compile(r"^TIMELINE\s+([+-]\d+) ms\s+(.*)$")
SUMMARY = re.compile(r"rooms accept again after (-?\d+) ms; first 1-s window with p99 < 100 ms: (none|\+(-?\d+) ms); "
                     r"p99 < 100 ms for good after (-?\d+) ms; backlog drained after (-?\d+) ms")
ROUND = re.compile(r"until \+(-?\d+)")
BEFORE = re.compile(r"round-trip p99 in the 3 s before the kill: (\d+) ms")


def phases(lines):
    """The instants (ms after the kill) a reader of the timeline looks for first."""
    p = {}
    rounds = []

    def first(key, ms):
        if key not in p:
            p[key] = ms

    for line in lines:
        m = EVENT.match(line)
        if not m:
            continue
        ms, text = int(m.group(1)), m.group(2)
        if "component link | connected" in text:
            first("link_taken_over", ms)
        elif "hazelcast suspects" in text:
            first("hz_suspect", ms)
        elif "hazelcast removed the dead member" in text:
            first("hz_removed", ms)
            p["hz_removed_last"] = ms
        elif "engine view without" in text:
            first("view_changed", ms)
            p["view_changed_last"] = ms
        elif "on its room thread" in text:
            p["last_room_adopted"] = max(p.get("last_room_adopted", ms), ms)
        elif "replication round starts" in text:
            end = ROUND.search(text)
            if end:
                rounds.append((ms, int(end.group(1))))
        elif "hazelcast migrations done" in text:
            first("hz_migrations_done", ms)
        elif "accepts a message again" in text:
            key = "dead_owner_rooms_accept" if "the dead node's" in text else "live_owner_rooms_accept"
            p[key] = max(p.get(key, ms), ms)
    # the writes the failure stalled: rounds that started after the kill and before the last view change
    stalled = [end for start, end in rounds if 0 <= start <= p.get("view_changed_last", -1)]
    if stalled:
        p["stalled_writes_end"] = max(stalled)
    return p


def summarize(d):
    d = Path(d)
    meta = json.loads((d / "meta.json").read_text())
    runs = []
    for f in sorted(d.glob("run-*.txt"), key=lambda x: int(re.search(r"run-(\d+)", x.name).group(1))):
        lines = f.read_text().splitlines()
        n = int(re.search(r"run-(\d+)", f.name).group(1))
        load = next((l for l in meta["loads"] if l["run"] == n), {})
        run = {"run": n, "exit": load.get("exit"), "load1_before": load.get("load1_before"),
               "load1_after": load.get("load1_after"), "phases": phases(lines),
               "timeline": [l for l in lines if l.startswith("TIMELINE") or l.startswith("GRACEFUL")]}
        for line in lines:
            b = BEFORE.search(line)
            if b:
                run["p99_before_kill_ms"] = int(b.group(1))
            m = SUMMARY.search(line)
            if m:
                run["rooms_accept_again_ms"] = int(m.group(1))
                run["first_p99_window_ms"] = None if m.group(2) == "none" else int(m.group(3))
                run["p99_for_good_ms"] = int(m.group(4))
                run["backlog_drained_ms"] = int(m.group(5))
        runs.append(run)
    summary = {"meta": meta, "runs": runs}
    (d / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def table(summaries):
    cols = [("p99 before the kill", "p99_before_kill_ms"), ("rooms accept again", "rooms_accept_again_ms"),
            ("first 1-s p99<100", "first_p99_window_ms"), ("p99<100 for good", "p99_for_good_ms"),
            ("backlog drained", "backlog_drained_ms")]
    pcols = [("link", "link_taken_over"), ("hz suspect", "hz_suspect"), ("hz removed", "hz_removed"),
             ("view", "view_changed"), ("writes unstalled", "stalled_writes_end"),
             ("last room adopted", "last_room_adopted"), ("dead owner's rooms", "dead_owner_rooms_accept"),
             ("live owners' rooms", "live_owner_rooms_accept")]
    print("| result | run | load1 before/after | " + " | ".join(c for c, _ in cols) + " | "
          + " | ".join(c for c, _ in pcols) + " |")
    print("|" + "---|" * (3 + len(cols) + len(pcols)))
    for d, s in summaries:
        for r in s["runs"]:
            v = [fmt(r.get(k)) for _, k in cols] + [fmt(r["phases"].get(k)) for _, k in pcols]
            print(f"| {Path(d).name} | {r['run']} (exit {r['exit']}) | {r['load1_before']}/{r['load1_after']} | "
                  + " | ".join(v) + " |")
        ok = [r for r in s["runs"] if r.get("rooms_accept_again_ms") is not None]
        if ok:
            def spread(vals):
                vals = [x for x in vals if x is not None]
                return f"{min(vals) / 1000:.1f}-{max(vals) / 1000:.1f} s" if vals else "-"
            v = [spread([r.get(k) for r in ok]) for _, k in cols] + [spread([r["phases"].get(k) for r in ok])
                                                                      for _, k in pcols]
            print(f"| {Path(d).name} | {len(ok)} runs | | " + " | ".join(v) + " |")


def fmt(x):
    return "-" if x is None else f"{x / 1000:.2f} s"


if __name__ == "__main__":
    table([(d, summarize(d)) for d in sys.argv[1:]])
