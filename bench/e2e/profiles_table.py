#!/usr/bin/env python3
"""The table of bench/e2e/profiles-ab.sh: per arm its capacity (most deliveries/s at p99 < 100 ms), server CPU per
delivery there and at every level, RSS per user; then, per profile, mucscale / built-in at each level both passed.

Usage: profiles_table.py 'label=path/summary.json' ...  (labels "<profile> built-in" and "<profile> mucscale")."""
import json
import sys


def fmt(v, f="%.1f"):
    return "–" if v is None else f % v


arms = []
for arg in sys.argv[1:]:
    label, path = arg.split("=", 1)
    with open(path) as fh:
        arms.append((label, json.load(fh)))

print("| arm | max deliveries/s (p99 < 100 ms) | at msg/s | server µs/delivery there | server µs/delivery per level (msg/s: µs) | RSS/user kB | lost / expected | failed login/join |")
print("|---|---|---|---|---|---|---|---|")
for label, s in arms:
    per = ", ".join("%g: %s%s" % (l["rate"], fmt(l.get("srv_us")), "" if l.get("passed") else "✗")
                    for l in s.get("levels", []))
    print("| %s | %s | %s | %s | %s | %s | %s / %s | %s / %s |" % (
        label, fmt(s.get("best_dps"), "%.0f"), fmt(s.get("best_rate"), "%g"), fmt(s.get("best_srv_us")), per,
        fmt(s.get("rss_kb_user")), s.get("lost"), s.get("expected"), s.get("loginFailed"), s.get("joinFailed")))

by = {label: s for label, s in arms}
print()
print("| profile | capacity mucscale / built-in | server CPU per delivery mucscale / built-in, at levels both passed |")
print("|---|---|---|")
for label, s in arms:
    if not label.endswith(" built-in"):
        continue
    profile = label[: -len(" built-in")]
    m = by.get(profile + " mucscale")
    if m is None:
        continue
    cap = (m["best_dps"] / s["best_dps"]) if s.get("best_dps") and m.get("best_dps") else None
    levels_b = {l["rate"]: l for l in s.get("levels", []) if l.get("passed") and l.get("srv_us")}
    ratios = []
    for l in m.get("levels", []):
        b = levels_b.get(l["rate"])
        if b and l.get("passed") and l.get("srv_us"):
            ratios.append("%g msg/s: %.2f× (%.1f vs %.1f µs)" % (l["rate"], l["srv_us"] / b["srv_us"], l["srv_us"], b["srv_us"]))
    print("| %s | %s | %s |" % (profile, fmt(cap, "%.2f×") + ("" if cap is None else " (%.0f vs %.0f/s)" % (m["best_dps"], s["best_dps"])),
                                 "; ".join(ratios) or "–"))
