#!/usr/bin/env python3
"""Summaries of bench/e2e runs from the JSON that mucscale-loadgen writes.

  summarize.py run <loadgen.json> <meta.json>      prints one run's summary as JSON (run.sh stores it as summary.json)
  summarize.py table <summary.json> ...            prints a markdown table over several runs (matrix.sh)

Figures, per run:
  best_dps      deliveries/s of the highest stepped level whose p99 stayed within the scenario's threshold (100 ms)
  best_rate     that level's offered messages/s; best_p99_ms its p99; best_srv_us server CPU (all SERVER_PIDS,
                user+system) per delivery in that level
  rss_kb_user   the server processes' summed peak RSS divided by the scenario's users (JVM/VM baseline included);
                rss_growth_kb_user: peak minus the first sample (before any login), per user
  joins_per_s   joins completed ÷ (last successful join answer − first join presence sent), from loadgen's exact
                nanoTime stamps (joinsPerSec; join_span_ms is that window, joinSpanMs); in scenarios that join on
                connect (ref-5000, rooms50) it is the connection ramp's join rate. join_p99_ms join latency p99
  warmup_runs   runs of the same scenario against the same server before this one (run.sh E2E_WARMUP_RUNS)
  lost          expected minus distinct deliveries over the whole run (exact), of expected; a delivery still queued
                in the server when the drain time (rampDown.drainMs) ends counts as lost
  mucscale_store_committed  room-log rows mucscale committed (issue 6: proves the log was on), from its metrics
  stopped       why the stepping ended: the first level over the threshold, all levels passed, the deadline, or
                no level at all (logins/joins failed)
"""
import json
import os
import sys


def run_summary(result_path, meta_path):
    r = json.load(open(result_path))
    meta = json.load(open(meta_path)) if meta_path else {}
    s = r["summary"]
    levels = [l for l in r.get("levels", []) if l.get("kind") == "level"]
    threshold = s.get("p99ThresholdMs", 100)
    # a level in which nothing arrived has no latency to judge (p99 reads 0): it does not count as passing
    passing = [l for l in levels if l.get("passed") and l.get("deliveries", 0) > 0]
    best = max(passing, key=lambda l: l["deliveriesPerSec"]) if passing else None
    if r.get("stoppedBy") == "deadline":
        stopped = "deadline (%s s)" % r["scenario"]["run"]["deadlineS"]
    elif not levels:
        stopped = "no level ran (logged in %d/%d, joined %d)" % (s["loggedIn"], s["users"], s["joined"])
    elif levels[-1].get("deliveries", 0) == 0:
        stopped = "nothing delivered at %g msg/s (server backlog or stall)" % levels[-1]["ratePerSec"]
    elif not levels[-1]["passed"]:
        l = levels[-1]
        stopped = "p99 %.1f ms > %g ms at %g msg/s (%.0f deliveries/s)" % (l["p99Ms"], threshold, l["ratePerSec"],
                                                                          l["deliveriesPerSec"])
    else:
        stopped = "all %d levels passed (offer more)" % len(levels)
    # RSS growth per user: peak minus the first sample (taken before the first login), so the VM/JVM baseline that
    # dominates small runs does not count; the plain peak/users figure is kept beside it
    rss = [p["serverRssMb"] for p in r.get("series", []) if p.get("serverRssMb", -1) > 0]
    rss_growth_kb_user = (max(rss) - rss[0]) * 1024 / s["users"] if rss and s["users"] else None
    out = {
        "server": meta.get("server"), "variant": meta.get("variant"), "scenario": meta.get("scenario"),
        "label": r.get("label"), "startedAt": r.get("startedAt"), "users": s["users"], "rooms": s["rooms"],
        "largestRoom": s["largestRoom"], "loggedIn": s["loggedIn"], "joined": s["joined"],
        "loginFailed": s["loginFailed"], "joinFailed": s["joinFailed"],
        "best_dps": best["deliveriesPerSec"] if best else None,
        "best_rate": best["ratePerSec"] if best else None,
        "best_p99_ms": best["p99Ms"] if best else None,
        "best_srv_us": best["serverCpuUsPerDelivery"] if best else None,
        "best_gen_us": best["genCpuUsPerDelivery"] if best else None,
        "srv_us_all_levels": s.get("serverCpuUsPerDelivery"),
        "rss_mb_max": s.get("serverRssMbMax"), "rss_kb_user": s.get("serverRssKbPerUser"),
        "rss_mb_start": rss[0] if rss else None, "rss_growth_kb_user": rss_growth_kb_user,
        "joins_per_s": s.get("joinsPerSec"), "join_span_ms": s.get("joinSpanMs"), "join_p99_ms": s["joinMs"]["p99"], "connect_p99_ms": s["connectMs"]["p99"],
        "expected": s["expectedDeliveries"], "delivered": s["deliveries"], "lost": s["lost"],
        "duplicates": s["duplicates"], "errors": s["errors"], "stopped": stopped, "stoppedBy": r.get("stoppedBy"),
        "levels": [{"rate": l["ratePerSec"], "dps": l["deliveriesPerSec"], "p99_ms": l["p99Ms"],
                    "srv_us": l["serverCpuUsPerDelivery"], "passed": l["passed"]} for l in levels],
        "load1_before": meta.get("load1_before"), "load1_after": meta.get("load1_after"),
        "overrides": meta.get("overrides", []), "commit": meta.get("commit"),
        "warmup_runs": meta.get("warmup_runs", 0), "warmup_exits": meta.get("warmup_exits", []),
        "mucscale_store_committed": prom_value(meta_path, "mucscale_store_committed"),
        "mucscale_store_spilled": prom_value(meta_path, "mucscale_store_spilled"),
        "mucscale_store_dead_letters": prom_value(meta_path, "mucscale_store_dead_letters"),
    }
    return out


