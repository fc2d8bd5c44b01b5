package org.mucscale.engine.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/**
 * The room log's idempotent insert for each database. MySQL/MariaDB and PostgreSQL get multi-row
 * {@code INSERT ... VALUES (...),(...)} statements built here, so batching is fast whatever the JDBC URL says (inside
 * Openfire the operator's URL rarely sets rewriteBatchedStatements); HSQLDB runs in-process, so a JDBC batch of
 * MERGE statements is as fast. Duplicates are ignored on the table's only key, the primary key (roomJid, logTime,
 * stanzaId), which a retried, replayed or recovered record always repeats whole: {@code ON DUPLICATE KEY UPDATE} no-op (not
 * {@code INSERT IGNORE}, which would also turn a too-long or badly encoded value into a silent truncation),
 * {@code ON CONFLICT DO NOTHING}, and MERGE ... WHEN NOT MATCHED.
 */
final class RoomLogSql {
    static final String COLUMNS = "stanzaId, roomJid, logTime, senderNick, senderJid, body, subject, filterAction, stanza";
    static final int COLUMN_COUNT = 9;
    /** Rows in one multi-row statement at most (PostgreSQL allows 32767 parameters). */
    static final int MAX_ROWS_PER_STATEMENT = 1000;
    /**
     * Estimated bytes in one multi-row statement at most (3 bytes per char, so real statements are smaller): under
     * the smallest max_allowed_packet MySQL has shipped by default (4 MB in 5.7), so a statement of many rows never
     * exceeds it; only a single row bigger than the packet can, and that is that row's fault (see isRowLevel).
     */
    static final int MAX_BYTES_PER_STATEMENT = 1024 * 1024;

    private final DatabaseType type;
    private final String[] multiRowCache = new String[MAX_ROWS_PER_STATEMENT + 1];

    RoomLogSql(DatabaseType type) {
        this.type = type;
    }

    DatabaseType type() {
        return type;
    }

    /** Inserts records[from, to) on {@code c} (the caller owns the transaction). */
    void insert(Connection c, RoomLogRecord[] records, int from, int to) throws SQLException {
        if (type == DatabaseType.HSQLDB) {
            insertBatch(c, records, from, to);
            return;
        }
        int i = from;
        while (i < to) {
            int end = i;
            long bytes = 0;
            while (end < to && end - i < MAX_ROWS_PER_STATEMENT
                    && (end == i || bytes + records[end].estimatedBytes() <= MAX_BYTES_PER_STATEMENT)) {
                bytes += records[end].estimatedBytes();
                end++;
            }
            try (PreparedStatement ps = c.prepareStatement(multiRowSql(end - i))) {
                int p = 1;
                for (int k = i; k < end; k++) {
                    p = bind(ps, p, records[k]);
                }
                ps.executeUpdate();
            }
            i = end;
        }
    }

    private void insertBatch(Connection c, RoomLogRecord[] records, int from, int to) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("MERGE INTO mucscaleRoomLog t USING (VALUES ("
                + "CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(255)), CAST(? AS BIGINT), CAST(? AS VARCHAR(1023)),"
                + " CAST(? AS VARCHAR(3071)), CAST(? AS LONGVARCHAR), CAST(? AS LONGVARCHAR), CAST(? AS VARCHAR(32)),"
                + " CAST(? AS LONGVARCHAR))) AS v(" + COLUMNS + ")"
                + " ON t.roomJid = v.roomJid AND t.logTime = v.logTime AND t.stanzaId = v.stanzaId"
                + " WHEN NOT MATCHED THEN INSERT (" + COLUMNS + ") VALUES (v.stanzaId, v.roomJid, v.logTime,"
                + " v.senderNick, v.senderJid, v.body, v.subject, v.filterAction, v.stanza)")) {
            for (int k = from; k < to; k++) {
                bind(ps, 1, records[k]);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** A single-row insert, row by row: the baseline the benchmark compares batching with. */
    String singleRowSql() {
        return type == DatabaseType.HSQLDB ? null : multiRowSql(1);
    }

    String multiRowSql(int rows) {
        String cached = multiRowCache[rows];
        if (cached != null) {
            return cached;
        }
        StringBuilder sb = new StringBuilder(128 + rows * 24).append("INSERT INTO mucscaleRoomLog (")
                .append(COLUMNS).append(") VALUES ");
        for (int r = 0; r < rows; r++) {
            sb.append(r == 0 ? "(" : ",(").append("?,?,?,?,?,?,?,?,?").append(')');
        }
        if (type.isMySqlFamily()) {
            sb.append(" ON DUPLICATE KEY UPDATE stanzaId = stanzaId");
        } else {
            sb.append(" ON CONFLICT (roomJid, logTime, stanzaId) DO NOTHING");
        }
        String sql = sb.toString();
        multiRowCache[rows] = sql;
        return sql;
    }

    static int bind(PreparedStatement ps, int p, RoomLogRecord r) throws SQLException {
        ps.setString(p++, r.stanzaId());
        ps.setString(p++, r.roomJid());
        ps.setLong(p++, r.logTimeMillis());
        ps.setString(p++, r.senderNick());
        setNullable(ps, p++, r.senderJid());
        setNullable(ps, p++, r.body());
        setNullable(ps, p++, r.subject());
        setNullable(ps, p++, r.filterAction());
        setNullable(ps, p++, r.stanza());
        return p;
    }

    private static void setNullable(PreparedStatement ps, int p, String value) throws SQLException {
        if (value == null) {
            ps.setNull(p, Types.VARCHAR);
        } else {
            ps.setString(p, value);
        }
    }

    /**
     * True when the error is about the data of some row (too long, bad encoding, constraint), so splitting the batch
     * isolates it; false when it is about the database (down, locked, out of space, missing table): retry later.
     */
    static boolean isRowLevel(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException s) {
                for (SQLException x = s; x != null; x = x.getNextException()) {
                    if (rowLevel(x)) {
                        return true;
                    }
                    if (x.getNextException() == x) {
                        break;
                    }
                }
            }
        }
        return false;
    }

    /** An SQL failure in one line for logs and dead letters: state, code, message and the next exception's. */
    static String describe(SQLException e) {
        StringBuilder sb = new StringBuilder();
        sb.append("SQLState ").append(e.getSQLState()).append(", error ").append(e.getErrorCode()).append(": ")
                .append(e.getMessage());
        SQLException next = e.getNextException();
        if (next != null && next != e) {
            sb.append("; ").append(next.getMessage());
        }
        return sb.length() > 1500 ? sb.substring(0, 1500) : sb.toString();
    }

    private static boolean rowLevel(SQLException x) {
        String type = x.getClass().getSimpleName();
        if (x.getErrorCode() == 1153 || type.contains("PacketTooBig") || type.contains("MaxAllowedPacket")) {
            return true; // one row larger than the server's max_allowed_packet (statements stay well below it)
        }
        String state = x.getSQLState();
        if (state != null && state.startsWith("08")) {
            return false;
        }
        if (state != null && (state.startsWith("22") || state.startsWith("23") || state.equals("54000"))) {
            return true;
        }
        switch (x.getErrorCode()) {
            case 1048: // column cannot be null
            case 1264: // out of range
            case 1265: // data truncated
            case 1292: // incorrect value
            case 1300: // invalid character string
            case 1366: // incorrect string value (e.g. 4-byte character in a utf8mb3 column)
            case 1406: // data too long
                return true;
            default:
                return false;
        }
    }
}
