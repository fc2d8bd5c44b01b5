package org.mucscale.engine.store;

import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts room log records that cannot go to the database now into the {@link SpillFiles}, for the writer to replay
 * later: a full queue's overflow (per {@link OverflowPolicy}), a batch not committed by the shutdown's deadline, and
 * what is left at close. Counts what it spilled or refused and logs what it could not spill. A record's write-ahead
 * segment is released only after its spill was fsynced, so a crash in between replays it from the write-ahead log.
 *
 * <p>Threads: no mutable state of its own (the spill files guard theirs, the counters are atomics); room threads call
 * {@link #overflow}, the writer lanes and the closing thread the rest, the write-ahead flusher {@link #append}.
 */
final class RecordSpiller {
    private static final Logger LOG = LoggerFactory.getLogger(RecordSpiller.class);

    private final SpillFiles spill;
    private final StoreConfig config;
    private final StoreListener listener;
    private final WriterCounters counters;

    RecordSpiller(SpillFiles spill, StoreConfig config, StoreListener listener, WriterCounters counters) {
        this.spill = spill;
        this.config = config;
        this.listener = listener;
        this.counters = counters;
    }

    /** A record the queue did not take: SPILLED, or REJECTED by the policy or when the spill file is not writable. */
    OfferResult overflow(RoomLogRecord record) {
        if (config.overflowPolicy() == OverflowPolicy.SPILL_TO_DISK) {
            try {
                append(record);
                return OfferResult.SPILLED;
            } catch (IOException e) {
                LOG.error("mucscale store: queue full and spill file not writable ({}); message {} refused",
                        e.toString(), record.stanzaId());
            }
        }
        refused();
        return OfferResult.REJECTED;
    }

    /** Counts one record refused to its sender. */
    void refused() {
        counters.rejected.incrementAndGet();
        listener.rejected();
    }

    /** Appends and counts one record, not yet fsynced (see {@link #force}); its write-ahead segment is kept. */
    void append(RoomLogRecord record) throws IOException {
        spill.append(record);
        counters.spilled.incrementAndGet();
        listener.spilled(1);
    }

    /** Appends one record without counting it (shutdown counts what it spilled in one go); false when it failed. */
    boolean appendUncounted(RoomLogRecord r) {
        try {
            spill.append(r);
            return true;
        } catch (IOException e) {
            LOG.error("mucscale store: could not spill message {} of room {} on shutdown: {}", r.stanzaId(),
                    r.roomJid(), e.toString());
            return false;
        }
    }

    /** Counts records spilled by {@link #appendUncounted}. */
    void countSpilled(int n) {
        counters.spilled.addAndGet(n);
        listener.spilled(n);
    }

    /** Everything appended so far reaches the disk. */
    void force() throws IOException {
        spill.force();
    }

    /** Spills records[0,n), fsyncs them and then releases their write-ahead segments. */
    void spillAll(RoomLogRecord[] records, int n) {
        if (n == 0) {
            return;
        }
        int ok = 0;
        for (int i = 0; i < n; i++) {
            if (appendUncounted(records[i])) {
                ok++;
            }
        }
        try {
            spill.force();
            for (int i = 0; i < n; i++) {
                WriteAheadLog.release(records[i]);
            }
        } catch (IOException e) {
            LOG.error("mucscale store: could not fsync spill file: {}", e.toString());
        }
        countSpilled(ok);
        if (ok > 0) {
            LOG.info("mucscale store: spilled {} messages to {} for replay on next start", ok, config.spillDirectory());
        }
    }

    /** At close, once no lane writes any more: fsyncs and closes the spill file. */
    void close() {
        try {
            spill.force();
            spill.close();
        } catch (IOException e) {
            LOG.error("mucscale store: could not fsync spill file on shutdown: {}", e.toString());
        }
    }
}
