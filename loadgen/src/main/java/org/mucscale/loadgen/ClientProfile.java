package org.mucscale.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * One client profile of a run (a combination of transport, stream management and CSI, e.g. {@code ws+sm+csi}) and
 * the figures of the deliveries its clients received, kept apart by why they may be late:
 * <ul>
 *   <li>{@code active}: nothing holds them back; these alone feed the run's latency and the levels' p99.</li>
 *   <li>{@code inactive}: to a CSI client while it was inactive, or scheduled before it went active again (the
 *       server may legitimately hold them in its CSI queue).</li>
 *   <li>{@code redelivered}: to a client after its stream management resumption that were sent before it completed,
 *       or that carry a {@code urn:xmpp:delay} stamp: the server's resend of what was unacknowledged at the cut.</li>
 * </ul>
 * Recorders are written wait-free by the processor threads; {@link ClientProfiles} collects them under its lock.
 */
final class ClientProfile {
    static final int ACTIVE = 0;
    static final int INACTIVE = 1;
    static final int REDELIVERED = 2;
    private static final String[] KIND_NAMES = {"active", "inactive", "redelivered"};
    private static final byte[] DELAY_NS = Bytes.ascii("urn:xmpp:delay");

    final String label;
    final boolean websocket;
    final boolean streamManagement;
    final boolean csi;
    int clients;
    final LongAdder duplicates = new LongAdder();
    final LongAdder loginFailed = new LongAdder();
    final LongAdder delayStamped = new LongAdder();
    private final Recorder[] recorders = {new Recorder(3), new Recorder(3), new Recorder(3)};
    private final Histogram[] totals = {new Histogram(3), new Histogram(3), new Histogram(3)};
    private final Histogram[] windows = {new Histogram(3), new Histogram(3), new Histogram(3)};
    private final Histogram[] recycled = new Histogram[3];

    ClientProfile(boolean websocket, boolean streamManagement, boolean csi) {
        this.websocket = websocket;
        this.streamManagement = streamManagement;
        this.csi = csi;
        this.label = (websocket ? "ws" : "tcp") + (streamManagement ? "+sm" : "") + (csi ? "+csi" : "");
    }

    /** Records one distinct delivery to {@code c} and returns its kind. Processor thread; no allocation. */
    int record(Client c, byte[] b, int startTagEnd, int end, long scheduledUs, long latencyUs) {
        int kind = ACTIVE;
        StreamManagement sm = c.sm;
        if (sm != null && sm.resumedAtUs > 0) {
            boolean stamped = Bytes.contains(b, startTagEnd, end, DELAY_NS);
            if (stamped) {
                delayStamped.increment();
            }
            if (stamped || scheduledUs < sm.resumedAtUs) {
                kind = REDELIVERED;
            }
        }
        ClientStateIndication state = c.csi;
        if (kind == ACTIVE && state != null && state.holdsBack(scheduledUs)) {
            kind = INACTIVE;
        }
        recorders[kind].recordValue(latencyUs);
        return kind;
    }

    /** Moves what was recorded since the last call into the totals and the open window; caller holds the lock. */
    void collect() {
        for (int k = 0; k < 3; k++) {
            Histogram h = recorders[k].getIntervalHistogram(recycled[k]);
            recycled[k] = h;
            totals[k].add(h);
            windows[k].add(h);
        }
    }

    void resetWindow() {
        for (Histogram h : windows) {
            h.reset();
        }
    }

    /** Deliveries and latency percentiles by kind, over the window ({@code window}) or the whole run. */
    ObjectNode figures(ObjectMapper mapper, boolean window) {
        Histogram[] hs = window ? windows : totals;
        ObjectNode o = mapper.createObjectNode();
        o.put("clients", clients);
        long all = 0;
        for (Histogram h : hs) {
            all += h.getTotalCount();
        }
        o.put("deliveries", all);
        for (int k = 0; k < 3; k++) {
            Histogram h = hs[k];
            long n = h.getTotalCount();
            if (n == 0 && k != ACTIVE) {
                continue; // a kind this profile cannot have, or did not have
            }
            ObjectNode p = o.putObject(KIND_NAMES[k]);
            p.put("deliveries", n);
            p.put("p50Ms", Sampler.ms(n, h.getValueAtPercentile(50)));
            p.put("p90Ms", Sampler.ms(n, h.getValueAtPercentile(90)));
            p.put("p99Ms", Sampler.ms(n, h.getValueAtPercentile(99)));
            p.put("maxMs", Sampler.ms(n, h.getMaxValue()));
        }
        if (!window) {
            o.put("duplicates", duplicates.sum());
            o.put("loginFailed", loginFailed.sum());
            if (streamManagement) {
                o.put("delayStamped", delayStamped.sum());
            }
        }
        return o;
    }
}
