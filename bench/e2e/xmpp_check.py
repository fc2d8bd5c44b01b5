#!/usr/bin/env python3
"""Readiness probe for bench/e2e: logs in over plain TCP with SASL PLAIN and, when given a MUC domain, asks it for
disco#info, so "started" means "accepts logins and its MUC service answers" (for mucscale: the component is connected).

  xmpp_check.py HOST PORT DOMAIN [MUC_DOMAIN] [--timeout S] [--register]

Registers the probe account e2e-probe in-band first (--register; a conflict means it exists). Retries until the
timeout (default 60 s). Exit 0 ready, 1 not ready in time (the last failure is printed). Loopback servers only.
"""
import base64
import re
import socket
import sys
import time

USER, PASSWORD = "e2e-probe", "e2e-probe-secret"


class Conn:
    def __init__(self, host, port, domain):
        self.domain = domain
        self.sock = socket.create_connection((host, port), timeout=10)
        self.buf = ""

    def send(self, s):
        self.sock.sendall(s.encode())

    def until(self, pattern, what):
        deadline = time.time() + 10
        rx = re.compile(pattern, re.S)
        while time.time() < deadline:
            m = rx.search(self.buf)
            if m:
                self.buf = self.buf[m.end():]
                return m
            data = self.sock.recv(65536)
            if not data:
                raise RuntimeError("server closed the stream while waiting for " + what + ": " + self.buf[-300:])
            self.buf += data.decode("utf-8", "replace")
        raise RuntimeError("no " + what + " within 10 s: " + self.buf[-300:])

    def open_stream(self):
        self.send("<?xml version='1.0'?><stream:stream xmlns='jabber:client' "
                  "xmlns:stream='http://etherx.jabber.org/streams' to='%s' version='1.0'>" % self.domain)
        return self.until(r"<stream:features.*?</stream:features>", "stream features").group(0)

    def close(self):
        try:
            self.send("</stream:stream>")
            self.sock.close()
        except OSError:
            pass


def attempt(host, port, domain, muc, register):
    c = Conn(host, port, domain)
    try:
        features = c.open_stream()
        if register:
            c.send("<iq type='set' id='reg1'><query xmlns='jabber:iq:register'><username>%s</username>"
                   "<password>%s</password></query></iq>" % (USER, PASSWORD))
            m = c.until(r"<iq[^>]*id=['\"]reg1['\"](?:[^>]*/>|.*?</iq>)", "registration answer")
            if "type='error'" in m.group(0) or 'type="error"' in m.group(0):
                if "conflict" not in m.group(0):
                    raise RuntimeError("registration refused: " + m.group(0)[:300])
        if "PLAIN" not in features:
            raise RuntimeError("server does not offer SASL PLAIN: " + features[:300])
        token = base64.b64encode(("\0%s\0%s" % (USER, PASSWORD)).encode()).decode()
        c.send("<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>%s</auth>" % token)
        m = c.until(r"<(success|failure)[^>]*?(/>|>.*?</\1>)", "SASL answer")
        if m.group(1) != "success":
            raise RuntimeError("SASL PLAIN failed: " + m.group(0)[:300])
        c.buf = ""
        c.open_stream()
        c.send("<iq type='set' id='bind1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></iq>")
        c.until(r"<iq[^>]*id=['\"]bind1['\"][^>]*type=['\"]result['\"]|<iq[^>]*type=['\"]result['\"][^>]*id=['\"]bind1['\"]",
                "resource binding")
        if muc:
            c.send("<iq type='get' id='disco1' to='%s'><query xmlns='http://jabber.org/protocol/disco#info'/></iq>" % muc)
            m = c.until(r"<iq[^>]*id=['\"]disco1['\"](?:[^>]*/>|.*?</iq>)", "disco#info answer from " + muc)
            if "http://jabber.org/protocol/muc" not in m.group(0):
                raise RuntimeError(muc + " is not (yet) a MUC service: " + m.group(0)[:300])
    finally:
        c.close()


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    timeout = 60.0
    if "--timeout" in argv:
        timeout = float(argv[argv.index("--timeout") + 1])
        args.remove(argv[argv.index("--timeout") + 1])
    register = "--register" in argv
    if len(args) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    host, port, domain = args[0], int(args[1]), args[2]
    muc = args[3] if len(args) > 3 else None
    deadline = time.time() + timeout
    last = "not tried"
    while time.time() < deadline:
        try:
            attempt(host, port, domain, muc, register)
            return 0
        except (OSError, RuntimeError) as e:
            last = str(e)
            time.sleep(0.5)
    print("xmpp_check: not ready within %.0f s: %s" % (timeout, last), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
