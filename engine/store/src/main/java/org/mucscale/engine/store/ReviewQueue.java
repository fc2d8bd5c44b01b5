package org.mucscale.engine.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Messages the content filter flagged but delivered, waiting for a moderator's review ({@code mucscaleReview},
 * {@code mucscale.filter.review-queue}). A flagged record carries its matched terms ({@link RoomLogRecord#reviewTerms})
 * and its review row is written by the room log writer in the same transaction as its log row, so a message is
 * queued for review exactly when it is logged, and a retraction (which replaces a queued record by its tombstone,
 * see {@link RoomLogRetractions}) never leaves a review row behind: the retraction deletes the row too. Terms are
 * kept in memory only while queued: a flagged record that goes through a spill file or the write-ahead log is logged
 * without its review row. Thread-safe; pooled connections.
 */
public final class ReviewQueue {
    /** The column's size: terms beyond it are cut at a separator. */
    static final int MAX_TERMS_CHARS = 2000;

    /** One message waiting for review. */
    public record Entry(String stanzaId, String roomJid, long logTimeMillis, String senderNick, String senderJid,
                        String body, String terms) {
    }

    private final DataSource dataSource;
    private final DatabaseType type;

    ReviewQueue(DataSource dataSource, DatabaseType type) {
        this.dataSource = dataSource;
        this.type = type;
    }

    /** Writer lane, inside the batch's transaction: review rows of the flagged records of records[from, to). */
    static void insert(Connection c, DatabaseType type, RoomLogRecord[] records, int from, int to)
            throws SQLException {
        PreparedStatement ps = null;
        try {
            for (int i = from; i < to; i++) {
                RoomLogRecord r = records[i];
                if (r == null || r.reviewTerms() == null || RoomLogRetractions.RETRACTED.equals(r.filterAction())) {
                    continue;
                }
                if (ps == null) {
                    ps = c.prepareStatement(insertSql(type));
                }
                ps.setString(1, r.stanzaId());
                ps.setString(2, r.roomJid());
                ps.setLong(3, r.logTimeMillis());
                ps.setString(4, r.senderNick());
                if (r.senderJid() == null) {
                    ps.setNull(5, Types.VARCHAR);
                } else {
                    ps.setString(5, r.senderJid());
                }
                if (r.body() == null) {
                    ps.setNull(6, Types.VARCHAR);
                } else {
                    ps.setString(6, r.body());
                }
                ps.setString(7, r.reviewTerms());
                ps.addBatch();
            }
            if (ps != null) {
                ps.executeBatch();
            }
        } finally {
            if (ps != null) {
                ps.close();
            }
        }
    }

    private static String insertSql(DatabaseType type) {
        String columns = "stanzaId, roomJid, logTime, senderNick, senderJid, body, terms";
        if (type == DatabaseType.HSQLDB) {
            return "MERGE INTO mucscaleReview t USING (VALUES (CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(255)),"
                    + " CAST(? AS BIGINT), CAST(? AS VARCHAR(1023)), CAST(? AS VARCHAR(3071)), CAST(? AS LONGVARCHAR),"
                    + " CAST(? AS VARCHAR(2000)))) AS v(" + columns + ")"
                    + " ON t.roomJid = v.roomJid AND t.stanzaId = v.stanzaId WHEN NOT MATCHED THEN INSERT (" + columns
                    + ") VALUES (v.stanzaId, v.roomJid, v.logTime, v.senderNick, v.senderJid, v.body, v.terms)";
        }
        String sql = "INSERT INTO mucscaleReview (" + columns + ") VALUES (?,?,?,?,?,?,?)";
        return type.isMySqlFamily() ? sql + " ON DUPLICATE KEY UPDATE stanzaId = stanzaId"
                : sql + " ON CONFLICT (roomJid, stanzaId) DO NOTHING";
    }

    /** Matched terms as one column value: distinct, comma-separated, cut to the column's size. */
    public static String terms(List<String> matched) {
        StringBuilder sb = new StringBuilder();
        for (String t : matched) {
            if (t == null || t.isBlank() || (", " + sb + ",").contains(", " + t + ",")) {
                continue;
            }
            if (sb.length() + t.length() + 2 > MAX_TERMS_CHARS) {
                break;
            }
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(t);
        }
        return sb.toString();
    }

    /** The oldest waiting messages, of one room or (null) of all, at most {@code max}. */
    public List<Entry> waiting(String roomJid, int max) throws SQLException {
        String sql = "SELECT stanzaId, roomJid, logTime, senderNick, senderJid, body, terms FROM mucscaleReview"
                + (roomJid == null ? "" : " WHERE roomJid = ?") + " ORDER BY logTime, stanzaId LIMIT "
                + Math.max(1, max);
        List<Entry> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            if (roomJid != null) {
                ps.setString(1, roomJid);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Entry(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4),
                            rs.getString(5), rs.getString(6), rs.getString(7)));
                }
            }
        }
        return out;
    }

    /** True when this message of this room is waiting for review (a primary-key lookup). */
    public boolean isWaiting(String roomJid, String stanzaId) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT 1 FROM mucscaleReview WHERE roomJid = ? AND stanzaId = ?")) {
            ps.setString(1, roomJid);
            ps.setString(2, stanzaId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** A moderator looked and let the message stand (or retracted it): it leaves the queue. True when it was there. */
    public boolean remove(String roomJid, String stanzaId) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return remove(c, roomJid, stanzaId) > 0;
        }
    }

    static int remove(Connection c, String roomJid, String stanzaId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "DELETE FROM mucscaleReview WHERE roomJid = ? AND stanzaId = ?")) {
            ps.setString(1, roomJid);
            ps.setString(2, stanzaId);
            return ps.executeUpdate();
        }
    }

    DatabaseType type() {
        return type;
    }
}
