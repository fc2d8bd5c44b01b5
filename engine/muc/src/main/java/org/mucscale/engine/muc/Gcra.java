package org.mucscale.engine.muc;

/**
 * A token bucket held as one number (the generic cell rate algorithm): the "theoretical arrival time" {@code tat} at
 * which the bucket is full again. With an interval of {@code 60 s / perMinute} between tokens and room for
 * {@code burst} tokens, a request at {@code now} is admitted when {@code max(tat, now) - now <= interval * (burst - 1)},
 * and then moves {@code tat} on by one interval. One {@code long} per limit means a limit shared by room threads is a
 * single {@link java.util.concurrent.atomic.AtomicLong} updated by compare-and-set, with no lock; and a bucket whose
 * {@code tat <= now} is full, so forgetting it changes nothing.
 */
final class Gcra {
    /** Returned by {@link #admit} when the request is over the limit (nothing taken). */
    static final long REFUSED = Long.MIN_VALUE;
    private static final long MINUTE_NS = 60_000_000_000L;

    private Gcra() {
    }

    /** Nanoseconds between two tokens at this rate. */
    static long intervalNs(int perMinute) {
        return MINUTE_NS / perMinute;
    }

    /** The new {@code tat} when admitted, else {@link #REFUSED}. */
    static long admit(long tat, long now, int perMinute, int burst) {
        long interval = intervalNs(perMinute);
        long start = Math.max(tat, now);
        if (start - now > interval * (burst - 1L)) {
            return REFUSED;
        }
        return start + interval;
    }

    /** Spends a token if one is there, never refuses (for leaves, which must always succeed): the new {@code tat}. */
    static long spendIfAvailable(long tat, long now, int perMinute, int burst) {
        long next = admit(tat, now, perMinute, burst);
        return next == REFUSED ? tat : next;
    }
}
