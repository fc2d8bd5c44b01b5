package org.mucscale.engine.cluster;

import java.util.Arrays;
import java.util.function.LongSupplier;

import org.mucscale.engine.stanza.RenderedStanza;

/**
 * The groupchat messages this node recently wrote to its local sessions, by a 64-bit fingerprint of their room-assigned
 * stanza-id, so that a re-delivery of a message (a new owner sending again what a dead owner had accepted, whose relays
 * may have been lost) reaches only the nodes that had not delivered it.
 *
 * <p>Bounded in size and time without a sweep and without allocating: fingerprints go into the current of two
 * open-addressing tables; when it holds half the capacity or is half the retention old, it becomes the previous table
 * and the one before is cleared. A fingerprint is therefore known for at least {@code min(retention / 2, capacity / 2
 * later ones)} and at most {@code retention}; at most {@code capacity} are held (two tables of {@code capacity} longs,
 * 2 MB at the default). Thread-safe: the relay-in thread, release threads and room threads share one instance; each
 * call holds its monitor for one or two probes (a few ns), and only broadcasts reach it, not deliveries.
 */
final class DeliveredIds {
    private static final String STANZA_ID = "<stanza-id ";
    private static final String END = "/></message>";
    private static final long FNV_PRIME = 0x100000001b3L;

    private final int generationSize;
    private final long generationNanos;
    private final LongSupplier nanoTime;
    private final int mask;
    private long[] current;
    private long[] previous;
    private int currentSize;
    private int previousSize;
    private long currentStart;
    private long previousStart;

    DeliveredIds(int capacity, long retentionNanos, LongSupplier nanoTime) {
        if (capacity < 2 || capacity > 1 << 28 || retentionNanos < 2) {
            throw new IllegalArgumentException("capacity must be between 2 and 2^28 and retention at least 2, got "
                    + capacity + " and " + retentionNanos);
        }
        this.generationSize = capacity / 2;
        this.generationNanos = retentionNanos / 2;
        this.nanoTime = nanoTime;
        int slots = Integer.highestOneBit(Math.max(2, generationSize) * 2 - 1) * 2; // load at most one half
        this.mask = slots - 1;
        this.current = new long[slots];
        this.previous = new long[slots];
        long now = nanoTime.getAsLong();
        this.currentStart = now;
        this.previousStart = now - retentionNanos;
    }

    /**
     * Remembers {@code key} (a {@link #keyOf} fingerprint, never 0); true when it was not known yet (the caller
     * delivers), false when it was. Ages the tables first, on every call, as {@link #contains} does: a key must never
     * go into a generation that is already older than half the retention. (It once read the clock only every 256
     * new keys; after a quiet spell the first keys then went into such a generation, which the 256th key's rotation
     * dropped as stale seconds after they were added, and a re-delivery of one of them was written twice.)
     */
    synchronized boolean add(long key) {
        long now = nanoTime.getAsLong();
        if (knownAt(now, key)) {
            return false;
        }
        insert(current, key);
        if (++currentSize >= generationSize) {
            rotate(now);
        }
        return true;
    }

    /** Whether {@code key} was delivered here within the retention. */
    synchronized boolean contains(long key) {
        return knownAt(nanoTime.getAsLong(), key);
    }

    /** Ages the tables to {@code now}, then whether {@code key} is within the retention: what add and contains share. */
    private boolean knownAt(long now, long key) {
        if (now - currentStart >= generationNanos) {
            rotate(now);
        }
        return find(current, key) || now - previousStart < 2 * generationNanos && find(previous, key);
    }

    private void rotate(long now) {
        long[] cleared = previous;
        Arrays.fill(cleared, 0L);
        if (now - currentStart >= 2 * generationNanos) {
            Arrays.fill(current, 0L); // both are stale: forget everything
            previousStart = now - 2 * generationNanos;
            previousSize = 0;
        } else {
            previousStart = currentStart;
            previousSize = currentSize;
        }
        previous = current;
        current = cleared;
        currentStart = now;
        currentSize = 0;
    }

    private boolean find(long[] table, long key) {
        for (int i = spread(key) & mask; ; i = (i + 1) & mask) {
            long k = table[i];
            if (k == key) {
                return true;
            }
            if (k == 0) {
                return false;
            }
        }
    }

    private void insert(long[] table, long key) {
        int i = spread(key) & mask;
        while (table[i] != 0) {
            i = (i + 1) & mask;
        }
        table[i] = key;
    }

    private static int spread(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    /** How many keys are held (both tables; for tests). */
    synchronized int size() {
        return currentSize + previousSize;
    }

    /**
     * The key of a rendered groupchat message: a 64-bit fingerprint of its room-assigned {@code <stanza-id .../>}
     * element (id and room), which the room appends as the message's last child, or 0 when it has none (presences,
     * private messages, errors, history with a delay after the stanza-id). Scans back from the end of the suffix to the
     * last element start only, and hashes that element's attributes in place (no allocation).
     */
    static long keyOf(RenderedStanza stanza) {
        String suffix = stanza.suffix();
        int end = suffix.length() - END.length();
        if (end <= 0 || !suffix.startsWith(END, end)) {
            return 0;
        }
        // the stanza-id must be the last child ('<' in values is escaped)
        int start = suffix.lastIndexOf('<', end - 1);
        if (start < 0 || !suffix.startsWith(STANZA_ID, start)) {
            return 0;
        }
        // FNV-1a in four independent lanes (a multiply's latency per four characters, not per character)
        long h0 = 0xcbf29ce484222325L;
        long h1 = 0x84222325cbf29ce4L;
        long h2 = 0x9e3779b97f4a7c15L;
        long h3 = 0x7f4a7c159e3779b9L;
        int i = start + STANZA_ID.length();
        for (; i + 3 < end; i += 4) {
            h0 = (h0 ^ suffix.charAt(i)) * FNV_PRIME;
            h1 = (h1 ^ suffix.charAt(i + 1)) * FNV_PRIME;
            h2 = (h2 ^ suffix.charAt(i + 2)) * FNV_PRIME;
            h3 = (h3 ^ suffix.charAt(i + 3)) * FNV_PRIME;
        }
        for (; i < end; i++) {
            h0 = (h0 ^ suffix.charAt(i)) * FNV_PRIME;
        }
        long h = h0 ^ Long.rotateLeft(h1, 16) ^ Long.rotateLeft(h2, 32) ^ Long.rotateLeft(h3, 48);
        h = (h ^ (h >>> 33)) * 0xff51afd7ed558ccdL; // murmur3's finalizer: every lane reaches every bit
        h = (h ^ (h >>> 33)) * 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h == 0 ? 1 : h;
    }
}
