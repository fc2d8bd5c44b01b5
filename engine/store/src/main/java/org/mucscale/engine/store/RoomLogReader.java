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

    // ------------------------------------------------------------------------------------------- archive (XEP-0313)

    /**
     * One page of a room's archive: keyset paging on the table's key (roomJid, logTime, stanzaId), so every query
     * is a range of the primary key within the room, whatever the page's depth; a stanza id (RSM after/before,
     * after-id/before-id, ids) is first resolved to its place in that order through the index
     * {@code mucscaleRoomLog_room_id (roomJid, stanzaId)}. Queued records are merged in as in {@link #history}.
     * The count, when asked, is a COUNT over the same key range plus the queued records not yet stored, exact (see
     * {@link #count}).
     *
     * @throws ArchiveIdNotFoundException when a named id is not a message of this room
     */
    public ArchivePage archive(String roomJid, ArchiveRequest q) throws SQLException, ArchiveIdNotFoundException {
        List<RoomLogRecord> pending = pending(roomJid);
        try (Connection c = dataSource.getConnection()) {
            RoomLogRecord lower = later(place(c, roomJid, q.afterId(), pending), place(c, roomJid, q.pageAfter(),
                    pending));
            RoomLogRecord upper = earlier(place(c, roomJid, q.beforeId(), pending), place(c, roomJid,
                    q.pageBefore(), pending));
            Range range = new Range(q.startMillis(), q.endMillis(), lower, upper, q.senderNick());
            boolean backward = q.lastPage() || q.pageBefore() != null;
            List<RoomLogRecord> rows;
            if (q.ids() != null) {
                rows = byIds(c, roomJid, q.ids(), pending);
                rows.removeIf(r -> !range.matches(r));
                rows.sort(backward ? BY_TIME.reversed() : BY_TIME);
                long count = q.count() ? rows.size() : -1;
                return page(rows, q.max(), backward, count);
            }
            List<RoomLogRecord> stored = new ArrayList<>();
            if (!range.isEmpty()) {
                String order = backward ? " ORDER BY logTime DESC, stanzaId DESC" : " ORDER BY logTime, stanzaId";
                try (PreparedStatement ps = c.prepareStatement(limit(SELECT + range.where() + order, q.max() + 1))) {
                    range.bind(ps, roomJid);
                    read(ps, stored);
                }
            }
            Map<String, RoomLogRecord> byId = new LinkedHashMap<>();
            for (RoomLogRecord r : stored) {
                byId.put(r.stanzaId(), r);
            }
            List<RoomLogRecord> pendingInRange = new ArrayList<>();
            for (RoomLogRecord r : pending) {
                if (range.matches(r)) {
                    pendingInRange.add(r);
                    byId.putIfAbsent(r.stanzaId(), r);
                }
            }
            List<RoomLogRecord> merged = new ArrayList<>(byId.values());
            merged.sort(backward ? BY_TIME.reversed() : BY_TIME);
            long count = q.count() ? count(c, roomJid, range, pendingInRange) : -1;
            return page(merged, q.max(), backward, count);
        }
    }

    /** The room's oldest ({@code last} false) or newest archived message, or null when it has none. */
    public RoomLogRecord archiveEdge(String roomJid, boolean last) throws SQLException {
        try {
            List<RoomLogRecord> one = archive(roomJid, new ArchiveRequest(Long.MIN_VALUE, Long.MAX_VALUE, null, null,
                    null, null, null, last, null, 1, false)).records();
            return one.isEmpty() ? null : one.get(0);
        } catch (ArchiveIdNotFoundException e) {
            throw new IllegalStateException("no id was named", e);
        }
    }

    private static ArchivePage page(List<RoomLogRecord> inPagingOrder, int max, boolean backward, long count) {
        boolean complete = inPagingOrder.size() <= max;
        List<RoomLogRecord> page = new ArrayList<>(inPagingOrder.subList(0, Math.min(max, inPagingOrder.size())));
        if (backward) {
            java.util.Collections.reverse(page);
        }
        return new ArchivePage(page, complete, count);
    }

    /** The message {@code stanzaId} of the room (queued or stored), null for a null id. */
    private RoomLogRecord place(Connection c, String roomJid, String stanzaId, List<RoomLogRecord> pending)
            throws SQLException, ArchiveIdNotFoundException {
        if (stanzaId == null) {
            return null;
        }
        List<RoomLogRecord> found = byIds(c, roomJid, List.of(stanzaId), pending);
        return found.get(0);
    }

    /** The messages with these ids, queued or stored (through the (roomJid, stanzaId) index). */
    private List<RoomLogRecord> byIds(Connection c, String roomJid, List<String> ids, List<RoomLogRecord> pending)
            throws SQLException, ArchiveIdNotFoundException {
        Map<String, RoomLogRecord> found = new LinkedHashMap<>();
        java.util.Set<String> wanted = new java.util.LinkedHashSet<>(ids);
        for (RoomLogRecord r : pending) {
            if (wanted.contains(r.stanzaId())) {
                found.put(r.stanzaId(), r);
            }
        }
        List<String> missing = new ArrayList<>(wanted);
        missing.removeAll(found.keySet());
        for (int from = 0; from < missing.size(); from += IN_CHUNK) {
            List<String> chunk = missing.subList(from, Math.min(missing.size(), from + IN_CHUNK));
            try (PreparedStatement ps = c.prepareStatement(SELECT + " WHERE roomJid = ? AND stanzaId IN ("
                    + "?,".repeat(chunk.size() - 1) + "?)")) {
                ps.setString(1, roomJid);
                for (int i = 0; i < chunk.size(); i++) {
                    ps.setString(i + 2, chunk.get(i));
                }
                List<RoomLogRecord> rows = new ArrayList<>();
                read(ps, rows);
                for (RoomLogRecord r : rows) {
                    found.put(r.stanzaId(), r);
                }
            }
        }
        for (String id : wanted) {
            if (!found.containsKey(id)) {
                throw new ArchiveIdNotFoundException(id);
            }
        }
        return new ArrayList<>(found.values());
    }

    /**
     * The COUNT of the range plus the queued records it does not hold yet. Both reads run in one REPEATABLE READ
     * transaction, so they see the same committed rows: a queued record a lane commits meanwhile is counted once,
     * by the COUNT or as queued, never twice or not at all.
     */
    private long count(Connection c, String roomJid, Range range, List<RoomLogRecord> pendingInRange)
            throws SQLException {
        if (range.isEmpty() && pendingInRange.isEmpty()) {
            return 0;
        }
        boolean autoCommit = c.getAutoCommit();
        int isolation = c.getTransactionIsolation();
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try {
            long n = countInSnapshot(c, roomJid, range, pendingInRange);
            c.commit();
            return n;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setTransactionIsolation(isolation);
            c.setAutoCommit(autoCommit);
        }
    }

    private long countInSnapshot(Connection c, String roomJid, Range range, List<RoomLogRecord> pendingInRange)
            throws SQLException {
        long stored = 0;
        if (!range.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM mucscaleRoomLog" + range.where())) {
                range.bind(ps, roomJid);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    stored = rs.getLong(1);
                }
            }
        }
        if (pendingInRange.isEmpty()) {
            return stored;
        }
        // queued records a lane had stored when the snapshot was taken are in the COUNT already
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (RoomLogRecord r : pendingInRange) {
            ids.add(r.stanzaId());
        }
        List<String> all = new ArrayList<>(ids);
        long alreadyStored = 0;
        for (int from = 0; from < all.size(); from += IN_CHUNK) {
            List<String> chunk = all.subList(from, Math.min(all.size(), from + IN_CHUNK));
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM mucscaleRoomLog WHERE roomJid = ?"
                    + " AND stanzaId IN (" + "?,".repeat(chunk.size() - 1) + "?)")) {
                ps.setString(1, roomJid);
                for (int i = 0; i < chunk.size(); i++) {
                    ps.setString(i + 2, chunk.get(i));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    alreadyStored += rs.getLong(1);
                }
            }
        }
        return stored + ids.size() - alreadyStored;
    }

    private static final int IN_CHUNK = 500;

    private static RoomLogRecord later(RoomLogRecord a, RoomLogRecord b) {
        return a == null ? b : b == null ? a : BY_TIME.compare(a, b) >= 0 ? a : b;
    }

    private static RoomLogRecord earlier(RoomLogRecord a, RoomLogRecord b) {
        return a == null ? b : b == null ? a : BY_TIME.compare(a, b) <= 0 ? a : b;
    }

    /**
     * A key range of one room: {@code from <= logTime <= to}, strictly after {@code lower} and before {@code upper}
     * in key order, optionally one sender nick. The SQL keeps the bounds on the key's leading columns as plain range
     * predicates (roomJid equality, logTime range), which every database turns into a primary-key range scan; the
     * stanzaId tie-break only filters rows at the range's two edge milliseconds.
     */
    static final class Range {
        final long from;
        final long to;
        final RoomLogRecord lower;
        final RoomLogRecord upper;
        final String nick;

        Range(long start, long end, RoomLogRecord lower, RoomLogRecord upper, String nick) {
            this.from = lower == null ? start : Math.max(start, lower.logTimeMillis());
            this.to = upper == null ? end : Math.min(end, upper.logTimeMillis());
            this.lower = lower;
            this.upper = upper;
            this.nick = nick;
        }

        boolean isEmpty() {
            return from > to;
        }

        String where() {
            StringBuilder sb = new StringBuilder(" WHERE roomJid = ? AND logTime >= ? AND logTime <= ?");
            if (lower != null) {
                sb.append(" AND (logTime > ? OR stanzaId > ?)");
            }
            if (upper != null) {
                sb.append(" AND (logTime < ? OR stanzaId < ?)");
            }
            if (nick != null) {
                sb.append(" AND senderNick = ?");
            }
            return sb.toString();
        }

        void bind(PreparedStatement ps, String roomJid) throws SQLException {
            int p = 1;
            ps.setString(p++, roomJid);
            ps.setLong(p++, from);
            ps.setLong(p++, to);
            if (lower != null) {
                ps.setLong(p++, lower.logTimeMillis());
                ps.setString(p++, lower.stanzaId());
            }
            if (upper != null) {
                ps.setLong(p++, upper.logTimeMillis());
                ps.setString(p++, upper.stanzaId());
            }
            if (nick != null) {
                ps.setString(p, nick);
            }
        }

        boolean matches(RoomLogRecord r) {
            long t = r.logTimeMillis();
            return t >= from && t <= to && (lower == null || BY_TIME.compare(r, lower) > 0)
                    && (upper == null || BY_TIME.compare(r, upper) < 0)
                    && (nick == null || nick.equals(r.senderNick()));
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
