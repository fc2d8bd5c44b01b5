#!/usr/bin/env python3
"""Per-thread CPU of server processes at the phase changes of a loadgen run, for "what limited it".

    threads.py OUT.jsonl LOADGEN_LOG MAX_SECONDS NAME=PID ...

Watches LOADGEN_LOG (loadgen's progress lines, one every few seconds) and, whenever the phase in a line changes
(e.g. "warm-up 10 msg/s" -> "level 1/4 10 msg/s"), appends one JSON line: {"t": wall-clock s, "phase": the new
phase, "threads": {NAME: {thread name: utime+stime ticks, summed over threads of that name}}}, read from
/proc/<pid>/task/*/stat and comm. Thread names are grouped by dropping trailing digits and dashes ("hz.openfire.
cached.thread-3" and "-4" together). Stops after MAX_SECONDS or when every PID is gone. Read-only.
"""
import json
import os
import re
import sys
import time

PHASE = re.compile(r"^\[\s*\d+s\] (.{24}) \|")


def group(name):
    return re.sub(r"[-#_ ]?\d+$", "", name.strip()) or name


def threads(pid):
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks = int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
        g = group(name)
        out[g] = out.get(g, 0) + ticks
    return out


def main():
    out, log, max_s = sys.argv[1], sys.argv[2], float(sys.argv[3])
    pids = dict(a.split("=", 1) for a in sys.argv[4:])
    end = time.time() + max_s
    last = None
    pos = 0
    while time.time() < end:
        phase = None
        try:
            with open(log, errors="replace") as f:
                f.seek(pos)
                for line in f:
                    m = PHASE.match(line)
                    if m:
                        phase = m.group(1).strip()
                pos = f.tell()
        except OSError:
            pass
        if phase is not None and phase != last:
            snap = {n: threads(p) for n, p in pids.items()}
            if all(v is None for v in snap.values()):
                return
            with open(out, "a") as f:
                f.write(json.dumps({"t": round(time.time(), 3), "phase": phase, "threads": snap}) + "\n")
            last = phase
        time.sleep(0.5)


if __name__ == "__main__":
    main()
