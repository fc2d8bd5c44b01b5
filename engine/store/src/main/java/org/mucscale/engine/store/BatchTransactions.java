package org.mucscale.engine.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes one batch of room log records in one transaction: through LOAD DATA when it is enabled and the batch loads
 * cleanly (every row inserted, no warning), else rolled back and written by multi-row INSERT. A failure caused by a
 * row's data splits the range in halves until the bad row is alone, parks it in {@link DeadLetters} and stores the
 * rest; a failure that is not one row's fault (database down, lock timeout, missing table) is handed back, and the
 * caller retries the whole batch, which the room log's key (room, time, stanza id) makes idempotent.
 *
 * <p>Threads: every writer lane calls it at once; it keeps no state of a batch. The LOAD DATA buffer and the
 * {@link LaneConnection} connections are leased through are the calling lane's own (so a stop can abort them).
 * {@code bulkLoadAvailable} is set false, for good and for every lane, by the first lane whose connection refuses
 * LOAD DATA (volatile, never set true again); the counters are atomics.
 */
final class BatchTransactions {
    private final RoomLogSql sql;
    private final DeadLetters deadLetters;
    private final StoreListener listener;
    private final WriterCounters counters;
    // False once a connection refused LOAD DATA (then INSERT for good, every lane); false when off from the start.
    private volatile boolean bulkLoadAvailable;
    private final AtomicLong bulkFallbacks = new AtomicLong();

    BatchTransactions(DatabaseType type, boolean bulkLoad, DeadLetters deadLetters, StoreListener listener,
                      WriterCounters counters) {
        this.sql = new RoomLogSql(type);
        this.bulkLoadAvailable = bulkLoad;
        this.deadLetters = deadLetters;
        this.listener = listener;
        this.counters = counters;
    }

    /** A LOAD DATA buffer for a new lane, or null when batches go through INSERT from the start. */
    MySqlBulkLoad newBulkLoad() {
        return bulkLoadAvailable ? new MySqlBulkLoad() : null;
    }

    /**
     * Writes records[0,n) over the lane's connections with its {@code bulk} buffer (null: INSERT). Returns null when
     * stored (bad rows parked), or the exception when the failure is not one row's fault.
     */
    SQLException write(LaneConnection lane, MySqlBulkLoad bulk, RoomLogRecord[] records, int n) {
        if (bulk == null || !bulkLoadAvailable) {
            return writeRange(lane, records, 0, n);
        }
        try (LaneConnection.Lease lease = lane.lease()) {
            Connection c = lease.connection();
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                MySqlBulkLoad.Outcome outcome = bulk.load(c, records, 0, n);
                if (outcome == MySqlBulkLoad.Outcome.LOADED) {
                    ReviewQueue.insert(c, sql.type(), records, 0, n);
                    c.commit();
                    return null;
                }
                rollbackQuietly(c);
                if (outcome == MySqlBulkLoad.Outcome.UNAVAILABLE) {
                    bulkLoadAvailable = false;
                } else {
                    bulkFallbacks.incrementAndGet();
                }
            } catch (SQLException e) {
                rollbackQuietly(c);
                if (!RoomLogSql.isRowLevel(e)) {
                    return e;
                }
                bulkFallbacks.incrementAndGet();
            } finally {
                restoreAutoCommit(c, autoCommit);
            }
        } catch (SQLException e) {
            return e;
        }
        return writeRange(lane, records, 0, n);
    }

    /** Batches that LOAD DATA handed back to the INSERT path (a warning, a duplicate or a refused row). */
    long bulkLoadFallbacks() {
        return bulkFallbacks.get();
    }

    /** True while batches go through LOAD DATA. */
    boolean bulkLoadActive() {
        return bulkLoadAvailable;
    }

    /** Writes records[from,to) in one transaction, splitting it around rows the database refuses. */
    private SQLException writeRange(LaneConnection lane, RoomLogRecord[] records, int from, int to) {
        SQLException failure;
        try (LaneConnection.Lease lease = lane.lease()) {
            Connection c = lease.connection();
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                sql.insert(c, records, from, to);
                ReviewQueue.insert(c, sql.type(), records, from, to);
                c.commit();
                return null;
            } catch (SQLException e) {
                rollbackQuietly(c);
                failure = e;
            } finally {
                restoreAutoCommit(c, autoCommit);
            }
        } catch (SQLException e) {
            return e;
        }
        if (!RoomLogSql.isRowLevel(failure)) {
            return failure;
        }
        if (to - from == 1) {
            counters.deadLettered.incrementAndGet();
            String reason = RoomLogSql.describe(failure);
            listener.deadLettered(records[from].stanzaId(), reason);
            deadLetters.park(records[from], reason);
            return null;
        }
        int mid = (from + to) >>> 1;
        SQLException left = writeRange(lane, records, from, mid);
        if (left != null) {
            return left;
        }
        return writeRange(lane, records, mid, to);
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is likely broken; the pool discards it
        }
    }

    private static void restoreAutoCommit(Connection c, boolean autoCommit) {
        try {
            c.setAutoCommit(autoCommit);
        } catch (SQLException ignored) {
            // broken connection
        }
    }
}
