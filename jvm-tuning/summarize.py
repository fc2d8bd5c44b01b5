#!/usr/bin/env python3
"""Summarises one jvm-tuning/measure.sh run: the load generator's JSON, the GC log and mucscale's dashboard JSON.

Writes <out>/summary.json and <out>/summary.txt. GC figures are taken over the load window (from the generator's
start to its end, wall clock), so JVM start-up collections do not count.

GC log lines counted as pauses (unified logging, -Xlog:gc*):
  G1/Parallel/Serial  "[gc] GC(n) Pause Young (...) 100M->20M(1024M) 5.123ms", "Pause Remark ...", "Pause Full ..."
  ZGC (17 and 21+)    "[gc,phases] GC(n) [y: ]Pause Mark Start 0.012ms" (and Mark End, Relocate Start)
Both decoration sets are read: measure.sh's [uptime][timemillis] and the gc-log add-on's (and the operator forms')
[time][uptime]; rotated files (gc.log.0, gc.log.1, ...) are read with the live one.
Safepoint lines ("Total: N ns") give every stop-the-world stall including the time threads took to reach it.
ZGC "Allocation Stall" lines are application threads blocked waiting for memory: counted separately.
"""
import argparse
import datetime
import json
import math
import os
import re
import sys

# decorations as measure.sh asks for them: [uptime][timemillis][level][tags] (the JVM prints them in its own order)
LINE = re.compile(r'^\[[\d.]+s\]\[(\d+)ms\]\[(\w+)\s*\]\[([\w,]+)\s*\]\s*(.*)$')
# as the add-on and the operator forms ask for them: [time][uptime][level][tags], time in ISO 8601 with its offset
LINE_TIME = re.compile(r'^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+[+-]\d{4})\]\[[\d.]+s\]\[(\w+)\s*\]\[([\w,]+)\s*\]\s*(.*)$')
PAUSE = re.compile(r'\bPause\b.*?(\d+(?:\.\d+)?)ms$')
SAFEPOINT_TOTAL = re.compile(r'Total: (\d+) ns')
ALLOC_STALL = re.compile(r'Allocation Stall.*?(\d+(?:\.\d+)?)ms')


def pct(values, p):
    if not values:
        return 0.0
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(p / 100.0 * len(s)) - 1))
    return s[k]


def stats_ms(values):
    return {"count": len(values), "p50": round(pct(values, 50), 3), "p99": round(pct(values, 99), 3),
            "max": round(max(values), 3) if values else 0.0, "sum": round(sum(values), 1)}


def gc_log_lines(path):
    """(wall-clock ms, tags, message) of every decorated line of a GC log and of its rotated files (path.0, path.1,
    ...), in either decoration set: measure.sh's [uptime][timemillis] or the add-on's [time][uptime]."""
    files = [path] if os.path.exists(path) else []
    base = os.path.basename(path)
    folder = os.path.dirname(path) or "."
    if os.path.isdir(folder):
        files += [os.path.join(folder, n) for n in sorted(os.listdir(folder))
                  if n.startswith(base + ".") and n[len(base) + 1:].isdigit()]
    # JDK rotation: the live file is path, older ones path.0 ... path.N (file order does not matter for the figures)
    for name in files:
        with open(name, errors="replace") as f:
            for raw in f:
                line = raw.rstrip("\n")
                m = LINE.match(line)
                if m:
                    yield int(m.group(1)), m.group(3), m.group(4)
                    continue
                m = LINE_TIME.match(line)
                if m:
                    t = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f%z")
                    yield int(round(t.timestamp() * 1000)), m.group(3), m.group(4)


def parse_gc_log(path, start_ms, end_ms, events=None):
    """Pauses, safepoints and ZGC allocation stalls (each as stats_ms) inside [start_ms, end_ms], and the pauses of
    the whole log. With a list as events, each pause and safepoint inside the window is appended to it as
    {"t": end ms, "kind": "pause"|"safepoint", "ms": length, "what": the log's words for it}."""
    pauses, safepoints, stalls = [], [], []
    pauses_all = []
    for t, tags, msg in gc_log_lines(path):
        inside = start_ms <= t <= end_ms
        tagset = tags.split(",")
        if tagset[0] == "gc" and (len(tagset) == 1 or tagset == ["gc", "phases"]):
            pm = PAUSE.search(msg)
            if pm:
                pauses_all.append(float(pm.group(1)))
                if inside:
                    pauses.append(float(pm.group(1)))
                    if events is not None:
                        events.append({"t": t, "kind": "pause", "ms": float(pm.group(1)), "what": msg})
                continue
            am = ALLOC_STALL.search(msg)
            if am and inside:
                stalls.append(float(am.group(1)))
                if events is not None:
                    events.append({"t": t, "kind": "allocation-stall", "ms": float(am.group(1)), "what": msg})
        elif tagset == ["safepoint"] and inside:
            sm = SAFEPOINT_TOTAL.search(msg)
            if sm:
                safepoints.append(int(sm.group(1)) / 1e6)
                if events is not None:
                    events.append({"t": t, "kind": "safepoint", "ms": int(sm.group(1)) / 1e6, "what": msg})
    return stats_ms(pauses), stats_ms(safepoints), stats_ms(stalls), stats_ms(pauses_all)


