package org.mucscale.engine.filter;

/**
 * Metrics hooks. Called on the message path from many threads at once: implementations must be thread-safe,
 * fast and allocation-free (e.g. LongAdder counters keyed by pre-registered names).
 */
public interface FilterListener {

    /** Does nothing. */
    FilterListener NONE = new FilterListener() {
    };

    /** A message in {@code roomJid} matched entries of {@code list} and got {@code action}; once per list per message. */
    default void onAction(String roomJid, String list, Action action) {
    }

    /**
     * Time spent inspecting one message, in nanoseconds. Only called when {@link #timed()} is true, because reading
     * the clock twice costs a noticeable share of a short message's scan.
     */
    default void onScan(long scanNs) {
    }

    /** Whether {@link #onScan} is wanted. */
    default boolean timed() {
        return false;
    }

    /** A new compiled snapshot is live (off the message path). */
    default void onCompiled(CompileReport report) {
    }
}
