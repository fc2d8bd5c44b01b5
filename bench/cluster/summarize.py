#!/usr/bin/env python3
"""Figures of bench/cluster runs.

    summarize.py case RESULT_DIR          -> JSON of one case (loadgen JSON + samples.jsonl + meta.json)
    summarize.py table RESULT_DIR ...     -> markdown table over cases, ratios against the 1-node case of each server

Messaging window: from the first loadgen series point of the warm-up to the last point of the level (both at the
same fixed rate, no joins or leaves in between). The node counters (summed over nodes) and the server processes'
CPU (utime+stime from /proc, summed over the XMPP server and every node) are taken from the sampler's samples
closest to the window's ends. Per broadcast = per message accepted by mucscale (mucscale_muc_messages, summed).
"""
import datetime
import glob
import json
import os
import sys

CLK_TCK = os.sysconf("SC_CLK_TCK")


def load_loadgen(d):
    skip = ("meta.json", "summary.json")
    cands = [f for f in glob.glob(os.path.join(d, "*.json"))
             if os.path.basename(f) not in skip and not os.path.basename(f).startswith("dashboard-")]
    cands.sort(key=os.path.getmtime)
    return json.load(open(cands[-1])) if cands else None


def nearest(samples, t):
    return min(samples, key=lambda s: abs(s["t"] - t)) if samples else None


def node_sum(sample, key):
    return sum(v.get(key, 0.0) for v in sample["nodes"].values() if "error" not in v)


def case(d):
    meta = json.load(open(os.path.join(d, "meta.json")))
    lg = load_loadgen(d)
    out = {"dir": os.path.basename(d), "server": meta["server"], "nodes": meta["nodes"], "rate": meta["rate"],
           "load1_before": meta["load1_before"], "load1_after": meta["load1_after"], "loadgen_exit": meta["loadgen_exit"],
           "commit": meta["commit"]}
    if lg is None:
        out["error"] = "no loadgen results"
        return out
    s = lg["summary"]
    for k in ("users", "rooms", "largestRoom", "loggedIn", "joined", "loginFailed", "joinFailed", "joinsPerSec",
              "joinSpanMs", "messagesSent", "expectedDeliveries", "deliveries", "lost", "duplicates", "reordered",
              "errors", "serverRssMbMax", "serverRssKbPerUser", "genRssMbMax"):
        out[k] = s.get(k)
    lv = [x for x in lg.get("levels", []) if x.get("kind") == "level"]
    if lv:
        l0 = lv[0]
        out["level"] = {k: l0.get(k) for k in ("ratePerSec", "seconds", "sent", "deliveries", "deliveriesPerSec",
                                                 "p50Ms", "p99Ms", "p999Ms", "maxMs", "serverCpuUsPerDelivery",
                                                 "genCpuUsPerDelivery")}
    series = lg.get("series", [])
    # connection ramp: first point with a login to the first point with all logins
    li = [p for p in series if p.get("loggedIn", 0) > 0]
    if li:
        top = max(p["loggedIn"] for p in li)
        t_full = next(p["t"] for p in li if p["loggedIn"] == top)
        span = t_full - li[0]["t"] + 1.0  # the first point already holds one interval's logins
        out["connectsPerSec"] = round(top / span, 1) if span > 0 else None
        out["connectSpanS"] = round(span, 1)
    started = datetime.datetime.fromisoformat(lg["startedAt"].replace("Z", "+00:00")).timestamp()
    msg = [p for p in series if str(p.get("phase", "")).startswith(("warm-up", "level"))]
    samples = []
    sp = os.path.join(d, "samples.jsonl")
    if os.path.exists(sp):
        samples = [json.loads(x) for x in open(sp) if x.strip()]
    if msg and samples:
        # a point covers the interval that ends at its t; the window opens one interval before the first point
        t0 = started + msg[0]["t"] - 1.0
        t1 = started + msg[-1]["t"]
        a, b = nearest(samples, t0), nearest(samples, t1)
        win = {"seconds": round(b["t"] - a["t"], 1)}
        keys = ("mucscale_cluster_relays_sent", "mucscale_cluster_relay_bytes", "mucscale_cluster_relay_deliveries",
                "mucscale_cluster_forwards", "mucscale_cluster_replication_writes", "mucscale_cluster_replication_late",
                "mucscale_muc_messages", "mucscale_muc_deliveries")
        for k in keys:
            win[k.replace("mucscale_", "")] = node_sum(b, k) - node_sum(a, k)
        per_node = {}
        for n in b["nodes"]:
            if n in a["nodes"] and "error" not in a["nodes"][n] and "error" not in b["nodes"][n]:
                per_node[n] = {k.replace("mucscale_", ""): b["nodes"][n].get(k, 0) - a["nodes"][n].get(k, 0) for k in keys}
        win["per_node"] = per_node
        msgs = win["muc_messages"]
        if msgs > 0:
            win["inter_node_msgs_per_broadcast"] = round((win["cluster_relays_sent"] + win["cluster_forwards"]) / msgs, 4)
            win["relays_per_broadcast"] = round(win["cluster_relays_sent"] / msgs, 4)
            win["forwards_per_broadcast"] = round(win["cluster_forwards"] / msgs, 4)
            win["relay_bytes_per_broadcast"] = round(win["cluster_relay_bytes"] / msgs, 1)
            win["replication_writes_per_broadcast"] = round(win["cluster_replication_writes"] / msgs, 4)
            win["deliveries_per_broadcast"] = round(win["muc_deliveries"] / msgs, 2)
        cpu = {}
        for n in b["cpu"]:
            if a["cpu"].get(n) is not None and b["cpu"].get(n) is not None:
                cpu[n] = round((b["cpu"][n] - a["cpu"][n]) / CLK_TCK, 2)
        win["cpu_s"] = cpu
        win["cpu_s_total"] = round(sum(cpu.values()), 2)
        win["cpu_s_nodes"] = round(sum(v for k, v in cpu.items() if k.startswith("mucscale")), 2)
        if win["muc_deliveries"] > 0:
            win["cpu_us_per_delivery"] = round(win["cpu_s_total"] * 1e6 / win["muc_deliveries"], 1)
            win["nodes_cpu_us_per_delivery"] = round(win["cpu_s_nodes"] * 1e6 / win["muc_deliveries"], 1)
        out["window"] = win
        # memory: peak over the run of the nodes' summed RSS, and of all server processes
        node_rss = [sum(v or 0 for k, v in x["rss_kb"].items() if k.startswith("mucscale")) for x in samples]
        all_rss = [sum(v or 0 for v in x["rss_kb"].values()) for x in samples]
        out["nodesRssMbMax"] = round(max(node_rss) / 1024, 1)
        out["serverAllRssMbMax"] = round(max(all_rss) / 1024, 1)
        users = out.get("joined") or out.get("users") or 1
        out["nodesRssKbPerUser"] = round(max(node_rss) / users, 1)
        out["serverAllRssKbPerUser"] = round(max(all_rss) / users, 1)
    return out


