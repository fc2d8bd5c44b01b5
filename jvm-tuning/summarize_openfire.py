#!/usr/bin/env python3
"""Summarises one jvm-tuning/measure-openfire.sh run: Openfire with mucscale inside, one preset, one fixed rate.

  summarize_openfire.py --out DIR --preset NAME --form FORM [--generator-exit N]

Reads from DIR: loadgen/*.json (the generator's report: the measured level and its 1-second series), gc.log (and its
rotated files; summarize.py's parser), threads.jsonl (threadcpu.py's samples of the Openfire JVM), jdk.txt,
load-before.txt. Every figure is over the measured level only (the warm-up and the login ramp excluded): its start and
end in wall-clock time come from the generator's series (one point a second, each covering the second before it).

Writes DIR/summary.json (the keys table.py reads, as measure.sh's summary, plus the ones below) and DIR/summary.txt:
  levelWindow            start/end ms of the measured level
  worstSecond            the 1-second interval of the level with the highest delivery maximum, with the GC pauses and
                         safepoints that ended in it or in the max latency before it (and the longest safepoint of the
                         5 s before that), and the CPU per thread category over the samples around it
  worstSeconds           the 5 worst seconds, each with its stop-the-world sum (for a pattern, not one sample)
  threadCpu              CPU per thread group and category over the level (threadcpu.groups_between), the collector's
                         share of the JVM's CPU (gcCpuShare) and each category's run-queue wait
"""
import argparse
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summarize  # noqa: E402  (the GC-log parser and the percentile helpers)
import threadcpu  # noqa: E402


def started_ms(lg):
    t = lg.get("startedAt")
    if not t:
        return None
    # Java's Instant.toString: 2026-11-28T09:30:00.123456789Z (fraction 0-9 digits)
    t = t.rstrip("Z")
    if "." in t:
        head, frac = t.split(".")
        t = head + "." + (frac + "000000")[:6]
    else:
        t = t + ".000000"
    return int(datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%f").replace(
        tzinfo=datetime.timezone.utc).timestamp() * 1000)


def level_points(lg, prefix=("level", "soak")):
    """The series points of the measured phase: the last level (or soak) phase's points."""
    pts = [p for p in lg.get("series", []) if str(p.get("phase", "")).startswith(prefix)]
    if not pts:
        return []
    last_phase = pts[-1]["phase"]
    return [p for p in pts if p["phase"] == last_phase]


def level_window(lg):
    """(start ms, end ms) of the measured level, wall clock; None when the report has no level points."""
    t0 = started_ms(lg)
    pts = level_points(lg)
    if t0 is None or not pts:
        return None
    return int(t0 + (pts[0]["t"] - 1.0) * 1000), int(t0 + pts[-1]["t"] * 1000)


def worst_seconds(lg, n=5):
    t0 = started_ms(lg)
    pts = sorted(level_points(lg), key=lambda p: -p.get("maxMs", 0))[:n]
    return [{"endMs": int(t0 + p["t"] * 1000), "t": p["t"], "maxMs": p.get("maxMs"), "p99Ms": p.get("p99Ms"),
             "p999Ms": p.get("p999Ms"), "deliveriesPerSec": p.get("deliveriesPerSec"),
             "serverCpuPct": p.get("serverCpuPct")} for p in pts]


