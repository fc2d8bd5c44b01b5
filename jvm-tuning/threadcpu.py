#!/usr/bin/env python3
"""CPU per thread of one process, sampled from /proc, and grouped by thread name.

  threadcpu.py sample --pid PID --out FILE [--interval-s 1] [--max-s 1800]

Appends one JSON line per sample to FILE: {"t": wall-clock ms, "up": seconds since boot, "tick": ns per clock tick,
"proc": process CPU ns (utime+stime of /proc/PID/stat), "threads": [[tid, name, cpu ns, run-queue wait ns, start in
ticks after boot], ...], "cpus": every CPU's /proc/stat times in ticks, "affinity": the CPUs the process may use}. CPU and wait come from
/proc/PID/task/TID/schedstat (time on a CPU, time runnable but waiting for one: both in ns); without schedstat the
thread's utime+stime ticks are used and the wait is -1. It stops by itself when the process is gone or after --max-s.

The grouping (group_of, category_of) is what measure-openfire.sh's summary uses: a thread's name without its running
number ("GC Thread#3" -> "GC Thread#", "mucscale-room-7" -> "mucscale-room-") is its group, and each group falls in
one category: gc (the collector's own threads), vm (the VM thread that runs safepoint operations, periodic tasks),
jit (compilers), mucscale, openfire-network (Openfire's Netty event loops and socket threads), openfire (the rest
of the JVM's threads, which inside Openfire are Openfire's). Linux keeps only the first 15 characters of a name.
"""
import argparse
import json
import os
import re
import sys
import time

TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 1e7

# the collectors' own threads, as HotSpot names them (JDK 17 and 25): G1, Parallel, ZGC, Shenandoah
GC_GROUPS = re.compile(r'^(GC Thread#|G1 |ZWorker|ZDirector|ZDriver|ZStat|ZUnmapper|ZUncommitter|ZRelocat|Shenandoah)')
VM_GROUPS = re.compile(r'^(VM Thread|RuntimeWorker#|VM Periodic Tas|Service Thread|Monitor Deflati|Signal Dispatch|Finalizer|'
                       r'Reference Handl|Common-Cleaner|Notification Th|Attach Listener|JFR |Sweeper thread)')
JIT_GROUPS = re.compile(r'^(C1 CompilerThre|C2 CompilerThre|Compiler)')


def group_of(name):
    """A thread's group: its name without the trailing running number."""
    g = re.sub(r'\d+$', '', name)
    return g if g else name


def category_of(group):
    if GC_GROUPS.match(group):
        return "gc"
    if VM_GROUPS.match(group):
        return "vm"
    if JIT_GROUPS.match(group):
        return "jit"
    if group.startswith("mucscale"):
        return "mucscale"
    low = group.lower()
    if low.startswith("socket_") or "netty" in low or "eventloop" in low or "event-loop" in low or "nio" in low:
        return "openfire-network"
    return "openfire"


def read_thread(task_dir):
    """(name, CPU ns, run-queue wait ns or -1, start time in clock ticks after boot) of one thread, or None."""
    try:
        with open(os.path.join(task_dir, "comm")) as f:
            name = f.read().rstrip("\n")
        with open(os.path.join(task_dir, "stat")) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks_cpu, start = int(fields[11]) + int(fields[12]), int(fields[19])
    except (OSError, ValueError, IndexError):
        return None
    try:
        with open(os.path.join(task_dir, "schedstat")) as f:
            run_ns, wait_ns = (int(x) for x in f.read().split()[:2])
        return name, run_ns, wait_ns, start
    except (OSError, ValueError):
        return name, int(ticks_cpu * TICK_NS), -1, start


