package org.mucscale.engine.store;

/**
 * Counters of the room log store at one moment, for the admin page and tests. Every record the store accepted is
 * in exactly one of: queued, in flight, committed, dead-lettered, spilled-not-yet-replayed.
 */
public record StoreStats(
        long enqueued,
        long committed,
        long batches,
        long spilled,
        long replayed,
        long rejected,
        long deadLettered,
        long retries,
        int queueDepth,
        long spillPending) {
}
