package org.mucscale.engine.store;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * One writer lane of {@link RoomLogWriter}: a thread with its own batch array (the batch in flight is
 * batch[0, inFlightCount), published before the queue releases those slots), its own LOAD DATA buffer and its own
 * {@link LaneConnection}. Only its thread writes the batch and the count; any thread may read the batch in flight
 * (reads of the room log see it, and the stop spills what a lane still holds after the grace).
 */
final class WriterLane {
    final int number;
    final RoomLogRecord[] batch;
    final Thread thread;
    final MySqlBulkLoad bulkLoad;
    final LaneConnection connection;
    volatile int inFlightCount;

    /** Lane {@code index + 1}, whose thread (not started) runs {@code body}; {@code bulkLoad} null: INSERT only. */
    WriterLane(int index, int batchSize, MySqlBulkLoad bulkLoad, DataSource dataSource, Consumer<WriterLane> body) {
        this.number = index + 1;
        this.batch = new RoomLogRecord[batchSize];
        String name = index == 0 ? "mucscale-store-writer" : "mucscale-store-writer-" + number;
        this.thread = new Thread(() -> body.accept(this), name);
        this.thread.setDaemon(true);
        this.bulkLoad = bulkLoad;
        this.connection = new LaneConnection(dataSource, name);
    }

    /** The batch of {@code n} is done (stored or spilled): unpublished first, then its references dropped. */
    void finishBatch(int n) {
        inFlightCount = 0;
        Arrays.fill(batch, 0, n, null);
    }

    /** Any thread: adds the records of {@code roomJid} in the batch in flight. */
    void collect(String roomJid, List<RoomLogRecord> out) {
        int n = inFlightCount;
        for (int i = 0; i < n; i++) {
            RoomLogRecord r = batch[i];
            if (r != null && r.roomJid().equals(roomJid)) {
                out.add(r);
            }
        }
    }

    /** Any thread: whether the batch in flight holds this message as written (not as its tombstone). */
    boolean holdsWithText(String roomJid, String stanzaId) {
        int n = inFlightCount;
        for (int i = 0; i < n; i++) {
            RoomLogRecord r = batch[i];
            if (r != null && r.stanzaId().equals(stanzaId) && r.roomJid().equals(roomJid)
                    && !RoomLogRetractions.RETRACTED.equals(r.filterAction())) {
                return true;
            }
        }
        return false;
    }

    /** The stop's take-over: appends the batch in flight to the spill file (not fsynced, not counted); how many. */
    int spillHeld(RecordSpiller spiller) {
        int held = 0;
        int n = inFlightCount;
        for (int i = 0; i < n; i++) {
            RoomLogRecord r = batch[i];
            if (r != null && spiller.appendUncounted(r)) {
                held++;
            }
        }
        return held;
    }
}
