#!/usr/bin/env python3
"""Archive (XEP-0313) query load beside a loadgen run (issue 16's benchmark); see bench/e2e/README.md.

  archive_load.py HOST PORT DOMAIN MUC_DOMAIN --room NAME --ids PREFIX:COUNT [--rate Q] [--clients K]
                  [--max 50] [--window-log FILE] [--duration S] [--out FILE]

K accounts (arch1..K, registered in-band; a conflict means they exist) log in over plain TCP + SASL PLAIN and join
NAME@MUC_DOMAIN (the first creates it and accepts the instant room). Then each sends `urn:xmpp:mam:2` queries for a
page of --max after a random known stanza id (PREFIX + 9-digit number below COUNT - 60, as archive_prefill.sh writes
them), one outstanding query per client, together paced at --rate queries/s (a client that falls behind sends at once,
so a high rate measures the most the server answers). Each query's round trip is sent-to-IQ-result; a page counts as
short when fewer than --max result messages arrived before its IQ result (they must all come first, docs/archive.md).
With --window-log, queries start when that file (loadgen's log, run.progressIntervalS=1) names a phase "level " and
stop at its next phase (drain/ramp-down/shutdown), so the figures cover the chat level only; otherwise they run for
--duration s (or until --queries have been sent). SIGTERM stops early. Writes a JSON summary to --out (and stdout).
Exit 0, or 1 when nothing was answered.
"""
import argparse
import json
import os
import random
import re
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xmpp_check import Conn  # noqa: E402  (the probe's login code)

PASSWORD = "arch-secret"
stop = threading.Event()


def login(host, port, domain, user):
    c = Conn(host, port, domain)
    features = c.open_stream()
    c.send("<iq type='set' id='reg1'><query xmlns='jabber:iq:register'><username>%s</username>"
           "<password>%s</password></query></iq>" % (user, PASSWORD))
    m = c.until(r"<iq[^>]*id=['\"]reg1['\"](?:[^>]*/>|.*?</iq>)", "registration answer")
    if "error" in m.group(0) and "conflict" not in m.group(0):
        raise RuntimeError("registration refused: " + m.group(0)[:300])
    if "PLAIN" not in features:
        raise RuntimeError("no SASL PLAIN")
    import base64
    c.send("<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>%s</auth>"
           % base64.b64encode(("\0%s\0%s" % (user, PASSWORD)).encode()).decode())
    if c.until(r"<(success|failure)", "SASL answer").group(1) != "success":
        raise RuntimeError("SASL failed for " + user)
    c.buf = ""
    c.open_stream()
    c.send("<iq type='set' id='bind1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></iq>")
    c.until(r"<iq[^>]*id=['\"]bind1['\"](?:[^>]*/>|.*?</iq>)", "resource binding")
    return c


def join(c, room, nick, create):
    c.send("<presence to='%s/%s'><x xmlns='http://jabber.org/protocol/muc'><history maxstanzas='0'/></x></presence>"
           % (room, nick))
    c.until(r"<presence[^>]*from=['\"]%s/%s['\"].*?</presence>" % (re.escape(room), re.escape(nick)), "own presence")
    if create:  # instant room (XEP-0045 10.1.2); answered with a result, or an error if it was not locked
        c.send("<iq type='set' id='inst1' to='%s'><query xmlns='http://jabber.org/protocol/muc#owner'>"
               "<x xmlns='jabber:x:data' type='submit'/></query></iq>" % room)
        c.until(r"<iq[^>]*id=['\"]inst1['\"](?:[^>]*/>|.*?</iq>)", "instant room answer")


RESULT = re.compile(r"<result\b[^>]*xmlns=['\"]urn:xmpp:mam:2['\"]")


def page_query(c, room, qid, after, size, timeout):
    """Sends one query; returns (round trip s, results before the IQ result, error text or None)."""
    c.send("<iq type='set' id='%s' to='%s'><query xmlns='urn:xmpp:mam:2' queryid='%s'>"
           "<set xmlns='http://jabber.org/protocol/rsm'><max>%d</max><after>%s</after></set></query></iq>"
           % (qid, room, qid, size, after))
    t0 = time.perf_counter()
    rx = re.compile(r"<iq\b[^>]*\bid=['\"]%s['\"][^>]*?(?:/>|>.*?</iq>)" % qid, re.S)
    deadline = t0 + timeout
    while True:
        m = rx.search(c.buf)
        if m:
            rtt = time.perf_counter() - t0
            results = len(RESULT.findall(c.buf, 0, m.start()))
            iq = m.group(0)
            c.buf = c.buf[m.end():]
            err = None if re.search(r"type=['\"]result['\"]", iq) else iq[:600]
            return rtt, results, err
        if time.perf_counter() > deadline:
            return None, 0, "timeout"
        c.sock.settimeout(max(0.05, deadline - time.perf_counter()))
        try:
            data = c.sock.recv(262144)
        except OSError:
            continue
        if not data:
            return None, 0, "stream closed"
        c.buf += data.decode("utf-8", "replace")


