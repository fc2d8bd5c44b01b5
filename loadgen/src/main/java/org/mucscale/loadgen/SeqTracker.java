package org.mucscale.loadgen;

/**
 * What one receiver has seen from each sender of its room, by the sender's sequence number (1, 2, 3, ...): the
 * highest sequence, a 64-bit window of which of the 64 sequences below it arrived, and how many distinct ones
 * arrived. From that: a repeat inside the window is a duplicate; an arrival below the highest that was not yet seen
 * is a reordering; loss is (messages sent) - (distinct arrivals), exact per sender/receiver pair.
 *
 * <p>Concurrency: owned by one receiving connection, so only its MINA processor thread writes; the run reads the
 * counts after sending has stopped and the drain wait is over.
 *
 * <pre>
 *   bit i of window[slot] = sequence (highest[slot] - i) arrived; bit 0 is highest itself
 * </pre>
 */
final class SeqTracker {
    static final int IN_ORDER = 0;
    static final int AHEAD = 1;
    static final int REORDERED = 2;
    static final int DUPLICATE = 3;
    static final int LATE_BEYOND_WINDOW = 4;

    private final int[] highest;
    private final long[] window;
    private final int[] distinct;

    SeqTracker(int slots) {
        highest = new int[slots];
        window = new long[slots];
        distinct = new int[slots];
    }

    /**
     * Records the arrival of sequence {@code seq} (1-based) from the sender in {@code slot}; returns
     * IN_ORDER (the next one), AHEAD (skipped some, maybe still coming), REORDERED (an earlier gap filled),
     * DUPLICATE (seen before) or LATE_BEYOND_WINDOW (more than 64 behind; counted as distinct, cannot tell).
     */
    int record(int slot, int seq) {
        int h = highest[slot];
        if (seq > h) {
            int shift = seq - h;
            window[slot] = shift >= 64 ? 1L : (window[slot] << shift) | 1L;
            highest[slot] = seq;
            distinct[slot]++;
            return shift == 1 ? IN_ORDER : AHEAD;
        }
        int behind = h - seq;
        if (behind >= 64) {
            distinct[slot]++;
            return LATE_BEYOND_WINDOW;
        }
        long bit = 1L << behind;
        if ((window[slot] & bit) != 0) {
            return DUPLICATE;
        }
        window[slot] |= bit;
        distinct[slot]++;
        return REORDERED;
    }

    int distinct(int slot) {
        return distinct[slot];
    }

    int highest(int slot) {
        return highest[slot];
    }

    int slots() {
        return highest.length;
    }
}