def proc_cpu_ns(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int((int(fields[11]) + int(fields[12])) * TICK_NS)


CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def read_cpus():
    """Each CPU's time so far from /proc/stat, in clock ticks: {"0": [user, nice, system, idle, iowait, irq,
    softirq, steal], ...}."""
    cpus = {}
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu") and line[3:4].isdigit():
                parts = line.split()
                cpus[parts[0][3:]] = [int(x) for x in parts[1:1 + len(CPU_FIELDS)]]
    return cpus


def read_affinity(pid):
    """The CPUs the process may run on, e.g. "0" or "0-1" (its Cpus_allowed_list), or None."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("Cpus_allowed_list:"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_list(text):
    """ "0-2,5" -> ["0", "1", "2", "5"]."""
    out = []
    for part in (text or "").split(","):
        if "-" in part:
            lo, hi = part.split("-")
            out.extend(str(c) for c in range(int(lo), int(hi) + 1))
        elif part.strip():
            out.append(part.strip())
    return out


def sample_once(pid):
    base = "/proc/%d/task" % pid
    threads = []
    with open("/proc/uptime") as f:
        up_s = float(f.read().split()[0])
    for tid in os.listdir(base):
        r = read_thread(os.path.join(base, tid))
        if r:
            threads.append([int(tid), r[0], r[1], r[2], r[3]])
    return {"t": int(time.time() * 1000), "up": up_s, "tick": TICK_NS, "proc": proc_cpu_ns(pid), "threads": threads,
            "cpus": read_cpus(), "affinity": read_affinity(pid)}


def cores_between(a, b):
    """What the CPUs the process may run on did between samples a and b, in ms: each /proc/stat field summed over
    those CPUs, "busyMs" (all but idle and iowait), and "otherMs", busy time that was not this process's CPU
    (interrupts, softirq such as loopback packet processing, steal by the VM's host, other processes). None when the
    samples predate the CPU fields. Resolution: one clock tick (10 ms at USER_HZ 100)."""
    if "cpus" not in a or "cpus" not in b:
        return None
    cpus = cpu_list(b.get("affinity")) or sorted(b["cpus"])
    tick_ms = TICK_NS / 1e6
    sums = dict.fromkeys(CPU_FIELDS, 0.0)
    for c in cpus:
        if c in a["cpus"] and c in b["cpus"]:
            for i, name in enumerate(CPU_FIELDS):
                sums[name] += (b["cpus"][c][i] - a["cpus"][c][i]) * tick_ms
    busy = sum(v for k, v in sums.items() if k not in ("idle", "iowait"))
    proc_ms = (b["proc"] - a["proc"]) / 1e6
    out = {"cpus": ",".join(cpus)}
    out.update({k + "Ms": round(v, 1) for k, v in sums.items()})
    out["busyMs"] = round(busy, 1)
    out["otherMs"] = round(max(0.0, busy - proc_ms), 1)
    return out


def sample(pid, out, interval_s, max_s):
    start = time.monotonic()
    n = 0
    with open(out, "a") as f:
        while time.monotonic() - start < max_s:
            try:
                s = sample_once(pid)
            except OSError:
                return  # the process is gone
            f.write(json.dumps(s, separators=(",", ":")) + "\n")
            f.flush()
            n += 1
            time.sleep(max(0.0, start + n * interval_s - time.monotonic()))  # no drift: sample k at start + k*interval


def load(path):
    samples = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    samples.append(json.loads(line))
                except ValueError:
                    pass  # a line cut short when the sampler was stopped
    return samples


def bracket(samples, start_ms, end_ms):
    """The last sample at or before start_ms (else the first after) and the last at or before end_ms."""
    if not samples:
        return None, None
    before = [s for s in samples if s["t"] <= start_ms]
    first = before[-1] if before else samples[0]
    upto = [s for s in samples if s["t"] <= end_ms and s["t"] > first["t"]]
    return first, (upto[-1] if upto else None)


def groups_between(a, b):
    """CPU and run-queue wait per thread group between samples a and b (b later).

    A thread in both counts its difference; a thread only in b that started after a counts all it used; a thread only
    in a ended in between: its last interval is lost. Both, and a thread only in b that already ran at a (a sample that
    missed it), show in 'unattributedMs' (process CPU minus the threads' sum)."""
    before = {t[0]: t for t in a["threads"]}
    groups = {}
    for entry in b["threads"]:
        tid, name, cpu, wait = entry[:4]
        old = before.get(tid)
        if old is not None and old[1] != name:
            old = None  # a recycled tid or a renamed thread: count from zero
        if old is None and len(entry) > 4 and "up" in a and entry[4] * b.get("tick", TICK_NS) / 1e9 < a["up"]:
            continue  # it was there at a but not in that sample: no baseline, so not counted at all
        d_cpu = cpu - (old[2] if old else 0)
        d_wait = (wait - old[3]) if (old and wait >= 0 and old[3] >= 0) else (wait if wait >= 0 and not old else -1)
        g = groups.setdefault(group_of(name), {"cpuNs": 0, "waitNs": 0, "threads": 0, "waitKnown": True})
        g["cpuNs"] += max(0, d_cpu)
        g["threads"] += 1
        if d_wait < 0:
            g["waitKnown"] = False
        else:
            g["waitNs"] += d_wait
    span_ms = b["t"] - a["t"]
    proc_ns = b["proc"] - a["proc"]
    out = []
    for name, g in groups.items():
        out.append({"group": name, "category": category_of(name), "threads": g["threads"],
                    "cpuMs": round(g["cpuNs"] / 1e6, 1),
                    "cpuShare": round(g["cpuNs"] / proc_ns, 4) if proc_ns > 0 else 0.0,
                    "runQueueWaitMs": round(g["waitNs"] / 1e6, 1) if g["waitKnown"] else None})
    out.sort(key=lambda g: -g["cpuMs"])
    cats = {}
    for g in out:
        c = cats.setdefault(g["category"], {"cpuMs": 0.0, "runQueueWaitMs": 0.0})
        c["cpuMs"] += g["cpuMs"]
        if g["runQueueWaitMs"] is not None:
            c["runQueueWaitMs"] += g["runQueueWaitMs"]
    for c in cats.values():
        c["cpuMs"] = round(c["cpuMs"], 1)
        c["runQueueWaitMs"] = round(c["runQueueWaitMs"], 1)
        c["cpuShare"] = round(c["cpuMs"] * 1e6 / proc_ns, 4) if proc_ns > 0 else 0.0
    summed = sum(g["cpuMs"] for g in out)
    return {"spanMs": span_ms, "processCpuMs": round(proc_ns / 1e6, 1),
            "processCpuPct": round(100.0 * proc_ns / 1e6 / span_ms, 1) if span_ms > 0 else 0.0,
            "unattributedMs": round(proc_ns / 1e6 - summed, 1), "categories": cats, "groups": out,
            "cores": cores_between(a, b)}


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample")
    s.add_argument("--pid", type=int, required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--interval-s", type=float, default=1.0)
    s.add_argument("--max-s", type=float, default=1800.0)
    r = sub.add_parser("report", help="groups between two wall-clock times (ms) of a samples file")
    r.add_argument("file")
    r.add_argument("--start-ms", type=int, default=0)
    r.add_argument("--end-ms", type=int, default=2 ** 62)
    a = ap.parse_args()
    if a.cmd == "sample":
        sample(a.pid, a.out, a.interval_s, a.max_s)
    else:
        first, last = bracket(load(a.file), a.start_ms, a.end_ms)
        if not first or not last:
            print("threadcpu: fewer than two samples in that window", file=sys.stderr)
            sys.exit(1)
        json.dump(groups_between(first, last), sys.stdout, indent=2)
        print()


if __name__ == "__main__":
    main()
