package org.mucscale.engine.cluster;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Per-link order on top of a transport that may reorder: the sender numbers its messages to each node (1, 2, 3 ...),
 * the receiver hands them on in that order, holding early ones until the gap fills. Each node run has a random epoch;
 * a new epoch from a node (it restarted) starts its link afresh.
 *
 * <p>A sender numbers its link to a node once per sender run, so a node whose engine restarted while it stayed a member
 * gets the old link's next numbers. Rule (cluster-protocol.md, L2): the first message of a sender run starts the link;
 * one above 1 is held for {@code startWindowNanos} (a lower one may still be on its way), then the link starts at the
 * lowest held. Numbers below a link's start are not a gap: not skipped, not counted.
 *
 * <p>The transports deliver at most once, so a gap can be permanent (a message lost as its sender died, or dropped by
 * the host). A gap older than {@code gapTimeoutNanos} is skipped and reported, rather than holding that link forever.
 *
 * <p>Concurrency: {@link #nextSeq} from any thread (one atomic per link); {@link #receive} from any thread, one lock per
 * sending node, held while in-order messages are handed on (the consumer must only enqueue, or take locks that are never
 * held while taking this one: ClusterNode's resend gate).
 */
final class OrderedLinks<T> {
    private final long epoch = ThreadLocalRandom.current().nextLong();
    private final long gapTimeoutNanos;
    private final long startWindowNanos;
    private final ConcurrentHashMap<String, AtomicLong> outbound = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Inbox<T>> inbound = new ConcurrentHashMap<>();

    OrderedLinks(long gapTimeoutNanos, long startWindowNanos) {
        this.gapTimeoutNanos = gapTimeoutNanos;
        this.startWindowNanos = startWindowNanos;
    }

    long epoch() {
        return epoch;
    }

    /** The next sequence number of the link to {@code node}. */
    long nextSeq(String node) {
        return outbound.computeIfAbsent(node, n -> new AtomicLong()).incrementAndGet();
    }

    /**
     * One message from {@code from}: handed to {@code deliver} now if it is the next one, else held. Returns the
     * number of gaps given up on (a link's start above 1 is none, L2).
     */
    int receive(String from, long senderEpoch, long seq, T message, long nowNanos, Consumer<T> deliver) {
        Inbox<T> box = inbound.computeIfAbsent(from, n -> new Inbox<>());
        synchronized (box) {
            if (box.epoch != senderEpoch) {
                box.reset(senderEpoch);
            }
            if (seq < box.expected) {
                return 0; // a duplicate: already handed on
            }
            if (seq > box.expected) {
                if (box.pending.isEmpty()) {
                    box.gapSinceNanos = nowNanos;
                }
                box.pending.put(seq, message);
                return skipStaleGap(box, nowNanos, deliver);
            }
            box.started = true;
            deliver.accept(message);
            box.expected++;
            drain(box, deliver);
            if (!box.pending.isEmpty()) {
                box.gapSinceNanos = nowNanos;
            }
            return 0;
        }
    }

    /** Skips gaps older than the timeout on every link (called periodically). Returns the gaps skipped. */
    int sweep(long nowNanos, Consumer<T> deliver) {
        int skipped = 0;
        for (Inbox<T> box : inbound.values()) {
            synchronized (box) {
                skipped += skipStaleGap(box, nowNanos, deliver);
            }
        }
        return skipped;
    }

    private int skipStaleGap(Inbox<T> box, long nowNanos, Consumer<T> deliver) {
        if (!box.started) {
            if (box.pending.isEmpty() || nowNanos - box.gapSinceNanos < startWindowNanos) {
                return 0;
            }
            // the sender numbered this link before this run heard from it: the link starts here (L2), not a gap
            box.started = true;
            box.expected = box.pending.firstKey();
            drain(box, deliver);
            box.gapSinceNanos = nowNanos;
        }
        int skipped = 0;
        while (!box.pending.isEmpty() && nowNanos - box.gapSinceNanos >= gapTimeoutNanos) {
            box.expected = box.pending.firstKey();
            skipped++;
            drain(box, deliver);
            box.gapSinceNanos = nowNanos;
        }
        return skipped;
    }

    private static <T> void drain(Inbox<T> box, Consumer<T> deliver) {
        for (;;) {
            T next = box.pending.remove(box.expected);
            if (next == null) {
                return;
            }
            deliver.accept(next);
            box.expected++;
        }
    }

    /**
     * Forgets a node that left: its held messages are dropped, and both directions start afresh if it returns.
     * Returns the epoch of the run it last heard from that node, or null if it heard nothing.
     */
    Long forget(String node) {
        outbound.remove(node);
        Inbox<T> box = inbound.remove(node);
        if (box == null) {
            return null;
        }
        synchronized (box) {
            return box.epoch == Long.MIN_VALUE ? null : box.epoch;
        }
    }

    /** Messages held because of gaps, over all links (a gauge). */
    int held() {
        int n = 0;
        for (Inbox<T> box : inbound.values()) {
            synchronized (box) {
                n += box.pending.size();
            }
        }
        return n;
    }

    private static final class Inbox<T> {
        long epoch;
        long expected = 1;
        /** Whether the link has started (L2): its first message was handed on. */
        boolean started;
        long gapSinceNanos;
        final TreeMap<Long, T> pending = new TreeMap<>();

        Inbox() {
            this.epoch = Long.MIN_VALUE;
        }

        void reset(long newEpoch) {
            epoch = newEpoch;
            expected = 1;
            started = false;
            pending.clear();
        }
    }

    Map<String, AtomicLong> outboundLinks() {
        return outbound;
    }
}
