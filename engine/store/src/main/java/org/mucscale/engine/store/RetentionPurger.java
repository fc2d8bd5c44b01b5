package org.mucscale.engine.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.mucscale.engine.port.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention for the room log: deletes rows older than the maximum age, and per room all but the newest N, in
 * DELETEs of at most {@code purgeBatchSize} rows each (one short transaction per DELETE, so chat writes are never
 * blocked for long). Runs every purge interval on its own daemon thread when a limit is set; {@link #purgeNow} runs
 * it once on the caller's thread.
 */
public final class RetentionPurger implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RetentionPurger.class);
    private final DataSource dataSource;
    private final DatabaseType type;
    private final StoreConfig config;
    private final Clock clock;
    private ScheduledExecutorService scheduler;

    public RetentionPurger(DataSource dataSource, DatabaseType type, StoreConfig config, Clock clock) {
        this.dataSource = dataSource;
        this.type = type;
        this.config = config;
        this.clock = clock;
    }

    /** Schedules the purge when a retention limit is set; otherwise does nothing. */
    public synchronized void start() {
        if (scheduler != null || (config.retentionMaxAgeMs() == 0 && config.retentionMaxMessagesPerRoom() == 0)) {
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mucscale-store-purge");
            t.setDaemon(true);
            return t;
        });
        scheduler.scheduleWithFixedDelay(() -> {
            try {
                purgeNow();
            } catch (SQLException | RuntimeException e) {
                LOG.warn("mucscale store: retention purge failed (next try in {} ms): {}", config.purgeIntervalMs(),
                        e.toString());
            }
        }, config.purgeIntervalMs(), config.purgeIntervalMs(), TimeUnit.MILLISECONDS);
    }

    /** Runs both limits once; returns the rows deleted. */
    public long purgeNow() throws SQLException {
        long deleted = 0;
        if (config.retentionMaxAgeMs() > 0) {
            deleted += purgeOlderThan(clock.currentTimeMillis() - config.retentionMaxAgeMs());
        }
        if (config.retentionMaxMessagesPerRoom() > 0) {
            deleted += purgeBeyondCount(config.retentionMaxMessagesPerRoom());
        }
        if (deleted > 0) {
            LOG.info("mucscale store: retention purge deleted {} room log rows", deleted);
        }
        return deleted;
    }

    /**
     * Deletes rows with logTime before the cutoff, room by room (the key leads with roomJid, so each batch is a range
     * of one room's key, never a scan of the table), batch by batch.
     */
    public long purgeOlderThan(long cutoffMillis) throws SQLException {
        long total = 0;
        for (String room : rooms("SELECT DISTINCT roomJid FROM mucscaleRoomLog", -1)) {
            total += purgeRoomBefore(room, cutoffMillis);
        }
        return total;
    }

    /** Keeps the newest {@code keep} messages of every room (ties at the boundary time are kept). */
    public long purgeBeyondCount(int keep) throws SQLException {
        long total = 0;
        for (String room : rooms("SELECT roomJid FROM mucscaleRoomLog GROUP BY roomJid HAVING COUNT(*) > ?", keep)) {
            Long cutoff = null;
            try (Connection c = dataSource.getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT logTime FROM mucscaleRoomLog WHERE roomJid = ?"
                         + " ORDER BY logTime DESC LIMIT 1 OFFSET ?")) {
                ps.setString(1, room);
                ps.setInt(2, keep - 1);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        cutoff = rs.getLong(1);
                    }
                }
            }
            if (cutoff != null) {
                total += purgeRoomBefore(room, cutoff);
            }
        }
        return total;
    }

    private List<String> rooms(String sql, int parameter) throws SQLException {
        List<String> rooms = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            if (parameter >= 0) {
                ps.setInt(1, parameter);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rooms.add(rs.getString(1));
                }
            }
        }
        return rooms;
    }

    /**
     * One room's rows before the cutoff, at most purgeBatchSize per DELETE. The table has no row id column: MySQL
     * and MariaDB take DELETE ... LIMIT; PostgreSQL deletes by physical row address (ctid, a TID scan); HSQLDB by
     * row value over the primary key.
     */
    private long purgeRoomBefore(String room, long cutoffMillis) throws SQLException {
        String batch = "SELECT %s FROM mucscaleRoomLog WHERE roomJid = ? AND logTime < ? LIMIT " + config.purgeBatchSize();
        String sql = switch (type) {
            case MYSQL, MARIADB -> "DELETE FROM mucscaleRoomLog WHERE roomJid = ? AND logTime < ? LIMIT "
                    + config.purgeBatchSize();
            case POSTGRESQL -> "DELETE FROM mucscaleRoomLog WHERE ctid = ANY(ARRAY(" + batch.formatted("ctid") + "))";
            case HSQLDB -> "DELETE FROM mucscaleRoomLog WHERE (roomJid, logTime, stanzaId) IN ("
                    + batch.formatted("roomJid, logTime, stanzaId") + ")";
        };
        long total = 0;
        while (true) {
            int n;
            try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
                c.setAutoCommit(true);
                ps.setString(1, room);
                ps.setLong(2, cutoffMillis);
                n = ps.executeUpdate();
            }
            total += n;
            if (n < config.purgeBatchSize()) {
                return total;
            }
        }
    }

    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }
}