def prom_value(meta_path, name):
    """A metric from mucscale-metrics.prom beside meta.json (run.sh scrapes it before stopping mucscale), or None."""
    if not meta_path:
        return None
    try:
        for line in open(os.path.join(os.path.dirname(meta_path), "mucscale-metrics.prom")):
            if line.startswith(name + " "):
                return float(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def fmt(v, pattern="%.0f"):
    return "–" if v is None or (isinstance(v, (int, float)) and v < 0) else pattern % v


def warmups(s):
    """Warm-up runs before the measured one; a failed warm-up (non-zero exit) is flagged."""
    n = s.get("warmup_runs")
    if n is None:
        return "–"  # a summary from before run.sh had warm-ups
    failed = sum(1 for e in s.get("warmup_exits", []) if e != 0)
    return "%d (%d failed)" % (n, failed) if failed else str(n)


def joins(s):
    """joins/s with the window it was measured over (older summaries have no window)."""
    span = s.get("join_span_ms")
    if span is None or span < 0:
        return fmt(s["joins_per_s"], "%.0f")
    return "%s (%s)" % (fmt(s["joins_per_s"], "%.0f"), fmt(span, "%.0f"))


def table(paths):
    rows = ["| server | variant | scenario | warm-ups | users | max deliveries/s (p99 < 100 ms) | at msg/s | p99 there ms "
            "| server CPU µs/delivery there | RSS/user kB (peak / growth) | joins/s (over ms) | join p99 ms | lost / expected | failed login/join "
            "| stopped by | load1 before |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in paths:
        try:
            s = json.load(open(p))
        except (OSError, ValueError) as e:
            rows.append("| %s | | | | | run failed: %s | | | | | | | | | | |" % (p, e))
            continue
        rows.append("| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s / %s | %s | %s | %d / %d | %d / %d | %s | %s |" % (
            s["server"], s["variant"], s["scenario"], warmups(s), s["users"], fmt(s["best_dps"]), fmt(s["best_rate"], "%g"),
            fmt(s["best_p99_ms"], "%.1f"), fmt(s["best_srv_us"], "%.1f"), fmt(s["rss_kb_user"], "%.1f"),
            fmt(s.get("rss_growth_kb_user"), "%.1f"),
            joins(s), fmt(s["join_p99_ms"], "%.0f"), s["lost"], s["expected"],
            s["loginFailed"], s["joinFailed"], s["stopped"], fmt(s["load1_before"], "%.2f")))
    return "\n".join(rows)


def main(argv):
    if len(argv) >= 2 and argv[0] == "run":
        print(json.dumps(run_summary(argv[1], argv[2] if len(argv) > 2 else None), indent=1))
        return 0
    if len(argv) >= 1 and argv[0] == "table":
        print(table(argv[1:]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
