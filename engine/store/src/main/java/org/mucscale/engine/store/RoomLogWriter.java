package org.mucscale.engine.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.mucscale.engine.port.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The room log's write-behind writer. The message path calls {@link #offer} (or {@link #appendDurable} in
 * write-ahead mode), which only enqueues into a bounded {@link RecordQueue}: no lock, no blocking, no allocation
 * beyond the record. The writer commits batches of up to {@code batchSize} rows, when a batch is full or its oldest
 * record is {@code maxBatchAge} old, one transaction per batch, idempotent by the room log's key (room, time, stanza
 * id), over {@code writerConnections} connections in parallel: one queue, one order of taking, several batches in
 * flight. A database spends most of a bulk insert's CPU on one connection's thread, so one connection caps the rows
 * per second at what one database core does (measured: about 100,000 rows/s into MariaDB here); batches may
 * therefore commit out of order, which nothing depends on: reads order by time and stanza id, and see batches in
 * flight.
 *
 * <p>Failures: an error that is not one row's fault (database down, lock timeout, missing table) keeps the batch and
 * the queue and retries with exponential backoff; meanwhile the queue fills and the overflow policy applies (spill to
 * a local file, or refuse). An error caused by a row's data splits the batch in halves until the bad row is alone,
 * parks it in {@link DeadLetters} and stores the rest. Shutdown drains for {@code drainTimeout}, then spills what is
 * left; the next start replays spill files (and, in write-ahead mode, the write-ahead segments).
 *
 * <p>Threads: producers (room threads) call offer. Each writer lane ({@code mucscale-store-writer},
 * {@code mucscale-store-writer-2}, ...) owns its batch array, its connection while it writes (leased through its
 * {@link LaneConnection}) and its LOAD DATA buffer; lanes take batches from the queue one at a time under
 * {@code takeLock} (producers never touch it, and a lane holds it only to copy one batch's references, or at the stop
 * to spill one batch). Lane 1 also replays spill files. Counters are atomics, written once per batch.
 * {@link #pendingFor} may be called from any thread and sees records in the queue and in every batch being written.
 * {@code running}, {@code closed} and the drain deadline are volatile, written by the starting and the closing thread
 * (under {@code this}); {@code abandoned} is volatile, written once by the closing thread under {@code takeLock};
 * {@code writeAhead} is set once, by {@link #start}.
 *
 * <p>The stop, and who owns what during it ({@link #close}); D is the drain deadline, close's start plus
 * {@code drainTimeout}:
 * <ol>
 * <li>Until D every lane keeps its batch and its connection and drains the queue into the database; a batch it
 * could not commit by D it spills itself, then it spills the queue's rest and ends.</li>
 * <li>At D the closing thread cuts every lane's connection still alive ({@link LaneConnection#cut}): the connection
 * in use is aborted and no new one is leased. A lane blocked in a call on a server that stopped answering (no JDBC
 * timeout bounds that read) gets an error at once and goes on as in 1.</li>
 * <li>At D + {@link #ABORT_GRACE_MS} the closing thread takes over whatever is left ({@link #handOver}): under
 * {@code takeLock} it sets {@code abandoned} and spills every batch still held by a lane and everything still queued;
 * {@link #close} then fsyncs. From then on no lane takes or spills anything. A lane still alive then (a driver without
 * abort, a wait in the pool, a dead-letter insert) may yet end its call with a commit; so may a batch aborted while
 * its commit was on the wire. Such a batch's outcome is unknown at the stop, so it is spilled all the same: its rows
 * can then be in the table and in a spill file, and the replay of the copy is a no-op, because the insert is
 * idempotent on the room log's primary key (room, time, stanza id) and the spill file keeps the record whole. A
 * record is thus never lost and never stored twice; it may be written twice, the second time as nothing.</li>
 * </ol>
 * So close returns by D + {@link #ABORT_GRACE_MS} (plus the local disk's time to spill), whatever the database does.
 *
 * <p>The parts: {@link BatchTransactions} writes one batch in one transaction, {@link RecordSpiller} puts what cannot
 * go to the database into the spill files, {@link WriteAheadIntake} is write-ahead mode's way in, {@link WriterLane}
 * is one lane's thread and batch, {@link LaneConnection} its connections (which a stop can abort) and
 * {@link WriterCounters} holds the counts; this class owns the queue, the lanes and their lifecycle.
 */
public final class RoomLogWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RoomLogWriter.class);
    private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long FAILURE_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(30);
    /**
     * How long the stop waits, after the drain deadline aborted the lanes' connections, for the lanes to spill and end
     * before it spills what they hold itself: an abort ends a blocked call within milliseconds (the driver closes the
     * socket), so this only bounds a lane the abort did not reach; nothing is lost either way.
     */
    static final long ABORT_GRACE_MS = 2_000;

    private final StoreConfig config;
    private final Clock clock;
    private final StoreListener listener;
    private final RecordQueue queue;
    private final SpillFiles spill;
    private final RecordSpiller spiller;
    private final DeadLetters deadLetters;
    private final BatchTransactions transactions;
    private final WriterLane[] lanes;
    // Lanes take batches one at a time: the queue has one consumer at a time, and batches leave it in order.
    private final Object takeLock = new Object();
    // Set by close(): when the drain's timeout ends, shared by every lane.
    private volatile long drainDeadlineNanos;
    // Set by close() under takeLock once it took over what the lanes hold: no lane takes or spills any more.
    private volatile boolean abandoned;
    // Write-ahead mode only, set by start(); null before and in BATCHED mode.
    private WriteAheadIntake writeAhead;

    private volatile boolean running;
    private volatile boolean closed;

    private final WriterCounters counters = new WriterCounters();
    private final RoomLogRetractions retractions;

    public RoomLogWriter(DataSource dataSource, DatabaseType type, StoreConfig config, Clock clock,
                         StoreListener listener) {
        this.config = config;
        this.clock = clock;
        this.listener = listener;
        this.queue = new RecordQueue(config.queueCapacity());
        try {
            this.spill = new SpillFiles(config.spillDirectory());
        } catch (IOException e) {
            throw new UncheckedIOException("mucscale store cannot use spill directory " + config.spillDirectory(), e);
        }
        this.spiller = new RecordSpiller(spill, config, listener, counters);
        this.deadLetters = new DeadLetters(dataSource, config.spillDirectory(), clock);
        this.transactions = new BatchTransactions(type,
                config.mysqlBulkLoad() && type.isMySqlFamily() && MySqlBulkLoad.driverPresent(), deadLetters,
                listener, counters);
        this.retractions = new RoomLogRetractions(dataSource, this);
        this.lanes = new WriterLane[config.writerConnections()];
        for (int i = 0; i < lanes.length; i++) {
            lanes[i] = new WriterLane(i, config.batchSize(), transactions.newBulkLoad(), dataSource, this::run);
        }
    }

    /**
     * Starts the writer: counts spill files left by an earlier run (replayed in the background), and in write-ahead
     * mode recovers the write-ahead segments into the queue (or spill) before opening a new one.
     */
    public synchronized void start() {
        if (running || closed) {
            return;
        }
        try {
            long leftOver = spill.countExisting();
            if (leftOver > 0) {
                LOG.info("mucscale store: {} messages from spill files of an earlier run will be replayed", leftOver);
            }
            if (config.durability() == DurabilityMode.WRITE_AHEAD_LOG) {
                WriteAheadIntake intake = new WriteAheadIntake(config, clock, queue, spiller, this::enqueue);
                intake.start();
                writeAhead = intake;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("mucscale store could not read its spill/write-ahead files in "
                    + config.spillDirectory(), e);
        }
        running = true;
        for (WriterLane lane : lanes) {
            lane.thread.start();
        }
    }

    /**
     * Hands one record to the store from the message path: never blocks, allocates nothing beyond the record.
     * QUEUED normally; when the queue is full, SPILLED or REJECTED per the overflow policy (REJECTED also when the
     * spill file cannot be written). After {@link #close()} began, records go straight to the overflow policy.
     */
    public OfferResult offer(RoomLogRecord record) {
        return enqueue(record) ? OfferResult.QUEUED : spiller.overflow(record);
    }

    /** Stamps the record and queues it; false when the queue is full or {@link #close()} began. */
    private boolean enqueue(RoomLogRecord record) {
        record.enqueueNanos = clock.nanoTime();
        if (!closed && queue.offer(record)) {
            listener.enqueued();
            return true;
        }
        return false;
    }

    /**
     * Write-ahead mode: appends the record to the local write-ahead file; the future completes once it is fsynced
     * (group commit) and handed to the writer, so the caller broadcasts only after completion. In BATCHED mode this
     * is {@link #offer} with a completed future.
     */
    public CompletableFuture<OfferResult> appendDurable(RoomLogRecord record) {
        WriteAheadIntake w = writeAhead;
        return w == null ? CompletableFuture.completedFuture(offer(record)) : w.append(record);
    }

    /**
     * Write-ahead mode, for a room thread that must not broadcast a message before its append is durable:
     * {@link #appendDurable}, waiting at most {@code timeoutMs} ({@code mucscale.store.write-ahead-timeout}). A wait
     * that ends unconfirmed, because the disk does not answer in time or the waiting thread is interrupted (the
     * service's stop), gives REJECTED, so the message is refused rather than broadcast; the append is withdrawn unless
     * the write-ahead log already took it for writing (then it is stored as usual). An interrupted caller keeps its
     * interrupt status. Records queued by others are not affected: the log writes all of them before it closes.
     */
    public OfferResult appendDurableWithin(RoomLogRecord record, long timeoutMs) {
        WriteAheadIntake w = writeAhead;
        if (w == null) {
            return offer(record);
        }
        return w.appendWithin(record, timeoutMs);
    }

    /** Write-ahead appends not confirmed within their wait so far. */
    public long durableTimeouts() {
        WriteAheadIntake w = writeAhead;
        return w == null ? 0 : w.timeouts();
    }

    /** Tests only: the write-ahead flusher waits for {@code latch} before its next group (null: no wait). */
    void holdWriteAheadForTest(CountDownLatch latch) {
        writeAhead.holdForTest(latch);
    }

    /**
     * Records of {@code roomJid} not yet committed (queue, then the batches in flight), any thread. The queue is read
     * first: a record leaves it only after its lane published it as in flight, so none is missed in between.
     */
    public void pendingFor(String roomJid, List<RoomLogRecord> out) {
        int from = out.size();
        queue.snapshot(roomJid, out);
        for (WriterLane lane : lanes) {
            lane.collect(roomJid, out);
        }
        substituteRetracted(out, from);
    }

    /**
     * Whether a lane holds this message as written (not as its tombstone) in a batch in flight: its write may have
     * started before a retraction was registered (any thread).
     */
    boolean inFlightWithText(String roomJid, String stanzaId) {
        for (WriterLane lane : lanes) {
            if (lane.holdsWithText(roomJid, stanzaId)) {
                return true;
            }
        }
        return false;
    }

    private void substituteRetracted(List<RoomLogRecord> out, int from) {
        if (out.size() > from) {
            retractions.substitute(from == 0 ? out : out.subList(from, out.size()));
        }
    }

    /** Moderation's retractions of logged messages, queued ones included. */
    public RoomLogRetractions retractions() {
        return retractions;
    }

    public int queueDepth() {
        return queue.size();
    }

    public StoreStats stats() {
        return counters.stats(queue, spill);
    }

    /** Waits until nothing is queued, in flight or waiting in spill files; true when reached in time. */
    public boolean awaitIdle(long timeoutMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (System.nanoTime() < deadline) {
            if (queue.size() == 0 && nothingInFlight() && !spill.hasPending()) {
                return true;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        return false;
    }

    /** The queue itself, for the enqueue benchmark's stand-in consumer. */
    RecordQueue queueForBenchmark() {
        return queue;
    }

    private boolean nothingInFlight() {
        for (WriterLane lane : lanes) {
            if (lane.inFlightCount != 0) {
                return false;
            }
        }
        return true;
    }

    /** The writer lanes' threads: the benchmark measures their CPU time, a test that none outlives a stop. */
    List<Thread> laneThreads() {
        List<Thread> threads = new ArrayList<>(lanes.length);
        for (WriterLane lane : lanes) {
            threads.add(lane.thread);
        }
        return threads;
    }

    Path deadLetterFile() {
        return deadLetters.file();
    }

    // ---------------------------------------------------------------- writer lanes

    private void run(WriterLane lane) {
        List<Path> replayFiles = new ArrayList<>();
        // Lane 1 alone replays spill files, so a file is never replayed twice at once; the others serve live batches.
        boolean replays = lane.number == 1;
        while (running) {
            try {
                if (flush(lane, false, Long.MAX_VALUE)) {
                    continue;
                }
                if (replays && replayFiles.isEmpty() && spill.hasPending()) {
                    replayFiles.addAll(spill.sealAndList());
                }
                if (!replayFiles.isEmpty()) {
                    replay(lane, replayFiles.remove(0));
                    continue;
                }
                LockSupport.parkNanos(IDLE_PARK_NANOS);
            } catch (RuntimeException | IOException e) {
                LOG.error("mucscale store: writer loop error (retrying): {}", e.toString(), e);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(config.retryBackoffMinMs()));
            }
        }
        drain(lane);
    }

    /**
     * Takes one batch from the queue if due (full, or oldest older than the batch age, or {@code force}) and writes
     * it. Returns false when nothing was due. A batch not committed by {@code deadlineNanos} is spilled.
     */
    private boolean flush(WriterLane lane, boolean force, long deadlineNanos) {
        RoomLogRecord[] batch = lane.batch;
        int n = take(lane, force);
        if (n == 0) {
            return false;
        }
        boolean done = commitWithRetry(lane, batch, n, deadlineNanos, false);
        if (done) {
            long now = clock.nanoTime();
            for (int i = 0; i < n; i++) {
                listener.committedLatency(now - batch[i].enqueueNanos);
                WriteAheadLog.release(batch[i]);
            }
            lane.finishBatch(n);
        } else {
            spillBatch(lane, n);
        }
        return true;
    }

    /**
     * The lane's batch of {@code n} goes to the spill file, unless the stop took it over already (then it is there),
     * and is dropped. Under {@code takeLock}, so the take-over sees the batch either still held or spilled.
     */
    private void spillBatch(WriterLane lane, int n) {
        synchronized (takeLock) {
            if (!abandoned) {
                spiller.spillAll(lane.batch, n);
            }
            lane.finishBatch(n);
        }
    }

    /**
     * Moves the next batch from the queue into the lane's batch array, publishing it as in flight before releasing
     * its queue slots, when one is due (or any is waiting and {@code force}). Returns its size, 0 when none.
     */
    private int take(WriterLane lane, boolean force) {
        if (queue.size() == 0) {
            return 0;
        }
        synchronized (takeLock) {
            int depth = queue.size();
            if (depth == 0 || abandoned) {
                return 0;
            }
            if (!force && depth < lane.batch.length) {
                RoomLogRecord oldest = queue.peek();
                if (oldest == null || clock.nanoTime() - oldest.enqueueNanos < config.maxBatchAgeNanos()) {
                    return 0;
                }
            }
            int n = queue.peekInto(lane.batch, lane.batch.length);
            if (n > 0) {
                lane.inFlightCount = n;
                queue.release(n);
                listener.queueDepth(queue.size());
            }
            return n;
        }
    }

    /** Replays one sealed spill file in batch-sized transactions, serving due live batches in between. */
    private void replay(WriterLane lane, Path file) throws IOException {
        List<RoomLogRecord> records = SpillFiles.readAll(file);
        RoomLogRecord[] chunk = new RoomLogRecord[lane.batch.length];
        for (int i = 0; i < records.size() && running; i += chunk.length) {
            int n = Math.min(chunk.length, records.size() - i);
            for (int k = 0; k < n; k++) {
                chunk[k] = records.get(i + k);
            }
            if (!commitWithRetry(lane, chunk, n, Long.MAX_VALUE, true)) {
                return;
            }
            counters.replayed.addAndGet(n);
            listener.replayed(n);
            flush(lane, false, Long.MAX_VALUE);
        }
        if (running) {
            spill.delete(file, records.size());
        }
    }

    /**
     * Commits records[0,n) in one transaction, retrying with backoff while the failure is not one row's fault.
     * Returns false only when shutdown's drain deadline passed (or, for replays, shutdown began) before it committed.
     */
    private boolean commitWithRetry(WriterLane lane, RoomLogRecord[] records, int n, long deadlineNanos,
                                    boolean isReplay) {
        long backoffMs = config.retryBackoffMinMs();
        long failingSinceNanos = 0;
        long lastLogNanos = 0;
        while (true) {
            long startNanos = clock.nanoTime();
            retractions.substitute(records, n); // every attempt: a retraction may have come in meanwhile
            SQLException failure = transactions.write(lane.connection, lane.bulkLoad, records, n);
            if (failure == null) {
                retractions.committed(records, n);
                if (failingSinceNanos != 0) {
                    LOG.info("mucscale store: database writes work again after {} ms; {} messages queued",
                            TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - failingSinceNanos), queue.size());
                }
                counters.committed.addAndGet(n);
                counters.batches.incrementAndGet();
                listener.batchCommitted(n, clock.nanoTime() - startNanos);
                return true;
            }
            long now = clock.nanoTime();
            if (failingSinceNanos == 0) {
                failingSinceNanos = now;
            }
            String reason = RoomLogSql.describe(failure);
            counters.retries.incrementAndGet();
            listener.retried(reason, backoffMs);
            if (lastLogNanos == 0 || now - lastLogNanos > FAILURE_LOG_INTERVAL_NANOS) {
                lastLogNanos = now;
                LOG.warn("mucscale store: cannot write room log ({}); keeping {} messages queued and retrying in {} ms"
                        + " (failing for {} ms, {} spilled so far)", reason, queue.size() + n, backoffMs,
                        TimeUnit.NANOSECONDS.toMillis(now - failingSinceNanos), counters.spilled.get());
            }
            if ((isReplay && !running) || now >= deadlineNanos) {
                return false;
            }
            long wakeNanos = Math.min(deadlineNanos, now + TimeUnit.MILLISECONDS.toNanos(backoffMs));
            while (clock.nanoTime() < wakeNanos && (running || deadlineNanos != Long.MAX_VALUE)) {
                LockSupport.parkNanos(Math.min(wakeNanos - clock.nanoTime(), TimeUnit.MILLISECONDS.toNanos(50)));
            }
            if (!running && deadlineNanos == Long.MAX_VALUE) {
                return false;
            }
            backoffMs = Math.min(config.retryBackoffMaxMs(), backoffMs * 2);
        }
    }

    /** Batches that LOAD DATA handed back to the INSERT path (a warning, a duplicate or a refused row). */
    long bulkLoadFallbacks() {
        return transactions.bulkLoadFallbacks();
    }

    /** True while batches go through LOAD DATA (tests). */
    boolean bulkLoadActive() {
        return transactions.bulkLoadActive();
    }

    /**
     * Shutdown, on every lane in parallel: writes what is queued until the drain deadline, then spills the rest; stops
     * at once when the stop took over ({@link #handOver}). {@link #close()} closes the spill file once every lane has
     * finished or was taken over.
     */
    private void drain(WriterLane lane) {
        long deadline = drainDeadlineNanos;
        int emptySweeps = 0;
        // Offers racing with close() may still land for a moment: sweep until the queue stays empty.
        while (emptySweeps < 3 && !abandoned) {
            if (queue.size() == 0) {
                emptySweeps++;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                continue;
            }
            emptySweeps = 0;
            if (clock.nanoTime() < deadline) {
                flush(lane, true, deadline);
            } else {
                synchronized (takeLock) {
                    spillBatch(lane, take(lane, true));
                }
            }
        }
    }

    /**
     * At close, {@link #ABORT_GRACE_MS} after the drain deadline (step 3 of the stop in the class comment): takes
     * over, under {@code takeLock}, what a lane still holds (one the abort did not free, or that is still spilling)
     * and what is still queued, and spills it for the next start, so a stop loses nothing; should such a batch commit
     * later after all, the room log's key makes its replayed copies no-ops. A held batch's records keep their
     * write-ahead segment (the lane releases it if it commits; otherwise the next start replays it).
     */
    private void handOver() {
        int alive = 0;
        int held = 0;
        int queued = 0;
        RoomLogRecord[] chunk = new RoomLogRecord[config.batchSize()];
        synchronized (takeLock) {
            abandoned = true;
            for (WriterLane lane : lanes) {
                alive += lane.thread.isAlive() ? 1 : 0;
                held += lane.spillHeld(spiller); // a lane that died of an Error holds its batch too
            }
            int n;
            while ((n = queue.peekInto(chunk, chunk.length)) > 0) {
                queue.release(n);
                queued += n;
                spiller.spillAll(chunk, n);
                java.util.Arrays.fill(chunk, 0, n, null);
            }
        }
        spiller.countSpilled(held);
        if (alive > 0) {
            LOG.warn("mucscale store: {} writer lanes had not ended {} ms after the drain deadline; their {} messages"
                    + " and the {} still queued are in the spill files for the next start", alive, ABORT_GRACE_MS,
                    held, queued);
        }
    }

    /**
     * Stops taking records into the queue (later offers go to the overflow policy), drains the queue into the
     * database for at most the drain timeout, spills the rest to disk (fsynced) and stops the writer lanes, within
     * the drain timeout plus {@link #ABORT_GRACE_MS} however the database behaves (see the class comment).
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (writeAhead != null) {
            writeAhead.close();
        }
        long drainNanos = TimeUnit.MILLISECONDS.toNanos(config.drainTimeoutMs());
        long joinDeadline = System.nanoTime() + drainNanos;
        drainDeadlineNanos = clock.nanoTime() + drainNanos;
        running = false;
        if (anyLaneAlive()) {
            if (!joinLanes(joinDeadline)) {
                for (WriterLane lane : lanes) {
                    if (lane.thread.isAlive()) {
                        lane.connection.cut();
                    }
                }
                joinLanes(joinDeadline + TimeUnit.MILLISECONDS.toNanos(ABORT_GRACE_MS));
            }
            handOver();
        } else {
            drain(lanes[0]);
        }
        spiller.close();
    }

    private boolean anyLaneAlive() {
        for (WriterLane lane : lanes) {
            if (lane.thread.isAlive()) {
                return true;
            }
        }
        return false;
    }

    /** Waits for every lane to end, until {@code deadlineNanos} (System.nanoTime); true when all ended. */
    private boolean joinLanes(long deadlineNanos) {
        for (WriterLane lane : lanes) {
            LockSupport.unpark(lane.thread);
            long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            try {
                if (leftMs > 0) {
                    lane.thread.join(leftMs);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return !anyLaneAlive();
    }
}
