package org.mucscale.engine.store;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The room log writer's counts behind {@link StoreStats}: records committed, in how many batches, replayed from spill
 * files, parked as dead letters, retried, spilled and refused.
 *
 * <p>Threads: no owner; every count is an atomic. The writer lanes add once per batch, room threads on the overflow
 * path, the write-ahead flusher when it spills or refuses; any thread reads.
 */
final class WriterCounters {
    final AtomicLong committed = new AtomicLong();
    final AtomicLong batches = new AtomicLong();
    final AtomicLong replayed = new AtomicLong();
    final AtomicLong deadLettered = new AtomicLong();
    final AtomicLong retries = new AtomicLong();
    final AtomicLong spilled = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();

    StoreStats stats(RecordQueue queue, SpillFiles spill) {
        return new StoreStats(queue.totalOffered(), committed.get(), batches.get(), spilled.get(), replayed.get(),
                rejected.get(), deadLettered.get(), retries.get(), queue.size(), spill.pendingRecords());
    }
}
