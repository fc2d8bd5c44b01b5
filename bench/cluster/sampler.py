#!/usr/bin/env python3
"""Samples every mucscale node's cluster/MUC counters and every server process's CPU and RSS, once a second.

    sampler.py OUT.jsonl STOPFILE MAX_SECONDS --node NAME=PORT ... --pid NAME=PID ...

--node NAME=URL (anything with "://") scrapes that URL instead of http://127.0.0.1:PORT/metrics, e.g. a node inside
Openfire: http://127.0.0.2:ADMINPORT/plugins/mucscale/metrics.

One JSON line per sample: {"t": wall-clock seconds, "nodes": {name: {counter: value}}, "cpu": {name: ticks},
"rss_kb": {name: kB}}. Counters come from the node's Prometheus text (/metrics); CPU is utime+stime from
/proc/<pid>/stat (clock ticks), RSS from /proc/<pid>/status. Stops when STOPFILE exists or after MAX_SECONDS
(bounded), and takes one last sample then. Read-only: it never signals anything.
"""
import json
import os
import sys
import time
import urllib.request

COUNTERS = ("mucscale_cluster_relays_sent", "mucscale_cluster_relay_bytes", "mucscale_cluster_relay_deliveries",
            "mucscale_cluster_relays_received", "mucscale_cluster_forwards", "mucscale_cluster_replication_writes",
            "mucscale_cluster_replication_late", "mucscale_cluster_sends", "mucscale_cluster_sent_messages",
            "mucscale_cluster_replication_rounds",
            "mucscale_muc_messages", "mucscale_muc_deliveries")


def scrape(port):
    url = port if "://" in port else f"http://127.0.0.1:{port}/metrics"
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            text = r.read().decode("utf-8", "replace")
    except Exception as e:  # a node that does not answer this second is simply missing from the sample
        return {"error": str(e)[:80]}
    out = {}
    for line in text.splitlines():
        if not line or line[0] == "#":
            continue
        name, _, value = line.rpartition(" ")
        if name in COUNTERS:
            try:
                out[name] = float(value)
            except ValueError:
                pass
    return out


def cpu_ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    except (OSError, IndexError, ValueError):
        return None


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def main():
    out, stopfile, max_s = sys.argv[1], sys.argv[2], float(sys.argv[3])
    nodes, pids = {}, {}
    args = sys.argv[4:]
    for flag, spec in zip(args[::2], args[1::2]):
        name, _, val = spec.partition("=")
        (nodes if flag == "--node" else pids)[name] = val
    end = time.time() + max_s
    with open(out, "a") as f:
        while True:
            last = os.path.exists(stopfile) or time.time() >= end
            t = time.time()
            sample = {"t": round(t, 3),
                      "nodes": {n: scrape(p) for n, p in nodes.items()},
                      "cpu": {n: cpu_ticks(p) for n, p in pids.items()},
                      "rss_kb": {n: rss_kb(p) for n, p in pids.items()}}
            f.write(json.dumps(sample) + "\n")
            f.flush()
            if last:
                return
            time.sleep(max(0.0, 1.0 - (time.time() - t)))


if __name__ == "__main__":
    main()
