package org.mucscale.engine.store;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The room log's fast path into MySQL/MariaDB through mysql-connector-j: one {@code LOAD DATA LOCAL INFILE ... IGNORE}
 * per batch, its rows encoded here into one reused byte buffer (tab-separated, backslash-escaped UTF-8) and streamed
 * from memory with {@code com.mysql.cj.jdbc.JdbcStatement#setLocalInfileInputStream}. The server neither parses SQL
 * per row nor builds an UPDATE clause, and the writer does not escape thousands of parameters through the driver.
 *
 * <p>Correctness: LOCAL turns data errors (too long, bad string, duplicate key) into warnings and stores a
 * mangled row instead. So {@link #load} accepts the batch only when every row was inserted and the server reported no
 * warning at all; otherwise it returns false and the caller rolls back and re-runs the batch through the multi-row
 * INSERT path, which splits it and parks bad rows (and skips duplicates on the key roomJid, logTime, stanzaId).
 * Nothing is committed that the INSERT path would not have committed.
 *
 * <p>Security: with {@code allowLoadLocalInfile=true} the driver answers a server's LOCAL INFILE request on <em>any</em>
 * statement by reading the named local file, so a rogue or impersonated database server could read files of this
 * process. The driver serves an in-memory stream only under that same switch ({@code allowLoadLocalInfileInPath}
 * ignores the stream), so the switch is never left on: {@link #load} turns the connection's (runtime-modifiable)
 * {@code allowLoadLocalInfile} on for its own statement only, while the statement's stream is set (the driver then
 * sends that stream whatever file name the server asks for), and puts the previous value back right after. Every
 * other statement on the connection runs with it off unless the operator's JDBC URL turned it on. The server only
 * accepts LOCAL INFILE from a client that announced the capability when it connected, which the driver does for
 * {@code allowLoadLocalInfile=true} or for any {@code allowLoadLocalInfileInPath}: the standalone pool sets the latter
 * to a path that holds no file ({@link StandaloneDataSource#NO_LOCAL_FILES}), so the driver refuses every file.
 *
 * <p>Availability: needs mysql-connector-j (found by reflection, since inside Openfire the driver comes from the
 * server). When the driver or the server refuses (e.g. {@code local_infile=OFF}), {@link #load} says
 * {@link Outcome#UNAVAILABLE} and the writer uses INSERT from then on.
 *
 * <p>Threads: one writer lane's thread only; each lane has its own (the buffer is reused batch after batch).
 */
final class MySqlBulkLoad {
    private static final Logger LOG = LoggerFactory.getLogger(MySqlBulkLoad.class);

    private static final String LOAD = "LOAD DATA LOCAL INFILE 'mucscale-roomlog.tsv' IGNORE INTO TABLE mucscaleRoomLog"
            + " CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n'";
    static final String SQL = LOAD + " (" + RoomLogSql.COLUMNS + ")";
    /**
     * For batches of plain messages (no subject, no filter action, no raw stanza: what a chat room logs almost always):
     * six fields per line instead of nine, the other columns default to NULL. The server's field reader is about a
     * quarter of its LOAD DATA cost; three fewer fields per row measured about 5 % less MariaDB CPU.
     */
    static final String SQL_PLAIN = LOAD + " (stanzaId, roomJid, logTime, senderNick, senderJid, body)";

    /**
     * The order rows are sent in: the table's key (room, then the reader's time and stanza-id order). Each room's rows
     * then go into its B-tree leaf one after another instead of alternating between rooms row by row (measured: a few
     * percent less MariaDB CPU per row). Only a locality hint: String order is UTF-16 order, which may differ from the
     * collation's for rare characters.
     */
    private static final java.util.Comparator<RoomLogRecord> KEY_ORDER =
            java.util.Comparator.comparing(RoomLogRecord::roomJid).thenComparing(RoomLogReader.BY_TIME);

    enum Outcome {
        /** Every row inserted, no warning: the caller commits. */
        LOADED,
        /** Some row was refused, duplicated or changed: roll back and use the INSERT path for this batch. */
        FALL_BACK,
        /** This connection/driver cannot do it: use the INSERT path, now and later. */
        UNAVAILABLE
    }

    private static final Method SET_STREAM = findSetStream();
    private static final Class<?> JDBC_STATEMENT = SET_STREAM == null ? null : SET_STREAM.getDeclaringClass();
    private static final LocalInfileSwitch SWITCH = SET_STREAM == null ? null
            : LocalInfileSwitch.find(JDBC_STATEMENT.getClassLoader());

    private byte[] buf = new byte[256 * 1024];
    private int len;
    // The batch in key order (references only; cleared after each encode so no record outlives its batch).
    private RoomLogRecord[] sorted = new RoomLogRecord[0];

    /** True when mysql-connector-j is on the class path (the only driver this path supports). */
    static boolean driverPresent() {
        return SET_STREAM != null;
    }

    /**
     * Loads records[from,to) on {@code c} inside the caller's transaction. On FALL_BACK the caller must roll back
     * before anything else (rows may have been inserted, mangled).
     */
    Outcome load(Connection c, RoomLogRecord[] records, int from, int to) throws SQLException {
        if (SET_STREAM == null) {
            return Outcome.UNAVAILABLE;
        }
        for (int i = from; i < to; i++) {
            if (records[i].estimatedBytes() > RoomLogSql.MAX_BYTES_PER_STATEMENT) {
                // LOAD DATA would take a row the INSERT path refuses (bigger than the packet limit, so also too big
                // to read back): let that path isolate and park it, the same as without bulk load.
                return Outcome.FALL_BACK;
            }
        }
        boolean plain = encode(records, from, to);
        try (Statement st = c.createStatement()) {
            Object raw;
            try {
                raw = st.isWrapperFor(JDBC_STATEMENT) ? st.unwrap(JDBC_STATEMENT) : null;
            } catch (SQLException e) {
                raw = null;
            }
            if (raw == null) {
                LOG.info("mucscale store: the JDBC driver is not mysql-connector-j ({}); room log batches use"
                        + " multi-row INSERT", st.getClass().getName());
                return Outcome.UNAVAILABLE;
            }
            try {
                SET_STREAM.invoke(raw, (InputStream) new ByteArrayInputStream(buf, 0, len));
            } catch (IllegalAccessException | InvocationTargetException e) {
                return Outcome.UNAVAILABLE;
            }
            long rows;
            Object previous = null;
            Object property = null;
            try {
                property = SWITCH == null ? null : SWITCH.property(((Statement) raw).getConnection());
                if (property == null) {
                    LOG.info("mucscale store: this mysql-connector-j cannot switch LOCAL INFILE on for one statement;"
                            + " room log batches use multi-row INSERT");
                    return Outcome.UNAVAILABLE;
                }
                previous = SWITCH.enable(property);
                rows = st.executeLargeUpdate(plain ? SQL_PLAIN : SQL);
            } catch (SQLException e) {
                if (isNotAllowed(e)) {
                    LOG.warn("mucscale store: LOAD DATA LOCAL INFILE is not allowed on this connection ({}); using"
                            + " multi-row INSERT. The server must allow local_infile; or set"
                            + " mucscale.store.mysql-bulk-load=false.", RoomLogSql.describe(e));
                    return Outcome.UNAVAILABLE;
                }
                throw e;
            } finally {
                if (property != null) {
                    SWITCH.restore(property, previous);
                }
            }
            SQLWarning w = st.getWarnings();
            if (rows != to - from || w != null) {
                if (LOG.isDebugEnabled()) {
                    LOG.debug("mucscale store: bulk load of {} rows inserted {} with warning {}; re-running it as"
                            + " INSERT", to - from, rows, w == null ? "none" : w.getMessage());
                }
                return Outcome.FALL_BACK;
            }
            return Outcome.LOADED;
        }
    }

    /** The server or driver refuses LOCAL INFILE (not a data error, not the database being down). */
    private static boolean isNotAllowed(SQLException e) {
        int code = e.getErrorCode();
        if (code == 1148 || code == 3948 || code == 2068 || code == 4166) {
            return true;
        }
        String m = e.getMessage();
        return m != null && (m.contains("LOCAL INFILE") || m.contains("LOAD DATA LOCAL"))
                && (e.getSQLState() == null || !e.getSQLState().startsWith("08"));
    }

    /** Bytes of the last {@link #encode} (tests). */
    byte[] encoded() {
        return java.util.Arrays.copyOf(buf, len);
    }

    /**
     * One line per record in key order: nine tab-separated fields ({@link #SQL}), or six when no record has a subject,
     * filter action or stanza ({@link #SQL_PLAIN}); NULL as {@code \N}, tab/newline/backslash/NUL escaped. Returns
     * whether the six-field form was used.
     */
    boolean encode(RoomLogRecord[] records, int from, int to) {
        int n = to - from;
        if (sorted.length < n) {
            sorted = new RoomLogRecord[n];
        }
        System.arraycopy(records, from, sorted, 0, n);
        java.util.Arrays.sort(sorted, 0, n, KEY_ORDER);
        boolean allPlain = true;
        for (int i = 0; i < n && allPlain; i++) {
            RoomLogRecord r = sorted[i];
            allPlain = r.subject() == null && r.filterAction() == null && r.stanza() == null;
        }
        len = 0;
        for (int i = 0; i < n; i++) {
            RoomLogRecord r = sorted[i];
            sorted[i] = null;
            text(r.stanzaId());
            put((byte) '\t');
            text(r.roomJid());
            put((byte) '\t');
            number(r.logTimeMillis());
            put((byte) '\t');
            text(r.senderNick());
            put((byte) '\t');
            text(r.senderJid());
            put((byte) '\t');
            text(r.body());
            if (allPlain) {
                put((byte) '\n');
                continue;
            }
            put((byte) '\t');
            text(r.subject());
            put((byte) '\t');
            text(r.filterAction());
            put((byte) '\t');
            text(r.stanza());
            put((byte) '\n');
        }
        return allPlain;
    }

    private void put(byte b) {
        if (len == buf.length) {
            grow(1);
        }
        buf[len++] = b;
    }

    private void grow(int atLeast) {
        buf = java.util.Arrays.copyOf(buf, Math.max(buf.length * 2, len + atLeast));
    }

    private void number(long v) {
        if (len + 20 > buf.length) {
            grow(20);
        }
        if (v < 0) {
            if (v == Long.MIN_VALUE) {
                byte[] s = Long.toString(v).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                System.arraycopy(s, 0, buf, len, s.length);
                len += s.length;
                return;
            }
            buf[len++] = '-';
            v = -v;
        }
        int start = len;
        do {
            buf[len++] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v != 0);
        for (int a = start, b = len - 1; a < b; a++, b--) {
            byte t = buf[a];
            buf[a] = buf[b];
            buf[b] = t;
        }
    }

    /**
     * UTF-8 with LOAD DATA escapes. A lone surrogate becomes '?', exactly as the driver's own encoding (and so the
     * INSERT path) stores it.
     */
    private void text(String s) {
        if (s == null) {
            if (len + 2 > buf.length) {
                grow(2);
            }
            buf[len++] = '\\';
            buf[len++] = 'N';
            return;
        }
        int n = s.length();
        if (len + n * 3 + 2 > buf.length) { // worst case: 3 bytes per char, or 2 per escaped ASCII char
            grow(n * 3 + 2);
        }
        byte[] b = buf;
        int p = len;
        for (int i = 0; i < n; i++) {
            char ch = s.charAt(i);
            if (ch < 0x80) {
                switch (ch) {
                    case '\t' -> { b[p++] = '\\'; b[p++] = 't'; }
                    case '\n' -> { b[p++] = '\\'; b[p++] = 'n'; }
                    case '\\' -> { b[p++] = '\\'; b[p++] = '\\'; }
                    case '\0' -> { b[p++] = '\\'; b[p++] = '0'; }
                    default -> b[p++] = (byte) ch;
                }
            } else if (ch < 0x800) {
                b[p++] = (byte) (0xC0 | (ch >> 6));
                b[p++] = (byte) (0x80 | (ch & 0x3F));
            } else if (Character.isHighSurrogate(ch) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(ch, s.charAt(++i));
                b[p++] = (byte) (0xF0 | (cp >> 18));
                b[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                b[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                b[p++] = (byte) (0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(ch)) {
                b[p++] = '?';
            } else {
                b[p++] = (byte) (0xE0 | (ch >> 12));
                b[p++] = (byte) (0x80 | ((ch >> 6) & 0x3F));
                b[p++] = (byte) (0x80 | (ch & 0x3F));
            }
        }
        len = p;
    }

    private static Method findSetStream() {
        for (ClassLoader cl : new ClassLoader[] {MySqlBulkLoad.class.getClassLoader(),
                Thread.currentThread().getContextClassLoader()}) {
            try {
                Class<?> k = Class.forName("com.mysql.cj.jdbc.JdbcStatement", false, cl);
                return k.getMethod("setLocalInfileInputStream", InputStream.class);
            } catch (ClassNotFoundException | NoSuchMethodException | LinkageError | NullPointerException e) {
                // not this loader
            }
        }
        return null;
    }
}
