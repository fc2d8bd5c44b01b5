package org.mucscale.engine.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.mucscale.engine.port.Clock;
import org.mucscale.testkit.ProcessRunner;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The message path's cost: {@link RoomLogWriter#offer} (record allocation included) against the bare record
 * allocation and a JDK {@link ArrayBlockingQueue}, each drained by a consumer thread as the writer would. Run with
 * {@code -prof gc}: offer's bytes/op must equal the allocation baseline's (nothing allocated beyond the record).
 * Started by {@link StoreBenchmarks}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class EnqueueBenchmark {
    private static final String ROOM = "lobby@conference.example.org";
    private static final String NICK = "alice";
    private static final String JID = "alice@example.org/phone";
    private static final String BODY = "hello everyone, this is a typical chat message of some sixty chars";

    private Path spillDir;
    private RoomLogWriter writer;
    private ArrayBlockingQueue<RoomLogRecord> jdkQueue;
    private volatile boolean draining;
    private Thread writerDrainer;
    private Thread jdkDrainer;
    private long timeMillis;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        spillDir = Files.createTempDirectory("mucscale-bench-spill-");
        // Not started: a stand-in consumer releases the queue so only the enqueue side is measured.
        writer = new RoomLogWriter(null, DatabaseType.HSQLDB,
                StoreConfig.defaults(spillDir).withQueue(1 << 22, OverflowPolicy.REJECT_WITH_ERROR), Clock.SYSTEM,
                StoreListener.NONE);
        jdkQueue = new ArrayBlockingQueue<>(1 << 22);
        draining = true;
        RecordQueue q = writer.queueForBenchmark();
        writerDrainer = new Thread(() -> {
            // Like the writer: take what is there in large batches, then sleep a little (the writer polls every few
            // milliseconds), so producer and consumer do not fight over the same cache lines on every record.
            RoomLogRecord[] buf = new RoomLogRecord[1 << 20];
            while (draining) {
                int n = q.peekInto(buf, buf.length);
                q.release(n);
                if (n < buf.length) {
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
                }
            }
        }, "bench-drain-writer");
        jdkDrainer = new Thread(() -> {
            java.util.ArrayList<RoomLogRecord> buf = new java.util.ArrayList<>(1 << 20);
            while (draining) {
                if (jdkQueue.drainTo(buf, 1 << 20) < (1 << 20)) {
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
                }
                buf.clear();
            }
        }, "bench-drain-jdk");
        writerDrainer.setDaemon(true);
        jdkDrainer.setDaemon(true);
        writerDrainer.start();
        jdkDrainer.start();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        draining = false;
        writerDrainer.join();
        jdkDrainer.join();
        StoreStats stats = writer.stats();
        if (stats.rejected() > 0 || stats.spilled() > 0) {
            throw new IllegalStateException("queue overflowed during the benchmark, numbers invalid: " + stats);
        }
        ProcessRunner.deleteTree(spillDir);
    }

    private RoomLogRecord newRecord() {
        return new RoomLogRecord("a7f3c2e1-0b9d", ROOM, ++timeMillis, NICK, JID, BODY, null, null, null);
    }

    /** Baseline: allocating the record the room hands over. */
    @Benchmark
    public RoomLogRecord recordAllocationOnly() {
        return newRecord();
    }

    /** The store's enqueue, record allocation included. */
    @Benchmark
    public OfferResult writerOffer() {
        return writer.offer(newRecord());
    }

    /** For comparison: the JDK's bounded queue (a lock per offer). */
    @Benchmark
    public boolean arrayBlockingQueueOffer() {
        return jdkQueue.offer(newRecord());
    }
}
