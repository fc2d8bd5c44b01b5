package org.mucscale.loadgen;

import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.session.IoSession;

/**
 * XEP-0198 (urn:xmpp:sm:3) for one client, as Smack and Conversations play it: {@code <enable resume='true'/>} after
 * bind when the server offers it, every received stanza (message, presence, iq; not nonzas) counted into {@code h},
 * every {@code <r/>} answered at once with {@code <a h='N'/>}. A client chosen for a cut ({@link #keepsOutboundLog})
 * also keeps its last {@link #LOG_SIZE} outbound stanzas, so after {@code <resumed h='N'/>} it sends again what the
 * server did not get, and has its TCP socket cut once ({@link #cut}) and resumes with {@code <resume previd h/>}.
 *
 * <p>Concurrency: inbound counting, acks and resumption run on the connection's processor thread; outbound stanzas
 * come from the pacer and the processor thread, so {@link #write} counts and writes under this object's lock (one
 * uncontended lock per sent stanza, only for stream-managed clients). The cut comes from the timer thread.
 */
final class StreamManagement {
    static final String NS = "urn:xmpp:sm:3";
    /** Outbound stanzas kept for a resend; a sender sends a few per second, and a resumption takes well under one. */
    static final int LOG_SIZE = 64;
    private static final int PHASE_NONE = 0;
    private static final int PHASE_CUT = 1;
    private static final int PHASE_RECONNECTING = 2;

    private final Client client;
    private final byte[][] outboundLog;
    private boolean enableSent;
    private volatile boolean enabled;
    private volatile boolean resumable;
    private String id;
    /** Stanzas received since {@code <enabled/>} (XEP-0198's h; wraps at 2^32 like the protocol's). */
    private int inbound;
    /** Stanzas sent since {@code <enable/>}; guarded by this. */
    private int outbound;
    private volatile int phase = PHASE_NONE;
    /** {@link LoadRun#nowUs} when the resumption completed; 0 before. Read by the delivery path. */
    volatile long resumedAtUs;

    StreamManagement(Client client, boolean keepsOutboundLog) {
        this.client = client;
        this.outboundLog = keepsOutboundLog ? new byte[LOG_SIZE][] : null;
    }

    boolean keepsOutboundLog() {
        return outboundLog != null;
    }

    boolean resumable() {
        return enabled && resumable && id != null;
    }

    boolean resuming() {
        return phase != PHASE_NONE;
    }

    /** After bind: enables stream management when the server's features offer it. */
    void enableIfOffered(String features) {
        if (features == null || !features.contains(NS)) {
            client.run.stats.error("sm-not-offered");
            return;
        }
        synchronized (this) {
            enableSent = true; // the server counts our stanzas from here on
            client.write("<enable xmlns='" + NS + "' resume='true'/>");
        }
    }

    /** One stanza received (message, presence or iq); processor thread. */
    void handled() {
        if (enabled) {
            inbound++;
        }
    }

    /** A stream management nonza ({@code enabled, r, a, resumed, failed}); processor thread. */
    void nonza(String name, byte[] b, int start, int end, int startTagEnd) {
        switch (name) {
            case "enabled" -> {
                id = Bytes.attributeString(b, start, startTagEnd, "id");
                String r = Bytes.attributeString(b, start, startTagEnd, "resume");
                resumable = "true".equals(r) || "1".equals(r);
                enabled = true;
                client.profiles().smEnabled.increment();
            }
            case "r" -> client.write("<a xmlns='" + NS + "' h='" + Integer.toUnsignedString(inbound) + "'/>");
            case "a" -> {
                // the server's count of our stanzas; only a resumption needs it
            }
            case "resumed" -> resumed(b, start, startTagEnd);
            case "failed" -> {
                if (resuming()) {
                    resumeFailed("sm-resume-failed:" + Bytes.firstChildNameAfter(b, start, end, null));
                } else {
                    client.run.stats.error("sm-enable-failed");
                }
            }
            default -> client.run.stats.error("unexpected-element:" + name);
        }
    }

    /** Writes one stanza or nonza, counting stanzas once enabled; any thread. */
    synchronized void write(IoSession s, byte[] xml) {
        if (enableSent && isStanza(xml)) {
            if (outboundLog != null) {
                outboundLog[Integer.remainderUnsigned(outbound, LOG_SIZE)] = xml;
            }
            outbound++;
        }
        s.write(IoBuffer.wrap(xml));
    }

    private static boolean isStanza(byte[] x) {
        return x.length > 3 && x[0] == '<' && (x[1] == 'm' && x[2] == 'e' // <message
                || x[1] == 'p' && x[2] == 'r' // <presence
                || x[1] == 'i' && x[2] == 'q' && (x[3] == ' ' || x[3] == '>'));
    }

    // ---- resumption ----

    /** Cuts the TCP connection (timer thread); the client connects again and resumes when it has closed. */
    void cut() {
        IoSession s = client.session;
        if (s == null || !resumable() || phase != PHASE_NONE) {
            return;
        }
        phase = PHASE_CUT;
        client.beginReconnect();
        client.profiles().resumeCuts.increment();
        s.closeNow();
    }

    /**
     * The connection closed; true when that is the cut's own close (then the client connects again, and its login
     * ends in {@link #resumeInstead}). A close of the resuming connection itself is a failed resumption.
     */
    boolean closedByCut() {
        int p = phase;
        if (p == PHASE_CUT) {
            phase = PHASE_RECONNECTING;
            client.run.reconnect(client);
            return true;
        }
        if (p == PHASE_RECONNECTING) {
            phase = PHASE_NONE;
            client.profiles().resumeFailed.increment();
            client.run.stats.error("sm-resume-connection-closed");
        }
        return false;
    }

    /** After authentication on the new connection: sends {@code <resume/>} instead of binding; false when not resuming. */
    boolean resumeInstead(String features) {
        if (phase != PHASE_RECONNECTING) {
            return false;
        }
        if (features == null || !features.contains(NS)) {
            resumeFailed("sm-resume-not-offered");
            return true;
        }
        client.write("<resume xmlns='" + NS + "' previd='" + id + "' h='" + Integer.toUnsignedString(inbound) + "'/>");
        return true;
    }

    /** The resumption failed for good: counted once, and the client stops (what it misses counts as lost). */
    private void resumeFailed(String kind) {
        client.profiles().resumeFailed.increment();
        client.fail(kind); // while still resuming, so it is not counted as a failed login
        phase = PHASE_NONE;
    }

    private void resumed(byte[] b, int start, int startTagEnd) {
        String h = Bytes.attributeString(b, start, startTagEnd, "h");
        int serverGot;
        try {
            serverGot = h == null ? outbound : Integer.parseUnsignedInt(h);
        } catch (NumberFormatException e) {
            client.fail("sm-resumed-bad-h");
            return;
        }
        synchronized (this) {
            int missing = outbound - serverGot;
            if (missing < 0 || (missing > 0 && (outboundLog == null || missing > LOG_SIZE))) {
                client.run.stats.error("sm-resume-outbound-beyond-log");
            } else {
                for (int k = serverGot; k != outbound; k++) {
                    client.session.write(IoBuffer.wrap(outboundLog[Integer.remainderUnsigned(k, LOG_SIZE)]));
                }
                client.profiles().outboundResent.add(missing);
            }
        }
        resumedAtUs = client.run.nowUs();
        phase = PHASE_NONE;
        client.profiles().resumed.increment();
        client.resumedJoined();
    }
}