def core_by_second(lg, samples, worst_n=10):
    """What the server's core did per second of the level, averaged over all seconds and over the worst_n seconds
    by max latency: the JVM's CPU, softirq, steal and other busy time, and idle, in ms per second (threadcpu's
    cores_between between consecutive samples). Tells a tail made inside the JVM (JVM CPU up, idle gone) from one
    made beside it on the same core (otherMs up). None without per-CPU samples."""
    t0 = started_ms(lg)
    pts = level_points(lg)
    if t0 is None or not pts or not samples or "cpus" not in samples[0]:
        return None
    rows = []
    for p in pts:
        end = int(t0 + p["t"] * 1000)
        a, b = threadcpu.bracket(samples, end - 1000, end)
        c = threadcpu.cores_between(a, b) if a and b else None
        if c and b["t"] > a["t"]:
            per_s = 1000.0 / (b["t"] - a["t"])
            rows.append((p.get("maxMs") or 0.0, {
                "jvmMs": (b["proc"] - a["proc"]) / 1e6 * per_s, "softirqMs": c["softirqMs"] * per_s,
                "stealMs": c["stealMs"] * per_s, "otherMs": c["otherMs"] * per_s, "idleMs": c["idleMs"] * per_s}))
    if not rows:
        return None

    def mean(sel):
        return {k: round(sum(r[1][k] for r in sel) / len(sel), 1) for k in sel[0][1]}

    worst = sorted(rows, key=lambda r: -r[0])[:worst_n]
    return {"seconds": len(rows), "all": mean(rows), "worst": mean(worst), "worstN": len(worst),
            "worstMaxMs": [round(r[0], 1) for r in worst]}


def stalls_before(events, end_ms, span_ms):
    """GC pauses and safepoints that ended in [end_ms - span_ms, end_ms]: a delivery that arrived in the second ending
    at end_ms with latency L was in flight during [arrival - L, arrival]."""
    inside = [e for e in events if end_ms - span_ms <= e["t"] <= end_ms]
    sp = [e for e in inside if e["kind"] == "safepoint"]
    gc = [e for e in inside if e["kind"] == "pause"]
    longest = max(sp, key=lambda e: e["ms"], default=None)
    # a stall can outlast the pause that started it (a backlog drains only as fast as spare CPU allows): the 5 s
    # before the window, for context
    earlier = [e for e in events if e["kind"] == "safepoint" and end_ms - span_ms - 5000 <= e["t"] < end_ms - span_ms]
    prev = max(earlier, key=lambda e: e["ms"], default=None)
    return {"safepoints": len(sp), "safepointSumMs": round(sum(e["ms"] for e in sp), 3),
            "safepointMaxMs": round(longest["ms"], 3) if longest else 0.0,
            "longestSafepoint": longest["what"] if longest else None,
            "gcPauses": len(gc), "gcPauseSumMs": round(sum(e["ms"] for e in gc), 3),
            "safepointMaxMs5sBefore": round(prev["ms"], 3) if prev else 0.0,
            "safepointMaxMs5sBeforeEndedMsBefore": round(end_ms - span_ms - prev["t"]) if prev else None}


def read_first_line(path):
    try:
        with open(path) as f:
            return f.readline().strip()
    except OSError:
        return ""


