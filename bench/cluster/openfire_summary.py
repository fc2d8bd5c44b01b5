#!/usr/bin/env python3
"""Figures of one bench/cluster/openfire-cluster.sh run (two Openfire nodes, two sharded generators).

    openfire_summary.py RESULT_DIR            -> JSON (summary.json)
    openfire_summary.py --table RESULT_DIR ...    -> markdown: per case its totals and a row per level; with a
                                                    1-node case among them, each level's server CPU per delivery
                                                    against the 1-node case's at the same level number

Per level (both generators run the same levels in lockstep after their barrier): the offered rate and deliveries/s
are the sum of the two generators'; p50/p99 are each generator's, and their maximum, which bounds the combined
distribution's (at most 1 % of either generator's samples lie above its own p99, so at most 1 % of all lie above the
larger). Node counters, CPU and RSS are the sampler's samples nearest to the level's ends (the window is generator
0's series points of that level). Server CPU per delivery = both nodes' CPU seconds in the window / deliveries the
generators received in it. Per broadcast = per message the nodes accepted (mucscale_muc_messages, summed). Per
thread group (threadGroupsUsPerDelivery, thread_groups.py's groups): all nodes' thread CPU over the level per delivery.
"""
import datetime
import glob
import json
import os
import re
import sys

import thread_groups

CLK_TCK = os.sysconf("SC_CLK_TCK")


def load_gen(d):
    cands = [f for f in glob.glob(os.path.join(d, "*.json"))]
    cands.sort(key=os.path.getmtime)
    return json.load(open(cands[-1])) if cands else None


def started(lg):
    return datetime.datetime.fromisoformat(lg["startedAt"].replace("Z", "+00:00")).timestamp()


def nearest(samples, t):
    return min(samples, key=lambda s: abs(s["t"] - t)) if samples else None


def counter(sample, node, key):
    v = sample["nodes"].get(node, {})
    return None if "error" in v else v.get(key)


def delta(a, b, node, key):
    x, y = counter(a, node, key), counter(b, node, key)
    return None if x is None or y is None else y - x


def heap_used_kb(path):
    """The used heap after the forced full GC: the second 'heap' line of jcmd GC.heap_info's output."""
    if not os.path.exists(path):
        return None
    m = re.findall(r"heap\s+total\s+(\d+)K,\s+used\s+(\d+)K", open(path).read())
    return int(m[-1][1]) if m else None


def ramp(lg):
    """(first login, all logged in) wall times, logins."""
    li = [p for p in lg.get("series", []) if p.get("loggedIn", 0) > 0]
    if not li:
        return None
    top = max(p["loggedIn"] for p in li)
    t_full = next(p["t"] for p in li if p["loggedIn"] == top)
    s = started(lg)
    return s + li[0]["t"] - 1.0, s + t_full, top