def dashboard_pauses(path, start_ms, end_ms):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    ms = [float(p["ms"]) for p in d.get("gcPauses", []) if start_ms <= int(p["t"]) <= end_ms]
    r = stats_ms(ms)
    r["totalSinceStart"] = d.get("summary", {}).get("gcPauses")
    r["serverP99Ms"] = d.get("summary", {}).get("latencyP99Ms")
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--preset", required=True)
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--load-start-ms", type=int, required=True)
    ap.add_argument("--load-end-ms", type=int, required=True)
    ap.add_argument("--generator-exit", type=int, default=0)
    a = ap.parse_args()

    lg_dir = os.path.join(a.out, "loadgen")
    runs = sorted(f for f in os.listdir(lg_dir) if f.endswith(".json")) if os.path.isdir(lg_dir) else []
    if not runs:
        print("summarize: no loadgen result in %s (see %s/loadgen.txt)" % (lg_dir, a.out), file=sys.stderr)
        sys.exit(1)
    with open(os.path.join(lg_dir, runs[-1])) as f:
        lg = json.load(f)
    s = lg["summary"]
    measured = [l for l in lg.get("levels", []) if l.get("kind") in ("level", "soak")] or lg.get("levels", [])
    dps = [l.get("deliveriesPerSec", 0) for l in measured]
    gc, sp, stall, gc_all = parse_gc_log(os.path.join(a.out, "gc.log"), a.load_start_ms, a.load_end_ms)
    jdk = ""
    try:
        with open(os.path.join(a.out, "jdk.txt")) as f:
            jdk = f.readline().strip()
    except OSError:
        pass
    load = ""
    try:
        with open(os.path.join(a.out, "load-before.txt")) as f:
            load = f.read().strip().split("load average:")[-1].strip()
    except OSError:
        pass
    summary = {
        "preset": a.preset, "scenario": a.scenario, "jdk": jdk, "startedAt": lg.get("startedAt"),
        "loadAverageBefore": load, "generatorExit": a.generator_exit, "stoppedBy": lg.get("stoppedBy"),
        "users": s["users"], "rooms": s["rooms"], "loggedIn": s["loggedIn"], "joined": s["joined"],
        "deliveriesPerSec": round(sum(dps) / len(dps), 1) if dps else 0,
        "deliveries": s["deliveries"], "expectedDeliveries": s["expectedDeliveries"], "lost": s["lost"],
        "errors": s["errors"],
        "latencyMs": {k: s["latencyMs"][k] for k in ("p50", "p99", "p999", "max")},
        "levelLatencyMs": [{k: l.get(k) for k in ("ratePerSec", "deliveriesPerSec", "p50Ms", "p99Ms", "p999Ms", "maxMs")
                            if k in l} for l in measured],
        "gcPausesLogMs": gc, "gcPausesWholeRunMs": gc_all, "safepointMs": sp, "zgcAllocationStallMs": stall,
        "gcPausesMucscaleMs": dashboard_pauses(os.path.join(a.out, "dashboard.json"), a.load_start_ms, a.load_end_ms),
        "serverCpuUsPerDelivery": s.get("serverCpuUsPerDelivery"), "serverRssMbMax": s.get("serverRssMbMax"),
        "loadWindowS": round((a.load_end_ms - a.load_start_ms) / 1000.0, 1),
    }
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    # the measured level (warm-up and JIT start-up excluded) when there is one, else the whole run
    lvl = summary["levelLatencyMs"][-1] if summary["levelLatencyMs"] else {}
    lat = {"p50": lvl.get("p50Ms", summary["latencyMs"]["p50"]), "p99": lvl.get("p99Ms", summary["latencyMs"]["p99"]),
           "p999": lvl.get("p999Ms", summary["latencyMs"]["p999"]), "max": lvl.get("maxMs", summary["latencyMs"]["max"])}
    mg = summary["gcPausesMucscaleMs"] or {}
    text = ("%s [%s] %s: %.0f deliveries/s (%d of %d, lost %d), level latency ms p50 %.2f p99 %.2f p99.9 %.2f max %.2f; "
            "GC pauses (log) %d, p99 %.2f ms, max %.2f ms, sum %.0f ms; mucscale saw %s pauses, max %s ms; "
            "safepoint max %.2f ms; ZGC allocation stalls %d (max %.2f ms); server CPU %.2f us/delivery, RSS max %.0f MB; "
            "load average before %s" % (
                a.preset, jdk, a.scenario, summary["deliveriesPerSec"], s["deliveries"], s["expectedDeliveries"],
                s["lost"], lat["p50"], lat["p99"], lat["p999"], lat["max"], gc["count"], gc["p99"], gc["max"],
                gc["sum"], mg.get("count", "?"), mg.get("max", "?"), sp["max"], stall["count"], stall["max"],
                summary["serverCpuUsPerDelivery"] or -1, summary["serverRssMbMax"] or -1, load))
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