def window(args):
    """Waits for the chat level (or starts at once); returns a function that says when to stop."""
    if not args.window_log:
        return lambda: stop.is_set()
    marker = re.compile(r"\] level \d+/\d+ ")
    while not stop.is_set():
        try:
            with open(args.window_log, errors="replace") as f:
                if marker.search(f.read()):
                    break
        except OSError:
            pass
        time.sleep(0.2)
    state = {"t": 0.0, "done": False}

    def over():
        if stop.is_set() or state["done"]:
            return True
        now = time.monotonic()
        if now - state["t"] > 0.5:
            state["t"] = now
            try:
                with open(args.window_log, errors="replace") as f:
                    tail = f.read()[-400:]
                lines = [ln for ln in tail.splitlines() if "| " in ln]
                if lines and not marker.search(lines[-1]):
                    state["done"] = True
            except OSError:
                pass
        return state["done"]
    return over


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("host"); p.add_argument("port", type=int); p.add_argument("domain"); p.add_argument("muc")
    p.add_argument("--room", required=True)
    p.add_argument("--ids", required=True, help="PREFIX:COUNT of the prefilled stanza ids")
    p.add_argument("--rate", type=float, default=50.0)
    p.add_argument("--clients", type=int, default=4)
    p.add_argument("--max", type=int, default=50)
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument("--window-log")
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--queries", type=int, default=0, help="stop after this many queries in all (0: no limit)")
    p.add_argument("--out")
    args = p.parse_args(argv)
    prefix, count = args.ids.rsplit(":", 1)
    count = int(count)
    if count <= args.max + 10 or args.rate <= 0 or args.clients < 1:
        p.error("--ids COUNT must exceed --max + 10, --rate > 0, --clients >= 1")
    room = "%s@%s" % (args.room, args.muc)
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    conns = []
    for i in range(args.clients):
        c = login(args.host, args.port, args.domain, "arch%d" % (i + 1))
        join(c, room, "arch%d" % (i + 1), create=(i == 0))
        conns.append(c)
    print("archive_load: %d clients in %s" % (len(conns), room), file=sys.stderr, flush=True)

    over = window(args)
    t_start = time.monotonic()
    t_end = t_start + args.duration if not args.window_log else float("inf")
    lat, errors, short, lock = [], [], [0], threading.Lock()
    interval = args.clients / args.rate
    sent = [0]

    def take():  # one more query allowed?
        with lock:
            if args.queries and sent[0] >= args.queries:
                return False
            sent[0] += 1
            return True

    def worker(k, c):
        rnd = random.Random(k)
        nxt = time.monotonic() + interval * k / args.clients
        n = 0
        while not over() and time.monotonic() < t_end:
            now = time.monotonic()
            if nxt > now:
                time.sleep(min(nxt - now, 0.2))
                continue
            nxt = max(nxt + interval, now - interval)  # behind: send at once, do not bank a burst
            if not take():
                break
            n += 1
            after = "%s%09d" % (prefix, rnd.randrange(count - args.max - 10))
            rtt, results, err = page_query(c, room, "q%d-%d" % (k, n), after, args.max, args.timeout)
            with lock:
                if err:
                    errors.append(err)
                else:
                    lat.append(rtt)
                    if results < args.max:
                        short[0] += 1

    threads = [threading.Thread(target=worker, args=(k, c), daemon=True) for k, c in enumerate(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t_start
    for c in conns:
        c.close()
    lat.sort()

    def pct(q):
        return round(lat[min(len(lat) - 1, int(len(lat) * q))] * 1000, 2) if lat else None
    summary = {"room": room, "clients": args.clients, "offeredPerSec": args.rate, "pageSize": args.max,
               "seconds": round(elapsed, 1), "answered": len(lat), "queriesPerSec": round(len(lat) / elapsed, 1),
               "p50Ms": pct(0.5), "p90Ms": pct(0.9), "p99Ms": pct(0.99),
               "maxMs": round(lat[-1] * 1000, 2) if lat else None, "shortPages": short[0], "errors": len(errors),
               "firstErrors": errors[:3]}
    text = json.dumps(summary, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0 if lat else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
