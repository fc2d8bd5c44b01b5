#!/usr/bin/env python3
"""Per-process and per-thread CPU of the server, sampled beside a bench/e2e run (E2E_BESIDE_LOAD).

    E2E_BESIDE_LOAD="python3 bench/e2e/cpu_sampler.py" bench/e2e/run.sh prosody mucscale abuse

Every --interval-s (0.5) seconds, for each pid in SERVER_PIDS (from $E2E_WORK/server.env): user+system CPU of the
process and of its threads grouped by name (digits dropped: "room-3" -> "room-", so a JVM's room threads, link
threads, GC threads add up), as CPU milliseconds since the previous sample; and each CPU's busy milliseconds
(/proc/stat), so CPU time taken on the server's CPU by processes outside the run shows. One JSON line per sample, wall-clock time
in epoch ms, into $E2E_OUT/cpu-samples.jsonl. Stops on SIGTERM (run.sh sends it after the run) or after --max-s
(900). Reads /proc only; nothing is signalled.
"""
import json, os, re, signal, sys, time

def args():
    a = {"interval": 0.5, "max": 900.0}
    it = iter(sys.argv[1:])
    for k in it:
        if k == "--interval-s": a["interval"] = float(next(it))
        elif k == "--max-s": a["max"] = float(next(it))
        else: sys.exit("cpu_sampler.py: unknown option " + k)
    return a

def server_pids(work):
    env = open(os.path.join(work, "server.env")).read()
    m = re.search(r'^SERVER_PIDS="?([0-9 ]+)"?', env, re.M)
    return [int(p) for p in m.group(1).split()] if m else []

TICK = os.sysconf("SC_CLK_TCK")

def ticks(path):
    try:
        s = open(path).read()
    except OSError:
        return None, None
    r = s.rindex(")")
    name = s[s.index("(") + 1:r]
    f = s[r + 2:].split()
    return name, int(f[11]) + int(f[12])

def cpu_busy():
    """Busy ticks per CPU from /proc/stat (everything but idle and iowait), to see who else ran on the server's CPU."""
    busy = {}
    for line in open("/proc/stat"):
        if line.startswith("cpu") and line[3].isdigit():
            f = line.split()
            v = [int(x) for x in f[1:]]
            busy[f[0]] = sum(v) - v[3] - v[4]
    return busy

def snapshot(pids):
    procs, threads = {}, {"cpu": cpu_busy()}
    for p in pids:
        name, t = ticks("/proc/%d/stat" % p)
        if t is None:
            continue
        procs["%s-%d" % (name, p)] = t
        try:
            tids = os.listdir("/proc/%d/task" % p)
        except OSError:
            tids = []
        for tid in tids:
            tn, tt = ticks("/proc/%d/task/%s/stat" % (p, tid))
            if tt is None:
                continue
            key = "%d:%s" % (p, re.sub(r"[0-9]+", "", tn))
            threads[key] = threads.get(key, 0) + tt
    return procs, threads

def main():
    a = args()
    work, out = os.environ["E2E_WORK"], os.environ["E2E_OUT"]
    pids = server_pids(work)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    prev = snapshot(pids)
    t0 = time.time()
    with open(os.path.join(out, "cpu-samples.jsonl"), "w") as f:
        while not stop and time.time() - t0 < a["max"]:
            time.sleep(a["interval"])
            cur = snapshot(pids)
            ms = 1000.0 / TICK
            row = {"t": int(time.time() * 1000),
                   "proc": {k: round((v - prev[0].get(k, v)) * ms) for k, v in cur[0].items()},
                   "cpu": {k: round((v - prev[1]["cpu"].get(k, v)) * ms) for k, v in cur[1]["cpu"].items()},
                   "thread": {k: round((v - prev[1].get(k, v)) * ms) for k, v in cur[1].items()
                              if k != "cpu" and v != prev[1].get(k, v)}}
            f.write(json.dumps(row) + "\n")
            f.flush()
            prev = cur

if __name__ == "__main__":
    main()