def summarize(d):
    meta = json.load(open(os.path.join(d, "meta.json")))
    NODES = tuple(f"node{i + 1}" for i in range(meta.get("nodes", 2)))
    gens = [load_gen(os.path.join(d, f"gen{k}")) for k in range(meta.get("generators", 2))]
    out = {"dir": os.path.basename(d), "meta": meta}
    if any(g is None for g in gens):
        out["error"] = "missing generator results"
        return out
    sp = os.path.join(d, "samples.jsonl")
    samples = [json.loads(x) for x in open(sp) if x.strip()] if os.path.exists(sp) else []
    keys = ("users", "usersPlayed", "loggedIn", "joined", "loginFailed", "joinFailed", "joinsPerSec", "joinSpanMs",
            "messagesSent", "expectedDeliveries", "deliveries", "remoteDeliveries", "expectedDeliveriesAllShards",
            "lost", "duplicates", "reordered", "errors", "genRssMbMax")
    out["generators"] = [{k: g["summary"].get(k) for k in keys} | {"errorKinds": g.get("errors", {}),
                                                                    "stoppedBy": g.get("stoppedBy")} for g in gens]
    tot = lambda k: sum((g["summary"].get(k) or 0) for g in gens)
    joined = tot("joined")
    out["joined"] = joined
    out["loggedIn"] = tot("loggedIn")
    out["joinFailed"] = tot("joinFailed")
    out["loginFailed"] = tot("loginFailed")
    out["errors"] = tot("errors")
    out["lostLocalPairs"] = tot("lost")
    out["duplicates"] = tot("duplicates")
    # cross-process check: what every message should have brought to every planned member, against what arrived
    out["deliveriesAllPhases"] = tot("deliveries")
    out["expectedAllShards"] = tot("expectedDeliveriesAllShards")
    out["missingAllShards"] = out["expectedAllShards"] - out["deliveriesAllPhases"]
    ramps = [ramp(g) for g in gens]
    if all(ramps):
        t0 = min(r[0] for r in ramps)
        t1 = max(r[1] for r in ramps)
        out["connectsPerSec"] = round(sum(r[2] for r in ramps) / (t1 - t0), 1) if t1 > t0 else None
        out["connectSpanS"] = round(t1 - t0, 1)
    out["joinsPerSecSum"] = round(sum((g["summary"].get("joinsPerSec") or 0) for g in gens), 1)
    # memory: peak RSS per node over the run, the sum, per joined user; live heap after the full GC
    if samples:
        peak = {n: max((s["rss_kb"].get(n) or 0) for s in samples) for n in NODES + ("mariadb",)}
        out["rssPeakMb"] = {n: round(v / 1024, 1) for n, v in peak.items()}
        nodes_kb = sum(peak[n] for n in NODES)
        out["rssNodesPeakMb"] = round(nodes_kb / 1024, 1)
        out["rssKbPerUser"] = round(nodes_kb / joined, 1) if joined else None
    heap = {n: heap_used_kb(os.path.join(d, f"heap-{n}.txt")) for n in NODES}
    out["liveHeapAfterFullGcMb"] = {n: (round(v / 1024, 1) if v else None) for n, v in heap.items()}
    if all(heap.values()) and joined:
        out["liveHeapKbPerUser"] = round(sum(heap.values()) / joined, 1)
    # levels
    s0 = started(gens[0])
    snaps = []
    tp = os.path.join(d, "threads.jsonl")
    if os.path.exists(tp):
        snaps = [json.loads(x) for x in open(tp) if x.strip()]
    levels = []
    n_levels = min(len([x for x in g.get("levels", []) if x.get("kind") == "level"]) for g in gens)
    for i in range(n_levels):
        lv = [[x for x in g["levels"] if x.get("kind") == "level"][i] for g in gens]
        row = {"level": i + 1, "ratePerSec": sum(x["ratePerSec"] for x in lv),
               "seconds": lv[0]["seconds"], "sent": sum(x["sent"] for x in lv),
               "deliveries": sum(x["deliveries"] for x in lv),
               "deliveriesPerSec": round(sum(x["deliveriesPerSec"] for x in lv), 1),
               "p50Ms": [x["p50Ms"] for x in lv], "p99Ms": [x["p99Ms"] for x in lv],
               "p999Ms": [x["p999Ms"] for x in lv], "maxMs": [x["maxMs"] for x in lv]}
        row["p99MsMax"] = max(row["p99Ms"])
        row["p50MsMax"] = max(row["p50Ms"])
        pts = [p for p in gens[0].get("series", []) if str(p.get("phase", "")).startswith(f"level {i + 1}/")]
        if pts and samples:
            a, b = nearest(samples, s0 + pts[0]["t"] - 1.0), nearest(samples, s0 + pts[-1]["t"])
            secs = b["t"] - a["t"]
            row["window"] = round(secs, 1)
            cpu = {}
            for n in NODES + ("mariadb",):
                x, y = a["cpu"].get(n), b["cpu"].get(n)
                cpu[n] = None if x is None or y is None else (y - x) / CLK_TCK
            row["cpuPct"] = {n: (round(100 * v / secs, 1) if v is not None and secs > 0 else None) for n, v in cpu.items()}
            node_cpu = sum(cpu[n] or 0 for n in NODES)
            delivered = row["deliveriesPerSec"] * secs
            row["serverCpuUsPerDelivery"] = round(1e6 * node_cpu / delivered, 2) if delivered else None
            c = {}
            for k in ("mucscale_muc_messages", "mucscale_muc_deliveries", "mucscale_cluster_relays_sent",
                      "mucscale_cluster_relay_bytes", "mucscale_cluster_relay_deliveries", "mucscale_cluster_forwards",
                      "mucscale_cluster_replication_writes", "mucscale_cluster_replication_late",
                      "mucscale_cluster_sends", "mucscale_cluster_sent_messages",
                      "mucscale_cluster_replication_rounds"):
                vals = [delta(a, b, n, k) for n in NODES]
                c[k] = None if any(v is None for v in vals) else sum(vals)
            row["counters"] = c
            msgs = c["mucscale_muc_messages"]
            if msgs:
                rel, fwd = c["mucscale_cluster_relays_sent"], c["mucscale_cluster_forwards"]
                row["relaysPerBroadcast"] = round(rel / msgs, 3) if rel is not None else None
                row["forwardsPerBroadcast"] = round(fwd / msgs, 3) if fwd is not None else None
                row["interNodePerBroadcast"] = round((rel + fwd) / msgs, 3) if rel is not None and fwd is not None else None
                b_ = c["mucscale_cluster_relay_bytes"]
                row["relayBytesPerBroadcast"] = round(b_ / msgs) if b_ is not None else None
                sends, sent = c["mucscale_cluster_sends"], c["mucscale_cluster_sent_messages"]
                # host sends (a batch counts once) and the messages they carried, per broadcast
                row["sendsPerBroadcast"] = round(sends / msgs, 3) if sends is not None else None
                row["messagesPerSend"] = round(sent / sends, 2) if sends and sent is not None else None
                rr = c["mucscale_cluster_replication_rounds"]
                row["replicationRoundsPerBroadcast"] = round(rr / msgs, 3) if rr is not None else None
                rd = c["mucscale_cluster_relay_deliveries"]
                row["relayedShareOfDeliveries"] = round(rd / c["mucscale_muc_deliveries"], 3) \
                    if rd is not None and c["mucscale_muc_deliveries"] else None
            row["rssMbEnd"] = {n: round((b["rss_kb"].get(n) or 0) / 1024, 1) for n in NODES}
        # per-thread CPU over the level: from the snapshot taken when generator 0 first showed the level to the next
        first = next((k for k, x in enumerate(snaps) if x["phase"].startswith(f"level {i + 1}/")), None)
        if first is not None and first + 1 < len(snaps):
            a_, b_ = snaps[first], snaps[first + 1]
            secs_ = b_["t"] - a_["t"]
            top = {}
            for n in NODES:
                x, y = a_["threads"].get(n) or {}, b_["threads"].get(n) or {}
                diff = {g: (y.get(g, 0) - x.get(g, 0)) / CLK_TCK for g in y}
                best = sorted(diff.items(), key=lambda kv: -kv[1])[:10]
                top[n] = {g: round(v, 2) for g, v in best if v > 0}
            row["threadCpuS"] = {"seconds": round(secs_, 1), **top}
            # all nodes' CPU by thread group per delivery (thread_groups.py reads it, so git keeps the split)
            if row.get("deliveries"):
                groups = thread_groups.cpu_by_group(a_, b_, CLK_TCK)
                row["threadGroupsUsPerDelivery"] = {g: round(v * 1e6 / row["deliveries"], 3)
                                                    for g, v in groups.items()}
        levels.append(row)
    out["levels"] = levels
    # per-thread CPU over the connection ramp (first snapshot of "ramp-up" to the next phase's): what logins cost
    first = next((k for k, x in enumerate(snaps) if x["phase"].startswith("ramp-up")), None)
    if first is not None and first + 1 < len(snaps):
        a_, b_ = snaps[first], snaps[first + 1]
        ramp_cpu = {"seconds": round(b_["t"] - a_["t"], 1)}
        for n in NODES:
            x, y = a_["threads"].get(n) or {}, b_["threads"].get(n) or {}
            diff = sorted(((g, (y.get(g, 0) - x.get(g, 0)) / CLK_TCK) for g in y), key=lambda kv: -kv[1])
            ramp_cpu[n] = {"total": round(sum(v for _, v in diff), 2), **{g: round(v, 2) for g, v in diff[:10] if v > 0}}
        out["rampThreadCpuS"] = ramp_cpu
    passing = [r for r in levels if r["p99MsMax"] < 100]
    out["bestPassing"] = max(passing, key=lambda r: r["deliveriesPerSec"])["level"] if passing else None
    return out