def summarize_run(out, preset, form, generator_exit=0):
    lg_dir = os.path.join(out, "loadgen")
    runs = sorted(f for f in os.listdir(lg_dir) if f.endswith(".json")) if os.path.isdir(lg_dir) else []
    if not runs:
        raise SystemExit("summarize_openfire: no loadgen result in %s (see %s/loadgen.txt)" % (lg_dir, out))
    with open(os.path.join(lg_dir, runs[-1])) as f:
        lg = json.load(f)
    s = lg["summary"]
    levels = [l for l in lg.get("levels", []) if l.get("kind") in ("level", "soak")]
    lvl = levels[-1] if levels else {}
    window = level_window(lg)
    events = []
    if window:
        gc, sp, stall, gc_all = summarize.parse_gc_log(os.path.join(out, "gc.log"), window[0], window[1], events)
    else:
        gc, sp, stall, gc_all = summarize.parse_gc_log(os.path.join(out, "gc.log"), 0, 0)
    longest_sp = max((e for e in events if e["kind"] == "safepoint"), key=lambda e: e["ms"], default=None)

    samples_path = os.path.join(out, "threads.jsonl")
    samples = threadcpu.load(samples_path) if os.path.exists(samples_path) else []
    thread_cpu = None
    if window and samples:
        a, b = threadcpu.bracket(samples, window[0], window[1])
        if a and b:
            thread_cpu = threadcpu.groups_between(a, b)
            gc_ms = thread_cpu["categories"].get("gc", {}).get("cpuMs", 0.0)
            thread_cpu["gcCpuShare"] = round(gc_ms / thread_cpu["processCpuMs"], 4) if thread_cpu["processCpuMs"] else 0
            thread_cpu["groups"] = thread_cpu["groups"][:25]

    # the generator's own pauses: one delays every delivery it times at that moment, as a server pause would
    gen_events = []
    gen_gc_path = os.path.join(out, "loadgen-gc.log")
    gen_gc = None
    if window and os.path.exists(gen_gc_path):
        gen_gc = summarize.parse_gc_log(gen_gc_path, window[0], window[1], gen_events)[0]
    worst = worst_seconds(lg) if window else []
    for w in worst:
        w.update(stalls_before(events, w["endMs"], 1000 + (w["maxMs"] or 0)))
        if gen_gc is not None:
            inside = [e for e in gen_events if e["kind"] == "pause"
                      and w["endMs"] - 1000 - (w["maxMs"] or 0) <= e["t"] <= w["endMs"]]
            w["generatorGcPauses"] = len(inside)
            w["generatorGcPauseMaxMs"] = round(max((e["ms"] for e in inside), default=0.0), 3)
    worst_one = dict(worst[0]) if worst else None
    if worst_one and samples:
        a, b = threadcpu.bracket(samples, worst_one["endMs"] - 1000 - int(worst_one["maxMs"] or 0), worst_one["endMs"])
        if a and b:
            g = threadcpu.groups_between(a, b)
            worst_one["threadCpu"] = {"spanMs": g["spanMs"], "processCpuPct": g["processCpuPct"],
                                      "categories": g["categories"], "groups": g["groups"][:8], "cores": g["cores"]}
    for w in worst:
        # what the server's core did in each worst second besides running the JVM (softirq, steal, other tasks)
        a, b = threadcpu.bracket(samples, w["endMs"] - 1000 - int(w["maxMs"] or 0), w["endMs"]) if samples else (0, 0)
        w["cores"] = threadcpu.cores_between(a, b) if a and b else None

    summary = {
        "target": "openfire", "preset": preset, "form": form, "jdk": read_first_line(os.path.join(out, "jdk.txt")),
        "scenario": lg.get("scenarioName"), "startedAt": lg.get("startedAt"),
        "loadAverageBefore": read_first_line(os.path.join(out, "load-before.txt")).split("load average:")[-1].strip(),
        "generatorExit": generator_exit, "stoppedBy": lg.get("stoppedBy"),
        "users": s["users"], "rooms": s["rooms"], "loggedIn": s["loggedIn"], "joined": s["joined"],
        "deliveriesPerSec": lvl.get("deliveriesPerSec", 0), "deliveries": s["deliveries"],
        "expectedDeliveries": s["expectedDeliveries"], "lost": s["lost"], "errors": s["errors"],
        "latencyMs": {k: s["latencyMs"][k] for k in ("p50", "p99", "p999", "max")},
        "levelLatencyMs": [{k: l.get(k) for k in ("ratePerSec", "seconds", "deliveriesPerSec", "p50Ms", "p99Ms",
                                                   "p999Ms", "maxMs") if k in l} for l in levels],
        "levelWindow": {"startMs": window[0], "endMs": window[1]} if window else None,
        "gcPausesLogMs": gc, "gcPausesWholeRunMs": gc_all, "safepointMs": sp,
        "longestSafepoint": longest_sp["what"] if longest_sp else None, "zgcAllocationStallMs": stall,
        "gcPausesMucscaleMs": None,
        "serverCpuUsPerDelivery": lvl.get("serverCpuUsPerDelivery", s.get("serverCpuUsPerDelivery")),
        "serverRssMbMax": s.get("serverRssMbMax"),
        "worstSecond": worst_one, "worstSeconds": worst, "threadCpu": thread_cpu,
        "coreBySecond": core_by_second(lg, samples) if window else None,
        "loopbackRps": read_first_line(os.path.join(out, "lo-rps.txt")) or None,
        "generatorGcPausesMs": gen_gc,
    }
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    text = summary_text(summary)
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text + "\n")
    return summary, text


