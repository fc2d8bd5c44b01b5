#!/usr/bin/env python3
"""Markdown tables from a run-matrix.sh session folder (each sub-folder holds one measure.sh or measure-openfire.sh
summary.json; an Openfire session gets its own per-run table: worst second, collector's CPU share).

  python3 jvm-tuning/table.py jvm-tuning/results/<session> [--baseline g1-default]

Prints (1) every run in the order it ran, so the spread between rounds of the same preset is visible, and
(2) per preset the median over its runs, with ratios against the baseline's median from the same session.
Latencies are the measured level's (warm-up excluded); GC pauses are those inside the load window.
"""
import json
import os
import statistics
import sys

ORDER = ["g1-default", "g1-low-pause", "zgc", "zgc-generational", "parallel", "shenandoah"]


def load(session):
    runs = []
    for d in sorted(os.listdir(session)):
        f = os.path.join(session, d, "summary.json")
        if os.path.isfile(f):
            with open(f) as fh:
                s = json.load(fh)
            s["_dir"] = d
            runs.append(s)
    runs.sort(key=lambda s: s.get("startedAt") or "")
    return runs


def row(s):
    lvl = s["levelLatencyMs"][-1] if s.get("levelLatencyMs") else {}
    gc = s["gcPausesLogMs"]
    mg = s.get("gcPausesMucscaleMs") or {}
    return {
        "dps": lvl.get("deliveriesPerSec", s["deliveriesPerSec"]),
        "p50": lvl.get("p50Ms", 0), "p99": lvl.get("p99Ms", 0), "p999": lvl.get("p999Ms", 0),
        "max": lvl.get("maxMs", 0),
        "gcn": gc["count"], "gcp99": gc["p99"], "gcmax": gc["max"], "gcsum": gc["sum"],
        "mgn": mg.get("count", -1), "mgmax": mg.get("max", -1),
        "spmax": s["safepointMs"]["max"], "stalls": s["zgcAllocationStallMs"]["count"],
        "cpu": s.get("serverCpuUsPerDelivery") or -1, "rss": s.get("serverRssMbMax") or -1,
        "lost": s.get("lost", 0), "load": (s.get("loadAverageBefore") or "").split(",")[0],
    }


def fmt(v, nd=1):
    return ("%." + str(nd) + "f") % v if isinstance(v, (int, float)) else str(v)


def ratio(v, b):
    if not b:
        return "n/a"
    return "%.2f" % (v / b)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    session = sys.argv[1]
    baseline = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--baseline" else "g1-default"
    runs = load(session)
    if not runs:
        print("table: no summary.json under %s" % session, file=sys.stderr)
        sys.exit(1)
    if any(s.get("target") == "openfire" for s in runs):
        openfire_runs(runs)
    else:
        standalone_runs(runs)
    medians(runs, baseline)


def openfire_runs(runs):
    """measure-openfire.sh runs: the level's figures, its worst second and the collector's share of the JVM's CPU."""
    print("### Every run, in the order it ran (load average = 1-minute value just before the load)\n")
    print("| run | preset | JDK | form | load avg | deliveries/s | lost | p50 ms | p99 ms | p99.9 ms | max ms "
          "| worst second: max ms / stop-the-world before it ms | GC pauses | GC max ms | GC total ms "
          "| safepoint max ms | alloc stalls | GC threads' share of JVM CPU | JVM CPU % of a core "
          "| server CPU us/delivery | RSS MB |")
    print("|" + "---|" * 21)
    for s in runs:
        r = row(s)
        w = s.get("worstSecond") or {}
        tc = s.get("threadCpu") or {}
        print("| %s | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s / %s | %d | %s | %s | %s | %d | %s | %s | %s | %s |" % (
            s["_dir"], s["preset"], jdk_version(s["jdk"]), s.get("form", ""), r["load"], fmt(r["dps"], 0), r["lost"],
            fmt(r["p50"]), fmt(r["p99"]), fmt(r["p999"]), fmt(r["max"]), fmt(w.get("maxMs", "?")),
            fmt(w.get("safepointSumMs", "?"), 1), r["gcn"], fmt(r["gcmax"], 3), fmt(r["gcsum"], 1), fmt(r["spmax"], 3),
            r["stalls"], ("%.1f%%" % (100 * tc["gcCpuShare"])) if "gcCpuShare" in tc else "?",
            fmt(tc.get("processCpuPct", "?")), fmt(r["cpu"]), fmt(r["rss"], 0)))


def jdk_version(line):
    return line.replace("openjdk version ", "").split(" ")[0].strip('"')


def standalone_runs(runs):
    print("### Every run, in the order it ran (load average = 1-minute value just before the run)\n")
    print("| run | preset | JDK | load avg | deliveries/s | lost | p50 ms | p99 ms | p99.9 ms | max ms | GC pauses "
          "| GC p99 ms | GC max ms | GC total ms | mucscale saw (n / max ms) | safepoint max ms | alloc stalls "
          "| server CPU us/delivery | RSS MB |")
    print("|" + "---|" * 19)
    for s in runs:
        r = row(s)
        print("| %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %d | %s | %s | %s | %s / %s | %s | %d | %s | %s |" % (
            s["_dir"], s["preset"], s["jdk"].replace("openjdk version ", "").split(" ")[0].strip('"'), r["load"],
            fmt(r["dps"], 0), r["lost"], fmt(r["p50"]), fmt(r["p99"]), fmt(r["p999"]), fmt(r["max"]), r["gcn"],
            fmt(r["gcp99"], 2), fmt(r["gcmax"], 2), fmt(r["gcsum"], 0), r["mgn"], fmt(r["mgmax"], 0),
            fmt(r["spmax"], 2), r["stalls"], fmt(r["cpu"]), fmt(r["rss"], 0)))


def medians(runs, baseline):
    by = {}
    for s in runs:
        by.setdefault(s["preset"], []).append(row(s))
    names = [p for p in ORDER if p in by] + sorted(p for p in by if p not in ORDER)
    med = {p: {k: statistics.median([r[k] for r in by[p]]) for k in by[p][0] if k != "load"} for p in names}
    base = med.get(baseline)
    print("\n### Median per preset, and ratio to the %s median of the same session (lower is better)\n" % baseline)
    print("| preset | runs | p50 ms | p99 ms (x) | p99.9 ms (x) | max ms (x) | GC pauses | GC p99 ms | GC max ms (x) "
          "| GC total ms | safepoint max ms (x) | server CPU us/delivery (x) | RSS MB (x) |")
    print("|" + "---|" * 13)
    for p in names:
        m = med[p]
        b = base or {k: 0 for k in m}  # no baseline in the session: ratios read n/a, not 1.00
        print("| %s | %d | %s | %s (%s) | %s (%s) | %s (%s) | %s | %s | %s (%s) | %s | %s (%s) | %s (%s) | %s (%s) |" % (
            p, len(by[p]), fmt(m["p50"]), fmt(m["p99"]), ratio(m["p99"], b["p99"]), fmt(m["p999"]),
            ratio(m["p999"], b["p999"]), fmt(m["max"]), ratio(m["max"], b["max"]), fmt(m["gcn"], 0),
            fmt(m["gcp99"], 2), fmt(m["gcmax"], 2), ratio(m["gcmax"], b["gcmax"]), fmt(m["gcsum"], 0),
            fmt(m["spmax"], 2), ratio(m["spmax"], b["spmax"]), fmt(m["cpu"]), ratio(m["cpu"], b["cpu"]),
            fmt(m["rss"], 0), ratio(m["rss"], b["rss"])))


if __name__ == "__main__":
    main()