def table(s, base=None):
    m = s["meta"]
    print(f"### {s['dir']}: {m['users']} users, {m['rooms']} rooms (largest {m['largest']}), {m['nodes']} Openfire node(s), "
          f"users placed by {m.get('placement', 'slot')}{' (nodes not clustered)' if m.get('separate') else ''}, commit {m['commit']}, load {m['load1_before']} -> {m['load1_after']}")
    print()
    print(f"joined {s.get('joined')} (login failed {s.get('loginFailed')}, join failed {s.get('joinFailed')}), "
          f"connects/s {s.get('connectsPerSec')} over {s.get('connectSpanS')} s, joins/s (sum of both) "
          f"{s.get('joinsPerSecSum')}, errors {s.get('errors')}, lost (same-process pairs) {s.get('lostLocalPairs')}, "
          f"missing across processes {s.get('missingAllShards')} of {s.get('expectedAllShards')}, duplicates "
          f"{s.get('duplicates')}; RSS peak {s.get('rssPeakMb')} MB, {s.get('rssKbPerUser')} kB/user; live heap "
          f"after full GC {s.get('liveHeapAfterFullGcMb')} MB, {s.get('liveHeapKbPerUser')} kB/user")
    print()
    print("| msg/s (all) | deliveries/s | p50 ms (per generator) | p99 ms (per generator) | CPU % node1/node2/db | "
          "server µs/delivery | vs 1 node | relays/bcast | forwards/bcast | relay B/bcast | relayed share | "
          "sends/bcast (messages/send) | replication rounds/bcast |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    base_levels = {r["level"]: r for r in (base or {}).get("levels", [])}
    for r in s.get("levels", []):
        c = r.get("cpuPct", {})
        b = base_levels.get(r["level"], {}).get("serverCpuUsPerDelivery")
        mine = r.get("serverCpuUsPerDelivery")
        ratio = f"{mine / b:.2f}×" if b and mine and base is not s else "–"
        print(f"| {r['ratePerSec']:g} | {r['deliveriesPerSec']:,.0f} | {r['p50Ms']} | {r['p99Ms']} | "
              f"{c.get('node1')}/{c.get('node2', '–')}/{c.get('mariadb')} | {mine} | {ratio} | "
              f"{r.get('relaysPerBroadcast')} | {r.get('forwardsPerBroadcast')} | {r.get('relayBytesPerBroadcast')} | "
              f"{r.get('relayedShareOfDeliveries')} | {r.get('sendsPerBroadcast')} ({r.get('messagesPerSend')}) | "
              f"{r.get('replicationRoundsPerBroadcast')} |")


def main(argv):
    if argv and argv[0] == "--table":
        cases = []
        for d in argv[1:]:
            p = os.path.join(d, "summary.json")
            cases.append(json.load(open(p)) if os.path.exists(p) else summarize(d))
        base = next((c for c in cases if c.get("meta", {}).get("nodes") == 1), None)
        for c in cases:
            table(c, base)
            print()
        return
    print(json.dumps(summarize(argv[0]), indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
