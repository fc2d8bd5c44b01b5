package org.mucscale.engine.store;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Local append-only spill files ({@code spill-<start>-<n>.log}) for records the queue could not hold, and for what a
 * shutdown could not drain. Each append reaches the OS before returning (a kill -9 keeps it; {@link #force()} makes
 * it survive power loss too). The writer replays sealed files into the database and deletes each once committed.
 *
 * <p>Concurrency: producers append on the overflow path (rare; a monitor here is acceptable), writer lanes spill
 * on shutdown, lane 1 seals, replays and deletes. All file state is guarded by {@code this}; an append holds it only
 * for its write to the OS. fsyncs happen outside it, one at a time under {@code forceLock}, so a room thread that
 * spills never waits for the disk (issue 18): a full file is handed to the next {@link #force()} instead of being
 * fsynced by the producer that filled it, and {@link #force()} returns only when everything appended before it is
 * on disk.
 */
final class SpillFiles {
    static final int MAX_RECORDS_PER_FILE = 50_000;
    private final Path directory;
    private final String runPrefix;
    private final AtomicLong pendingRecords = new AtomicLong();
    private FileChannel current;
    /** Files closed for appends and not yet fsynced and closed (guarded by this). */
    private final List<FileChannel> unforced = new ArrayList<>();
    private final Object forceLock = new Object();
    private Path currentPath;
    private long currentRecords;
    private int fileCounter;

    SpillFiles(Path directory) throws IOException {
        this.directory = Files.createDirectories(directory);
        this.runPrefix = String.format("spill-%019d-", System.currentTimeMillis());
    }

    /** Appends one record; the bytes are handed to the OS before returning. */
    synchronized void append(RoomLogRecord r) throws IOException {
        byte[] frame = RecordCodec.frame(r);
        if (current == null) {
            currentPath = directory.resolve(runPrefix + String.format("%06d.log", fileCounter++));
            current = FileChannel.open(currentPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND);
            currentRecords = 0;
        }
        ByteBuffer buf = ByteBuffer.wrap(frame);
        while (buf.hasRemaining()) {
            current.write(buf);
        }
        currentRecords++;
        pendingRecords.incrementAndGet();
        if (currentRecords >= MAX_RECORDS_PER_FILE) {
            // Bounded files keep a replay's memory bounded: the writer reads one file at a time. The producer does
            // not fsync it: the next force() does.
            unforced.add(current);
            current = null;
        }
    }

    /** fsyncs every spill file appended to before this call (closing the full ones), outside the append monitor. */
    void force() throws IOException {
        synchronized (forceLock) {
            List<FileChannel> full;
            FileChannel open;
            synchronized (this) {
                full = new ArrayList<>(unforced);
                unforced.clear();
                open = current;
            }
            IOException failure = null;
            for (FileChannel ch : full) {
                try {
                    ch.force(false);
                    ch.close();
                } catch (IOException e) {
                    failure = e;
                }
            }
            if (open != null) {
                // only a force() closes a channel, and forces are serial: this one is still open
                open.force(false);
            }
            if (failure != null) {
                throw failure;
            }
        }
    }

    /** Closes the open file (later appends start a new one) and lists every spill file, oldest first. */
    List<Path> sealAndList() throws IOException {
        seal();
        force();
        List<Path> files = new ArrayList<>();
        synchronized (this) {
            // a file opened by an append since the seal is still being written: not listed
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(directory, "spill-*.log")) {
                for (Path p : ds) {
                    if (current == null || !p.equals(currentPath)) {
                        files.add(p);
                    }
                }
            }
        }
        files.sort(null);
        return files;
    }

    /** True when records were appended since the last seal, or files from an earlier run may exist. */
    boolean hasPending() {
        return pendingRecords.get() > 0;
    }

    /** Records spilled and not yet replayed (estimate across restarts: counts files found at start). */
    long pendingRecords() {
        return pendingRecords.get();
    }

    /** At start: counts the records of spill files left by an earlier run so {@link #hasPending} sees them. */
    synchronized long countExisting() throws IOException {
        long n = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(directory, "spill-*.log")) {
            for (Path p : ds) {
                if (!p.getFileName().toString().startsWith(runPrefix)) {
                    n += readAll(p).size();
                }
            }
        }
        pendingRecords.addAndGet(n);
        return n;
    }

    /** Reads every intact record of a file (a torn tail is ignored). */
    static List<RoomLogRecord> readAll(Path file) throws IOException {
        List<RoomLogRecord> out = new ArrayList<>();
        try (InputStream raw = Files.newInputStream(file);
             DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 16))) {
            RoomLogRecord r;
            while ((r = RecordCodec.readFrame(in)) != null) {
                out.add(r);
            }
        }
        return out;
    }

    /** A replayed file's records are committed: delete it. */
    void delete(Path file, int records) throws IOException {
        Files.deleteIfExists(file);
        pendingRecords.addAndGet(-records);
    }

    void close() throws IOException {
        seal();
        force();
    }

    private synchronized void seal() {
        if (current != null) {
            unforced.add(current);
            current = null;
        }
    }

    /** For dead letters in files: the frame bytes. */
    static byte[] frameOf(RoomLogRecord r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RecordCodec.writeFrame(r, out);
        return out.toByteArray();
    }
}
