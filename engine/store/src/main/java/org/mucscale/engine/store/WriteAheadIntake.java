package org.mucscale.engine.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.mucscale.engine.port.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The room log writer's way in for write-ahead mode ({@link DurabilityMode#WRITE_AHEAD_LOG}): a record is appended to
 * the local {@link WriteAheadLog}, confirmed to its room thread once fsynced (group commit), then handed to the
 * writer's queue, or, when the queue is full, to the spill file: a durable record is never refused after its append.
 * A spilled record's write-ahead segment is let go only after the spill's fsync. At start it replays the segments an
 * earlier run left, the same way.
 *
 * <p>Threads: room threads call {@link #append} and {@link #appendWithin}. {@code spilledUnforced} belongs to the
 * write-ahead log's flusher thread (during {@link #start}, before the flusher exists, to the starting thread).
 * Counters are atomics.
 */
final class WriteAheadIntake implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WriteAheadIntake.class);

    private final Path directory;
    private final StoreConfig config;
    private final Clock clock;
    private final RecordQueue queue;
    private final RecordSpiller spiller;
    // The writer's own enqueue: stamps the record and queues it unless the writer is closing (false then, or full).
    private final Predicate<RoomLogRecord> enqueue;
    private final List<RoomLogRecord> spilledUnforced = new ArrayList<>();
    private final AtomicLong timeouts = new AtomicLong();
    private WriteAheadLog log;

    WriteAheadIntake(StoreConfig config, Clock clock, RecordQueue queue, RecordSpiller spiller,
                     Predicate<RoomLogRecord> enqueue) {
        this.directory = config.spillDirectory().resolve("wal");
        this.config = config;
        this.clock = clock;
        this.queue = queue;
        this.spiller = spiller;
        this.enqueue = enqueue;
    }

    /** Recovers the segments of an earlier run into the queue (or spill), then opens a new segment. */
    void start() throws IOException {
        List<RoomLogRecord> recovered = WriteAheadLog.recover(directory);
        if (!recovered.isEmpty()) {
            LOG.info("mucscale store: recovered {} messages from the write-ahead log", recovered.size());
        }
        for (RoomLogRecord r : recovered) {
            accept(r);
        }
        forceSpills();
        log = new WriteAheadLog(directory, WriteAheadLog.nextSegmentNumber(directory), this::accept,
                this::forceSpills);
        log.start();
    }

    /** See {@link RoomLogWriter#appendDurable}. */
    CompletableFuture<OfferResult> append(RoomLogRecord record) {
        if (config.overflowPolicy() == OverflowPolicy.REJECT_WITH_ERROR && queue.size() >= queue.capacity()) {
            spiller.refused();
            return CompletableFuture.completedFuture(OfferResult.REJECTED);
        }
        record.enqueueNanos = clock.nanoTime();
        return log.append(record);
    }

    /** See {@link RoomLogWriter#appendDurableWithin}. */
    OfferResult appendWithin(RoomLogRecord record, long timeoutMs) {
        CompletableFuture<OfferResult> done = append(record);
        try {
            return done.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            done.cancel(false);
            spiller.refused();
            long n = timeouts.incrementAndGet();
            if (n < 10 || Long.bitCount(n) == 1) {
                LOG.warn("mucscale store: the write-ahead log did not confirm a message of {} within {} ms"
                        + " (mucscale.store.write-ahead-timeout); it is refused to its sender ({} so far)",
                        record.roomJid(), timeoutMs, n);
            }
            return OfferResult.REJECTED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            done.cancel(false);
            spiller.refused();
            return OfferResult.REJECTED;
        } catch (ExecutionException e) {
            return OfferResult.REJECTED;
        }
    }

    /** Appends not confirmed within their wait so far. */
    long timeouts() {
        return timeouts.get();
    }

    /** Tests only: the flusher waits for {@code latch} before its next group (null: no wait). */
    void holdForTest(CountDownLatch latch) {
        log.holdForTest(latch);
    }

    /**
     * Flusher (and recovery): the record is already durable, so it is queued or spilled, never refused. Its segment is
     * released once committed, or once {@link #forceSpills} fsynced its spill.
     */
    private OfferResult accept(RoomLogRecord record) {
        if (enqueue.test(record)) {
            return OfferResult.QUEUED;
        }
        try {
            spiller.append(record);
            if (record.walSegment != null) {
                spilledUnforced.add(record);
            }
        } catch (IOException e) {
            // Still in the write-ahead segment (not released), so the next start replays it.
            LOG.error("mucscale store: spill failed for a write-ahead message {}; it stays in the write-ahead log: {}",
                    record.stanzaId(), e.toString());
        }
        return OfferResult.SPILLED;
    }

    /** Flusher thread, after each group: one fsync for everything the group spilled, then their segments let go. */
    private void forceSpills() {
        if (spilledUnforced.isEmpty()) {
            return;
        }
        try {
            spiller.force();
        } catch (IOException e) {
            LOG.error("mucscale store: spill fsync failed; spilled messages stay in the write-ahead log: {}",
                    e.toString());
            spilledUnforced.clear();
            return;
        }
        for (RoomLogRecord r : spilledUnforced) {
            WriteAheadLog.release(r);
        }
        spilledUnforced.clear();
    }

    /** Writes what is appended, then stops the flusher; later appends fail. */
    @Override
    public void close() {
        if (log != null) {
            log.close();
        }
    }
}
