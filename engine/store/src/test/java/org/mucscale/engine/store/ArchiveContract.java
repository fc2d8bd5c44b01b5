package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.mucscale.engine.port.Clock;

/**
 * Archive (XEP-0313) queries over the room log, run by {@link DatabaseContractTest} on every database: keyset paging
 * through 10,000 messages both ways with no gap or duplicate (queued records included), the form's bounds, unknown
 * ids, and query plans that walk the room's key instead of scanning the table.
 */
final class ArchiveContract {
    static final String ROOM = "archive@muc";
    static final long T0 = 1_700_000_000_000L;
    static final int STORED = 10_000;
    static final int QUEUED = 300;

    private ArchiveContract() {
    }

    /** Message n of a room: three messages per millisecond (ties broken by stanza id), five senders. */
    static RoomLogRecord message(String room, int n) {
        return new RoomLogRecord(String.format("%s-%06d", room.substring(0, 3), n), room, T0 + n / 3,
                "nick" + (n % 5), "user" + (n % 5) + "@example.org/r", "message " + n, null, null, null);
    }

    /** {@code STORED} rows of the archive room and as many of two neighbours (so a scan would show), then ANALYZE. */
    static void fill(DataSource ds, DatabaseType type) throws SQLException {
        RoomLogSql sql = new RoomLogSql(type);
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            for (String room : new String[] {"aaa@muc", ROOM, "zzz@muc"}) {
                RoomLogRecord[] rows = new RoomLogRecord[STORED];
                for (int i = 0; i < STORED; i++) {
                    rows[i] = message(room, i);
                }
                sql.insert(c, rows, 0, rows.length);
            }
            c.commit();
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                if (type == DatabaseType.POSTGRESQL) {
                    s.execute("ANALYZE mucscaleRoomLog");
                } else if (type.isMySqlFamily()) {
                    s.execute("ANALYZE TABLE mucscaleRoomLog");
                }
            }
        }
    }

    static void pagingBothWays(DataSource ds, DatabaseType type, StoreConfig config) throws Exception {
        fill(ds, type);
        // a writer that is never started keeps its records queued: they must page like stored ones
        RoomLogWriter queued = new RoomLogWriter(ds, type, config, Clock.SYSTEM, StoreListener.NONE);
        try {
            for (int i = STORED; i < STORED + QUEUED; i++) {
                assertThat(queued.offer(message(ROOM, i))).isEqualTo(OfferResult.QUEUED);
            }
            RoomLogReader reader = new RoomLogReader(ds, type, queued);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < STORED + QUEUED; i++) {
                expected.add(message(ROOM, i).stanzaId());
            }

            List<String> forward = new ArrayList<>();
            String after = null;
            int pages = 0;
            while (true) {
                ArchivePage p = reader.archive(ROOM, new ArchiveRequest(Long.MIN_VALUE, Long.MAX_VALUE, null, null,
                        null, after, null, false, null, 97, pages == 0));
                if (pages == 0) {
                    assertThat(p.count()).as("count of stored and queued").isEqualTo(STORED + QUEUED);
                }
                pages++;
                p.records().forEach(r -> forward.add(r.stanzaId()));
                if (p.complete()) {
                    break;
                }
                after = p.records().get(p.records().size() - 1).stanzaId();
            }
            assertThat(forward).as("forward, no gap or duplicate").isEqualTo(expected);
            assertThat(pages).isEqualTo((STORED + QUEUED + 96) / 97);

            List<String> backward = new ArrayList<>();
            String before = null;
            while (true) {
                ArchivePage p = reader.archive(ROOM, new ArchiveRequest(Long.MIN_VALUE, Long.MAX_VALUE, null, null,
                        null, null, before, true, null, 101, false));
                List<String> ids = p.records().stream().map(RoomLogRecord::stanzaId).toList();
                backward.addAll(0, ids);
                if (p.complete()) {
                    break;
                }
                before = ids.get(0);
            }
            assertThat(backward).as("backward, no gap or duplicate").isEqualTo(expected);

            assertThat(reader.archiveEdge(ROOM, false).stanzaId()).isEqualTo(expected.get(0));
            assertThat(reader.archiveEdge(ROOM, true).stanzaId()).as("newest is queued").isEqualTo(
                    expected.get(expected.size() - 1));
            assertThat(reader.archiveEdge("empty@muc", true)).isNull();
        } finally {
            queued.close();
        }
    }

    static void boundsAndIds(DataSource ds, DatabaseType type) throws Exception {
        fill(ds, type);
        RoomLogReader reader = new RoomLogReader(ds, type, null);
        // start/end are inclusive milliseconds: ms 10..11 hold messages 30..35
        ArchivePage p = reader.archive(ROOM, new ArchiveRequest(T0 + 10, T0 + 11, null, null, null, null, null, false,
                null, 50, true));
        assertThat(ids(p)).containsExactly(ids(30, 31, 32, 33, 34, 35));
        assertThat(p.complete()).isTrue();
        assertThat(p.count()).isEqualTo(6);
        // after-id / before-id are exclusive, and split a millisecond by stanza id
        p = reader.archive(ROOM, new ArchiveRequest(Long.MIN_VALUE, Long.MAX_VALUE, null, message(ROOM, 31).stanzaId(),
                message(ROOM, 35).stanzaId(), null, null, false, null, 2, true));
        assertThat(ids(p)).containsExactly(ids(32, 33));
        assertThat(p.complete()).isFalse();
        assertThat(p.count()).isEqualTo(3);
        // the last page of that range
        p = reader.archive(ROOM, new ArchiveRequest(Long.MIN_VALUE, Long.MAX_VALUE, null, message(ROOM, 31).stanzaId(),
                message(ROOM, 35).stanzaId(), null, null, true, null, 2, false));
        assertThat(ids(p)).containsExactly(ids(33, 34));
        assertThat(p.complete()).isFalse();
        // with: one sender's messages only (n % 5 == 2) within ms 0..4 (messages 0..14)
        p = reader.archive(ROOM, new ArchiveRequest(T0, T0 + 4, "nick2", null, null, null, null, false, null, 50,
                true));
        assertThat(ids(p)).containsExactly(ids(2, 7, 12));
        assertThat(p.count()).isEqualTo(3);
        // ids: exactly those, in archive order
        p = reader.archive(ROOM, new ArchiveRequest(Long.MIN_VALUE, Long.MAX_VALUE, null, null, null, null, null,
                false, List.of(message(ROOM, 900).stanzaId(), message(ROOM, 5).stanzaId()), 50, true));
        assertThat(ids(p)).containsExactly(ids(5, 900));
        // an id of another room is unknown here; an empty range is empty, not an error
        assertThatThrownBy(() -> reader.archive(ROOM, new ArchiveRequest(Long.MIN_VALUE, Long.MAX_VALUE, null,
                message("aaa@muc", 5).stanzaId(), null, null, null, false, null, 10, false)))
                .isInstanceOf(ArchiveIdNotFoundException.class).hasMessageContaining("aaa-000005");
        assertThatThrownBy(() -> reader.archive(ROOM, new ArchiveRequest(Long.MIN_VALUE, Long.MAX_VALUE, null, null,
                null, null, "nope", true, null, 10, false))).isInstanceOf(ArchiveIdNotFoundException.class);
        p = reader.archive(ROOM, new ArchiveRequest(T0 + 5, T0 + 4, null, null, null, null, null, false, null, 10,
                true));
        assertThat(p.records()).isEmpty();
        assertThat(p.complete()).isTrue();
        assertThat(p.count()).isZero();
    }

    /** The statements a page, a count and an id lookup run, with their plans on this database. */
    static List<String[]> plans(DataSource ds, DatabaseType type) throws SQLException {
        RoomLogRecord lower = message(ROOM, 5000);
        RoomLogRecord upper = message(ROOM, 9000);
        RoomLogReader.Range deep = new RoomLogReader.Range(Long.MIN_VALUE, Long.MAX_VALUE, lower, null, null);
        RoomLogReader.Range last = new RoomLogReader.Range(Long.MIN_VALUE, Long.MAX_VALUE, null, upper, null);
        // a range of 1 % of the table (300 of 30,000 rows): for T0..T0+3000, 9,000 rows or 30 % of the table,
        // PostgreSQL's planner rightly chose a Seq Scan for the COUNT in one CI run
        RoomLogReader.Range with = new RoomLogReader.Range(T0, T0 + 100, null, null, "nick2");
        String select = "SELECT " + RoomLogSql.COLUMNS + " FROM mucscaleRoomLog";
        List<String[]> out = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            out.add(plan(c, type, "page forward after an id", select + deep.where()
                    + " ORDER BY logTime, stanzaId LIMIT 51", deep));
            out.add(plan(c, type, "page backward before an id", select + last.where()
                    + " ORDER BY logTime DESC, stanzaId DESC LIMIT 51", last));
            out.add(plan(c, type, "count of a range, one sender", "SELECT COUNT(*) FROM mucscaleRoomLog"
                    + with.where(), with));
            out.add(plan(c, type, "id lookup", select + " WHERE roomJid = ? AND stanzaId IN (?)", null));
        }
        return out;
    }

    private static String[] plan(Connection c, DatabaseType type, String what, String sql, RoomLogReader.Range range)
            throws SQLException {
        String explain = type == DatabaseType.HSQLDB ? "EXPLAIN PLAN FOR " + sql : "EXPLAIN " + sql;
        StringBuilder text = new StringBuilder();
        try (PreparedStatement ps = c.prepareStatement(explain)) {
            if (type == DatabaseType.HSQLDB) {
                // EXPLAIN PLAN FOR takes no parameters on HSQLDB; its plan does not depend on the values
            } else if (range != null) {
                range.bind(ps, ROOM);
            } else {
                ps.setString(1, ROOM);
                ps.setString(2, message(ROOM, 4242).stanzaId());
            }
            try (ResultSet rs = ps.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                if (type.isMySqlFamily()) {
                    for (int i = 1; i <= columns; i++) {
                        text.append(rs.getMetaData().getColumnLabel(i)).append(i < columns ? " | " : "\n");
                    }
                }
                while (rs.next()) {
                    for (int i = 1; i <= columns; i++) {
                        text.append(rs.getString(i)).append(i < columns ? " | " : "\n");
                    }
                }
            }
        }
        return new String[] {what, sql, text.toString()};
    }

    /** Every plan reads the room's key (or the id index) as a range, never the whole table. */
    static void plansUseTheKey(DataSource ds, DatabaseType type) throws SQLException {
        fill(ds, type);
        for (String[] p : plans(ds, type)) {
            String plan = p[2];
            System.out.println("[archive plan " + type + "] " + p[0] + "\n" + p[1] + "\n" + plan);
            switch (type) {
                case POSTGRESQL -> {
                    assertThat(plan).as(p[0]).doesNotContain("Seq Scan");
                    assertThat(plan.toLowerCase()).as(p[0]).containsAnyOf("index scan using mucscaleroomlog_pk",
                            "index scan backward using mucscaleroomlog_pk", "index scan using mucscaleroomlog_room_id",
                            "index only scan using mucscaleroomlog_pk", "bitmap index scan on mucscaleroomlog_pk",
                            "bitmap index scan on mucscaleroomlog_room_id");
                }
                case MARIADB, MYSQL -> {
                    String[] lines = plan.split("\n");
                    String[] header = lines[0].split(" \\| ");
                    String[] row = lines[1].split(" \\| ");
                    String typeCol = row[indexOf(header, "type")];
                    String key = row[indexOf(header, "key")];
                    assertThat(typeCol).as(p[0] + ": access type").isIn("range", "ref", "eq_ref", "const");
                    assertThat(key).as(p[0] + ": index").isIn("PRIMARY", "mucscaleRoomLog_room_id");
                }
                default -> assertThat(plan.toLowerCase()).as(p[0]).contains("access=index pred")
                        .containsPattern("index=mucscaleroomlog_(pk|room_id)\\s+start conditions=\\[\\s+equal arg_left=\\["
                                + "\\s+column: public.mucscaleroomlog.roomjid");
            }
        }
    }

    private static int indexOf(String[] header, String name) {
        for (int i = 0; i < header.length; i++) {
            if (header[i].trim().equalsIgnoreCase(name)) {
                return i;
            }
        }
        throw new AssertionError("no column " + name);
    }

    private static List<String> ids(ArchivePage p) {
        return p.records().stream().map(RoomLogRecord::stanzaId).toList();
    }

    private static String[] ids(int... n) {
        String[] out = new String[n.length];
        for (int i = 0; i < n.length; i++) {
            out[i] = message(ROOM, n[i]).stanzaId();
        }
        return out;
    }
}