def fmt(v, nd=1):
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:,.{nd}f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def table(dirs):
    rows = []
    for d in dirs:
        rows.append(case(d))
    base = {}
    for r in rows:
        if r.get("nodes") == 1 and "window" in r:
            base.setdefault(r["server"], r)
    print("| server | nodes | joined / users | deliveries/s | p99 ms | lost / expected | inter-node msgs per broadcast "
          "(relays + forwards) | relay bytes per broadcast | deliveries per broadcast | server CPU µs/delivery "
          "(loadgen level; sampler window) | vs 1 node | mucscale nodes only: CPU µs/delivery (vs 1 node) | nodes RSS MB "
          "| load before / after |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        w = r.get("window", {})
        lv = r.get("level", {})
        cpu = lv.get("serverCpuUsPerDelivery")
        ratio = "–"
        b = base.get(r["server"])
        if b is not None and b is not r and cpu and b.get("level", {}).get("serverCpuUsPerDelivery"):
            ratio = f"{cpu / b['level']['serverCpuUsPerDelivery']:.2f}×"
            bw = b.get("window", {}).get("cpu_us_per_delivery")
            if bw and w.get("cpu_us_per_delivery"):
                ratio += f" ({w['cpu_us_per_delivery'] / bw:.2f}×)"
        elif b is r:
            ratio = "baseline"
        ncpu = w.get("nodes_cpu_us_per_delivery")
        nratio = ""
        if b is not None and b is not r and ncpu and b.get("window", {}).get("nodes_cpu_us_per_delivery"):
            nratio = f" ({ncpu / b['window']['nodes_cpu_us_per_delivery']:.2f}×)"
        inter = w.get("inter_node_msgs_per_broadcast")
        inter_s = "–" if inter is None else (f"{inter:.3f} ({w.get('relays_per_broadcast', 0):.3f} + "
                                             f"{w.get('forwards_per_broadcast', 0):.3f})")
        print(f"| {r['server']} | {r['nodes']} | {fmt(r.get('joined'))} / {fmt(r.get('users'))} | "
              f"{fmt(lv.get('deliveriesPerSec'), 0)} | {fmt(lv.get('p99Ms'))} | {fmt(r.get('lost'))} / "
              f"{fmt(r.get('expectedDeliveries'))} | {inter_s} | {fmt(w.get('relay_bytes_per_broadcast'), 0)} | "
              f"{fmt(w.get('deliveries_per_broadcast'))} | {fmt(cpu)}; {fmt(w.get('cpu_us_per_delivery'))} | {ratio} | "
              f"{fmt(ncpu)}{nratio} | {fmt(r.get('nodesRssMbMax'), 0)} | {fmt(r.get('load1_before'), 2)} / "
              f"{fmt(r.get('load1_after'), 2)} |")


if __name__ == "__main__":
    if sys.argv[1] == "case":
        print(json.dumps(case(sys.argv[2]), indent=1))
    elif sys.argv[1] == "table":
        table(sys.argv[2:])
    else:
        sys.exit(__doc__)
