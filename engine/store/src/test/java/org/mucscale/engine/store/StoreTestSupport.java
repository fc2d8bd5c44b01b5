package org.mucscale.engine.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/** Helpers shared by the store tests. */
final class StoreTestSupport {
    private StoreTestSupport() {
    }

    static RoomLogRecord record(String room, int n) {
        return RoomLogRecord.message("id-" + room + "-" + n, room, 1_700_000_000_000L + n, "nick" + (n % 7),
                "user" + (n % 7) + "@example.org/res", "message number " + n);
    }

    /** Rows and distinct stanza ids in the room log. */
    static long[] counts(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*), COUNT(DISTINCT stanzaId) FROM mucscaleRoomLog")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    static long deadLetterCount(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM mucscaleDeadLetter")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static Set<String> storedIds(DataSource ds) throws SQLException {
        Set<String> ids = new HashSet<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT stanzaId FROM mucscaleRoomLog")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        return ids;
    }

    static String body(DataSource ds, String stanzaId) throws SQLException {
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT body FROM mucscaleRoomLog WHERE stanzaId = ?")) {
            ps.setString(1, stanzaId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    static void waitFor(String what, Duration timeout, Check check) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                if (check.ok()) {
                    return;
                }
            } catch (SQLException notYet) {
                // database may be coming back
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    interface Check {
        boolean ok() throws Exception;
    }

    /** Counts every listener callback. */
    static final class CountingListener implements StoreListener {
        final AtomicLong enqueued = new AtomicLong();
        final AtomicLong spilled = new AtomicLong();
        final AtomicLong rejected = new AtomicLong();
        final AtomicLong committedRows = new AtomicLong();
        final AtomicLong batches = new AtomicLong();
        final AtomicLong latencies = new AtomicLong();
        final AtomicLong retries = new AtomicLong();
        final AtomicLong deadLettered = new AtomicLong();
        final AtomicLong replayed = new AtomicLong();
        final AtomicLong depthSamples = new AtomicLong();

        @Override
        public void queueDepth(int records) {
            depthSamples.incrementAndGet();
        }

        @Override
        public void enqueued() {
            enqueued.incrementAndGet();
        }

        @Override
        public void spilled(int records) {
            spilled.addAndGet(records);
        }

        @Override
        public void rejected() {
            rejected.incrementAndGet();
        }

        @Override
        public void batchCommitted(int rows, long batchNanos) {
            committedRows.addAndGet(rows);
            batches.incrementAndGet();
        }

        @Override
        public void committedLatency(long enqueueToCommitNanos) {
            latencies.incrementAndGet();
        }

        @Override
        public void retried(String reason, long backoffMs) {
            retries.incrementAndGet();
        }

        @Override
        public void deadLettered(String stanzaId, String reason) {
            deadLettered.incrementAndGet();
        }

        @Override
        public void replayed(int records) {
            replayed.addAndGet(records);
        }
    }
}