def summary_text(sm):
    lvl = sm["levelLatencyMs"][-1] if sm["levelLatencyMs"] else {}
    gc, sp = sm["gcPausesLogMs"], sm["safepointMs"]
    w = sm.get("worstSecond") or {}
    tc = sm.get("threadCpu") or {}
    cats = tc.get("categories", {})
    cat_text = ", ".join("%s %.1f%%" % (c, 100 * v["cpuShare"]) for c, v in
                         sorted(cats.items(), key=lambda kv: -kv[1]["cpuMs"]))
    return ("%s [%s] via %s, openfire %s: %.0f deliveries/s over %.0f s (lost %d of %d); level latency ms p50 %.2f "
            "p99 %.2f p99.9 %.2f max %.2f; worst second max %s ms (p99 %s) with %s ms of safepoints before it; "
            "GC pauses %d, max %.3f ms, total %.1f ms; safepoint max %.3f ms; allocation stalls %d; "
            "server CPU %s us/delivery, RSS max %s MB; GC threads' share of the JVM's CPU %s (JVM %s%% of a core; %s); "
            "load average before %s" % (
                sm["preset"], sm["jdk"], sm["form"], sm.get("scenario"), lvl.get("deliveriesPerSec", 0),
                lvl.get("seconds", 0), sm["lost"], sm["expectedDeliveries"], lvl.get("p50Ms", 0), lvl.get("p99Ms", 0),
                lvl.get("p999Ms", 0), lvl.get("maxMs", 0), w.get("maxMs", "?"), w.get("p99Ms", "?"),
                w.get("safepointSumMs", "?"), gc["count"], gc["max"], gc["sum"], sp["max"],
                sm["zgcAllocationStallMs"]["count"], sm.get("serverCpuUsPerDelivery"), sm.get("serverRssMbMax"),
                ("%.1f%%" % (100 * tc["gcCpuShare"])) if tc else "?", tc.get("processCpuPct", "?"), cat_text,
                sm["loadAverageBefore"])) + core_text(sm.get("coreBySecond")) + generator_text(sm)


def generator_text(sm):
    g = sm.get("generatorGcPausesMs")
    if not g:
        return ""
    hit = [w for w in sm.get("worstSeconds") or [] if w.get("generatorGcPauses")]
    return ("; the generator's GC pauses %d, max %.3f ms, total %.1f ms; %d of the %d worst seconds had one" % (
        g["count"], g["max"], g["sum"], len(hit), len(sm.get("worstSeconds") or [])))


def core_text(cb):
    if not cb:
        return ""
    a, w = cb["all"], cb["worst"]
    return ("; server core per second, all %d seconds vs the worst %d: JVM %.0f/%.0f ms, softirq %.0f/%.0f, "
            "steal %.0f/%.0f, other %.0f/%.0f, idle %.0f/%.0f" % (
                cb["seconds"], cb["worstN"], a["jvmMs"], w["jvmMs"], a["softirqMs"], w["softirqMs"],
                a["stealMs"], w["stealMs"], a["otherMs"], w["otherMs"], a["idleMs"], w["idleMs"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--preset", required=True)
    ap.add_argument("--form", required=True)
    ap.add_argument("--generator-exit", type=int, default=0)
    a = ap.parse_args()
    _, text = summarize_run(a.out, a.preset, a.form, a.generator_exit)
    print(text)


if __name__ == "__main__":
    main()
