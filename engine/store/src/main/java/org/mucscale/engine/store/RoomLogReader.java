package org.mucscale.engine.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * History on join and room log retrieval: rows from the database merged with records the writer has not committed
 * yet, so a message is visible the moment the room accepted it. The writer is read first (queue, then batch in
 * flight) and the database last: a record leaves the writer only after its commit, so none falls between.
 * Records spilled to disk under overflow are not visible until replayed. Thread-safe; uses pooled connections.
 */
public final class RoomLogReader {
    private static final String SELECT = "SELECT " + RoomLogSql.COLUMNS + " FROM mucscaleRoomLog";
    /**
     * The table's key order (roomJid, logTime, stanzaId), for rows and pending records alike, so the two interleave
     * as they will once the pending ones are stored: same-millisecond messages by stanzaId, which is send order for
     * ids of one service run. String order is the binary order of utf8mb4_bin, PostgreSQL's COLLATE "C" and HSQLDB
     * for every character outside the surrogate range.
     */
    static final Comparator<RoomLogRecord> BY_TIME =
            Comparator.comparingLong(RoomLogRecord::logTimeMillis).thenComparing(RoomLogRecord::stanzaId);

    private final DataSource dataSource;
    private final DatabaseType type;
    private final RoomLogWriter writer;

    /** @param writer the live writer whose queued records are merged in, or null to read the database only */
    public RoomLogReader(DataSource dataSource, DatabaseType type, RoomLogWriter writer) {
        this.dataSource = dataSource;
        this.type = type;
        this.writer = writer;
    }

    /** The newest {@code maxMessages} messages of a room at or after {@code sinceMillis}, oldest first. */
    public List<RoomLogRecord> history(String roomJid, int maxMessages, long sinceMillis) throws SQLException {
        if (maxMessages <= 0) {
            return List.of();
        }
        List<RoomLogRecord> pending = pending(roomJid);
        List<RoomLogRecord> stored = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(limit(SELECT
                     + " WHERE roomJid = ? AND logTime >= ? ORDER BY logTime DESC, stanzaId DESC", maxMessages))) {
            ps.setString(1, roomJid);
            ps.setLong(2, sinceMillis);
            read(ps, stored);
        }
        // newest first from the query (to take the last N, a backward scan of the key); oldest first for the merge
        java.util.Collections.reverse(stored);
        List<RoomLogRecord> merged = merge(stored, pending, sinceMillis, Long.MAX_VALUE);
        return merged.size() <= maxMessages ? merged : merged.subList(merged.size() - maxMessages, merged.size());
    }

    /** Messages of a room with {@code fromMillis <= logTime < toMillis}, oldest first, at most {@code limit}. */
    public List<RoomLogRecord> between(String roomJid, long fromMillis, long toMillis, int limit) throws SQLException {
        List<RoomLogRecord> pending = pending(roomJid);
        List<RoomLogRecord> stored = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(limit(SELECT
                     + " WHERE roomJid = ? AND logTime >= ? AND logTime < ? ORDER BY logTime, stanzaId", limit))) {
            ps.setString(1, roomJid);
            ps.setLong(2, fromMillis);
            ps.setLong(3, toMillis);
            read(ps, stored);
        }
        List<RoomLogRecord> merged = merge(stored, pending, fromMillis, toMillis);
        return merged.size() <= limit ? merged : merged.subList(0, limit);
    }

    /** Rows stored for a room (database only). */
    public long count(String roomJid) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM mucscaleRoomLog WHERE roomJid = ?")) {
            ps.setString(1, roomJid);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private List<RoomLogRecord> pending(String roomJid) {
        List<RoomLogRecord> pending = new ArrayList<>();
        if (writer != null) {
            writer.pendingFor(roomJid, pending);
        }
        return pending;
    }

    private static List<RoomLogRecord> merge(List<RoomLogRecord> stored, List<RoomLogRecord> pending, long from,
                                             long to) {
        Map<String, RoomLogRecord> byId = new LinkedHashMap<>();
        for (RoomLogRecord r : stored) {
            byId.put(r.stanzaId(), r);
        }
        for (RoomLogRecord r : pending) {
            if (r.logTimeMillis() >= from && r.logTimeMillis() < to) {
                byId.putIfAbsent(r.stanzaId(), r);
            }
        }
        List<RoomLogRecord> out = new ArrayList<>(byId.values());
        out.sort(BY_TIME);
        return out;
    }

    private String limit(String sql, int rows) {
        // All four databases accept LIMIT; HSQLDB needs it after ORDER BY like the others.
        return sql + " LIMIT " + Math.max(1, rows);
    }

    private static void read(PreparedStatement ps, List<RoomLogRecord> out) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new RoomLogRecord(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4),
                        rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9)));
            }
        }
    }

    DatabaseType type() {
        return type;
    }
}
