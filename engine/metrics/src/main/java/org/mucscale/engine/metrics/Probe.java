package org.mucscale.engine.metrics;

import org.mucscale.engine.port.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.util.List;

/**
 * The end-to-end probe: every {@code interval} it sends a stamped message into each probe room through a
 * {@link ProbeTransport}, and when the message comes back ({@link #onReceived}) records send → receive as
 * {@code mucscale.probe.latency.ns}. That is the number an operator cares about: what a user would see.
 *
 * <p>The body is {@code mucscale-probe <instance> <seq> <sendNs>}: the instance is random per probe, so only this
 * probe's own messages are measured (another node's probe, or a user typing the prefix, is ignored; a forged stamp
 * from the same instance would need its random id). Send time travels in the body, so nothing is kept per message.
 *
 * <p><b>Concurrency.</b> One daemon thread ({@code mucscale-metrics-probe}) sends; any delivery thread may call
 * {@link #onReceived}, which only parses and records (no lock). {@link #start}/{@link #close} come from the host's
 * lifecycle thread.
 */
public final class Probe implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Probe.class);

    /** Every probe body starts with this. */
    public static final String PREFIX = "mucscale-probe ";

    private final ProbeTransport transport;
    private final List<String> rooms;
    private final long intervalNs;
    private final MucScaleMetrics metrics;
    private final Clock clock;
    private final String instance;
    private long seq;
    private volatile long sendFailures;
    private PeriodicTask thread;

    public Probe(ProbeTransport transport, List<String> rooms, java.time.Duration interval, MucScaleMetrics metrics,
                 Clock clock) {
        if (rooms.isEmpty()) {
            throw new IllegalArgumentException("the probe needs at least one room");
        }
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("probe interval must be positive, was " + interval);
        }
        this.transport = transport;
        this.rooms = List.copyOf(rooms);
        this.intervalNs = interval.toNanos();
        this.metrics = metrics;
        this.clock = clock;
        this.instance = Long.toHexString(new SecureRandom().nextLong() | 1L << 63);
    }

    public synchronized void start() {
        if (thread != null) {
            return;
        }
        thread = new PeriodicTask("mucscale-metrics-probe", this::sendOnce, intervalNs);
    }

    @Override
    public void close() {
        PeriodicTask t;
        synchronized (this) {
            t = thread;
            thread = null;
        }
        if (t != null) {
            t.close();
        }
    }

    /** Sends one stamped message into every probe room now. */
    public synchronized void sendOnce() {
        for (String room : rooms) {
            String body = PREFIX + instance + ' ' + (++seq) + ' ' + clock.nanoTime();
            try {
                transport.send(room, body);
                metrics.probeSent();
            } catch (RuntimeException e) {
                sendFailures++;
                LOG.warn("probe could not send into {}: {}", room, e.toString());
            }
        }
    }

    /**
     * A groupchat message arrived at the probe's occupant. Returns true when it was this probe's own message (then
     * its latency is recorded), false for anything else.
     */
    public boolean onReceived(String body, long receivedNs) {
        if (body == null || !body.startsWith(PREFIX)) {
            return false;
        }
        int idStart = PREFIX.length();
        int idEnd = body.indexOf(' ', idStart);
        if (idEnd != idStart + instance.length() || !body.regionMatches(idStart, instance, 0, instance.length())) {
            return false;
        }
        int seqEnd = body.indexOf(' ', idEnd + 1);
        if (seqEnd < 0) {
            return false;
        }
        long sentNs = parseLong(body, seqEnd + 1, body.length());
        if (sentNs == Long.MIN_VALUE) {
            return false;
        }
        metrics.recordProbeLatencyNs(receivedNs - sentNs);
        return true;
    }

    /** Sends that threw. */
    public long sendFailures() {
        return sendFailures;
    }

    /** Parses a decimal (possibly negative) long without allocating; {@code Long.MIN_VALUE} when malformed. */
    private static long parseLong(String s, int from, int to) {
        if (from >= to || to - from > 20) {
            return Long.MIN_VALUE;
        }
        boolean negative = s.charAt(from) == '-';
        int i = negative ? from + 1 : from;
        if (i >= to) {
            return Long.MIN_VALUE;
        }
        long v = 0;
        for (; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return Long.MIN_VALUE;
            }
            v = v * 10 + (c - '0');
        }
        return negative ? -v : v;
    }
}
