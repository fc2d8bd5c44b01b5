package org.mucscale.engine.cluster;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import org.mucscale.engine.stanza.RenderedStanza;

/**
 * The groupchat messages this node recently wrote to its local sessions, by their room-assigned stanza-id, so that a
 * re-delivery of a message (a new owner sending again what a dead owner had accepted, whose relays may have been lost)
 * reaches only the nodes that had not delivered it.
 *
 * <p>Bounded in size and time without a sweep: ids go into a current generation; when it holds half the capacity or is
 * half the retention old, it becomes the previous generation and the one before is dropped. An id is therefore known
 * for at least {@code min(retention / 2, capacity / 2 later ids)} and at most {@code retention}; at most
 * {@code capacity} ids are held. Thread-safe (the relay-in thread, release threads and room threads use one instance);
 * adding takes no lock.
 */
final class DeliveredIds {
    private static final String STANZA_ID = "<stanza-id ";

    private final int generationSize;
    private final long generationNanos;
    private final LongSupplier nanoTime;
    private volatile Generation current;
    private volatile Generation previous;

    private static final class Generation {
        final Set<String> ids;
        final AtomicInteger size = new AtomicInteger();
        final long startNanos;

        Generation(long startNanos, int expected) {
            this.startNanos = startNanos;
            this.ids = ConcurrentHashMap.newKeySet(Math.min(expected, 1024)); // grows from there when the node is busy
        }
    }

    DeliveredIds(int capacity, long retentionNanos, LongSupplier nanoTime) {
        if (capacity < 2 || retentionNanos < 2) {
            throw new IllegalArgumentException("capacity and retention must be at least 2, got " + capacity + " and "
                    + retentionNanos);
        }
        this.generationSize = capacity / 2;
        this.generationNanos = retentionNanos / 2;
        this.nanoTime = nanoTime;
        long now = nanoTime.getAsLong();
        this.current = new Generation(now, generationSize);
        this.previous = new Generation(now - retentionNanos, 0);
    }

    /**
     * Remembers {@code key}; true when it was not known yet (the caller delivers), false when it was. Reads the clock
     * once per 256 new ids only (this is on the relay path); {@link #contains} ages generations on every call.
     */
    boolean add(String key) {
        Generation g = current;
        if (g.ids.contains(key) || previous.ids.contains(key) && contains(key)) {
            return false;
        }
        if (!g.ids.add(key)) {
            return false;
        }
        int n = g.size.incrementAndGet();
        if (n >= generationSize || (n & 255) == 0 && nanoTime.getAsLong() - g.startNanos >= generationNanos) {
            rotate(g);
        }
        return true;
    }

    /** Whether {@code key} was delivered here within the retention. */
    boolean contains(String key) {
        Generation g = current;
        Generation p = previous;
        long now = nanoTime.getAsLong();
        if (now - g.startNanos >= generationNanos) {
            rotate(g);
            g = current;
            p = previous;
        }
        return g.ids.contains(key) || now - p.startNanos < 2 * generationNanos && p.ids.contains(key);
    }

    private synchronized void rotate(Generation full) {
        if (current != full) {
            return; // another thread rotated it already
        }
        long now = nanoTime.getAsLong();
        if (now - full.startNanos >= 2 * generationNanos) {
            previous = new Generation(now - 2 * generationNanos, 0); // both are stale: forget everything
        } else {
            previous = full;
        }
        current = new Generation(now, generationSize);
    }

    /** How many ids are held (both generations; for tests and gauges). */
    int size() {
        return current.size.get() + previous.size.get();
    }

    /**
     * The key of a rendered groupchat message: its room-assigned {@code <stanza-id .../>} element (id and room), which
     * the room appends as the message's last child, or null when it has none (presences, private messages, errors).
     * Scans back from the end of the suffix to the last element start only.
     */
    static String keyOf(RenderedStanza stanza) {
        String suffix = stanza.suffix();
        int end = suffix.length() - END.length();
        if (end <= 0 || !suffix.startsWith(END, end)) {
            return null;
        }
        // the stanza-id must be the last child ('<' in values is escaped): history (a delay after it) is not keyed
        int start = suffix.lastIndexOf('<', end - 1);
        if (start < 0 || !suffix.startsWith(STANZA_ID, start)) {
            return null;
        }
        return suffix.substring(start + STANZA_ID.length(), end);
    }

    private static final String END = "/></message>";
}
