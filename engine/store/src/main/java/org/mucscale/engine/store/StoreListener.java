package org.mucscale.engine.store;

/**
 * Metrics hook: every state a record passes through is reported here (the metrics module adapts it to counters and
 * histograms). Every method has a no-op default. {@link #enqueued} and {@link #spilled}/{@link #rejected} run on the
 * caller's (room) thread and must be cheap and non-blocking; the rest run on the store's writer lanes, several at once, so implementations must be thread-safe.
 */
public interface StoreListener {
    StoreListener NONE = new StoreListener() {
    };

    /** A record entered the in-memory queue. */
    default void enqueued() {
    }

    /** The queue was full and {@code records} went to the spill file (or a shutdown spilled them). */
    default void spilled(int records) {
    }

    /** The queue was full and the policy refused a record. */
    default void rejected() {
    }

    /** Records waiting in the queue, sampled by the writer each time it takes a batch (a gauge). */
    default void queueDepth(int records) {
    }

    /** A transaction committed {@code rows} rows in {@code batchNanos}. */
    default void batchCommitted(int rows, long batchNanos) {
    }

    /** One record's time from entering the store to its commit. */
    default void committedLatency(long enqueueToCommitNanos) {
    }

    /** A batch failed for a reason that is not one row's fault (database down, lock timeout...); retried later. */
    default void retried(String reason, long backoffMs) {
    }

    /** A row was isolated as unstorable and parked (dead-letter table, or file when the table failed too). */
    default void deadLettered(String stanzaId, String reason) {
    }

    /** Records read back from spill or write-ahead files and committed. */
    default void replayed(int records) {
    }
}
