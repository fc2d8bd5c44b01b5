package org.mucscale.engine.store;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optional write-ahead file ({@link DurabilityMode#WRITE_AHEAD_LOG}): each record is appended and fsynced before
 * its future completes, so the caller broadcasts only what survives a kill -9. Group commit: callers enqueue encoded
 * frames; one flusher thread writes everything waiting, fsyncs once, then hands each record to the writer (queue or
 * spill) and completes its future. Segments ({@code wal-<n>.log}) rotate by size; a sealed segment is deleted when
 * every record in it is committed, dead-lettered or fsynced into a spill file ({@link Segment#release}).
 *
 * <p>Concurrency: any thread calls {@link #append}; only the flusher thread touches the file channel and the
 * current segment; {@link Segment#release} runs on the store's writer lanes (an atomic count).
 */
final class WriteAheadLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WriteAheadLog.class);
    static final long SEGMENT_BYTES = 16L * 1024 * 1024;
    /** A segment whose records are all safe is retired (deleted) once it holds at least this much. */
    static final long RETIRE_IDLE_SEGMENT_BYTES = 1024L * 1024;

    /** One file; {@code pending} counts records not yet safely elsewhere. */
    static final class Segment {
        final Path file;
        final AtomicInteger pending = new AtomicInteger();
        volatile boolean sealed;

        Segment(Path file) {
            this.file = file;
        }

        void release() {
            if (pending.decrementAndGet() == 0 && sealed) {
                deleteQuietly();
            }
        }

        void seal() {
            sealed = true;
            if (pending.get() == 0) {
                deleteQuietly();
            }
        }

        private void deleteQuietly() {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                LOG.warn("mucscale store: could not delete write-ahead segment {}: {}", file, e.toString());
            }
        }
    }

    /**
     * The record is safely elsewhere (committed, or spilled and fsynced): its segment no longer needs to keep it. At
     * most once a record; a record that came in by another way than the write-ahead log has no segment.
     */
    static void release(RoomLogRecord r) {
        Segment s = r.walSegment;
        if (s != null) {
            r.walSegment = null;
            s.release();
        }
    }

    private record Pending(byte[] frame, RoomLogRecord record, CompletableFuture<OfferResult> done) {
    }

    private final Path directory;
    private final Function<RoomLogRecord, OfferResult> sink;
    private final Runnable afterGroup;
    private final ConcurrentLinkedQueue<Pending> waiting = new ConcurrentLinkedQueue<>();
    private final Thread flusher;
    private volatile boolean running = true;
    private volatile CountDownLatch holdForTest;
    private long nextSegmentNumber;
    private Segment current;
    private FileChannel channel;
    private long currentBytes;

    /**
     * @param sink       where a record goes once fsynced (the writer's durable offer); its result completes the future
     * @param afterGroup runs after each group was handed to the sink (the writer fsyncs what the group spilled)
     */
    WriteAheadLog(Path directory, long firstSegmentNumber, Function<RoomLogRecord, OfferResult> sink,
                  Runnable afterGroup) {
        this.directory = directory;
        this.sink = sink;
        this.afterGroup = afterGroup;
        this.nextSegmentNumber = firstSegmentNumber;
        this.flusher = new Thread(this::flushLoop, "mucscale-store-wal");
        this.flusher.setDaemon(true);
    }

    void start() {
        flusher.start();
    }

    /**
     * Reads every segment a previous run left (intact frames only; a torn tail was never acknowledged) and returns
     * the records, each bound to a sealed segment that is deleted once all of them are safe. Call before start().
     */
    static List<RoomLogRecord> recover(Path directory) throws IOException {
        List<Path> files = list(directory);
        List<RoomLogRecord> out = new ArrayList<>();
        for (Path f : files) {
            List<RoomLogRecord> records = SpillFiles.readAll(f);
            Segment s = new Segment(f);
            s.pending.set(records.size());
            for (RoomLogRecord r : records) {
                r.walSegment = s;
            }
            out.addAll(records);
            s.seal();
        }
        return out;
    }

    static long nextSegmentNumber(Path directory) throws IOException {
        long max = 0;
        for (Path f : list(directory)) {
            String name = f.getFileName().toString();
            max = Math.max(max, Long.parseLong(name.substring(4, name.length() - 4)));
        }
        return max + 1;
    }

    private static List<Path> list(Path directory) throws IOException {
        List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return files;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(directory, "wal-*.log")) {
            for (Path p : ds) {
                files.add(p);
            }
        }
        files.sort(null);
        return files;
    }

    /** Queues a record for the next group commit; the future completes after fsync and hand-off to the writer. */
    CompletableFuture<OfferResult> append(RoomLogRecord r) {
        CompletableFuture<OfferResult> done = new CompletableFuture<>();
        if (!running) {
            done.completeExceptionally(new IllegalStateException("mucscale store write-ahead log is closed"));
            return done;
        }
        waiting.add(new Pending(RecordCodec.frame(r), r, done));
        LockSupport.unpark(flusher);
        return done;
    }

    private void flushLoop() {
        List<Pending> group = new ArrayList<>();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
        while (running || !waiting.isEmpty()) {
            Pending p;
            while ((p = waiting.poll()) != null) {
                if (!p.done.isCancelled()) { // withdrawn by a caller that stopped waiting: never written
                    group.add(p);
                }
            }
            if (group.isEmpty()) {
                retireIdleSegment();
                LockSupport.parkNanos(1_000_000L);
                continue;
            }
            CountDownLatch hold = holdForTest;
            if (hold != null) {
                awaitQuietly(hold);
            }
            try {
                if (channel == null || currentBytes > SEGMENT_BYTES) {
                    rotate();
                }
                bytes.reset();
                for (Pending g : group) {
                    bytes.write(g.frame, 0, g.frame.length);
                    g.record.walSegment = current;
                }
                current.pending.addAndGet(group.size());
                ByteBuffer buf = ByteBuffer.wrap(bytes.toByteArray());
                while (buf.hasRemaining()) {
                    channel.write(buf);
                }
                channel.force(false);
                currentBytes += bytes.size();
                OfferResult[] results = new OfferResult[group.size()];
                for (int i = 0; i < results.length; i++) {
                    results[i] = sink.apply(group.get(i).record);
                }
                afterGroup.run();
                for (int i = 0; i < results.length; i++) {
                    group.get(i).done.complete(results[i]);
                }
            } catch (IOException | RuntimeException e) {
                LOG.error("mucscale store: write-ahead append failed; {} messages are refused: {}", group.size(),
                        e.toString());
                for (Pending g : group) {
                    g.done.completeExceptionally(e);
                }
            }
            group.clear();
        }
    }

    /**
     * Tests only: the flusher waits for {@code latch} before writing its next group, as it would on a disk that does
     * not answer (null: no wait).
     */
    void holdForTest(CountDownLatch latch) {
        holdForTest = latch;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Deletes the open segment early when every record in it is already safe, so restarts replay little. */
    private void retireIdleSegment() {
        if (channel != null && currentBytes >= RETIRE_IDLE_SEGMENT_BYTES && current.pending.get() == 0) {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.warn("mucscale store: closing write-ahead segment failed: {}", e.toString());
            }
            channel = null;
            current.seal();
        }
    }

    private void rotate() throws IOException {
        if (channel != null) {
            channel.close();
            channel = null;
            current.seal();
        }
        Files.createDirectories(directory);
        Path file = directory.resolve(String.format("wal-%019d.log", nextSegmentNumber++));
        channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        current = new Segment(file);
        currentBytes = 0;
    }

    /** Stops taking appends, flushes what waits, closes and seals the current segment. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(flusher);
        try {
            flusher.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (channel != null) {
                channel.close();
                current.seal();
            }
        } catch (IOException e) {
            LOG.warn("mucscale store: closing write-ahead segment failed: {}", e.toString());
        }
    }
}
