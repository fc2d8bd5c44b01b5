package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mucscale.engine.store.StoreTestSupport.body;
import static org.mucscale.engine.store.StoreTestSupport.counts;
import static org.mucscale.engine.store.StoreTestSupport.deadLetterCount;
import static org.mucscale.engine.store.StoreTestSupport.record;
import static org.mucscale.engine.store.StoreTestSupport.storedIds;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.port.Clock;
import org.mucscale.engine.store.StoreTestSupport.CountingListener;

/**
 * What every supported database must do, run against a real server per subclass: schema install, bad rows stored or
 * parked without losing their batch, an outage mid-stream ending with every message stored exactly once, a writer
 * restart mid-stream losing nothing, reads, retention and persistent rooms.
 */
abstract class DatabaseContractTest {
    private static final String[] TABLES = {"mucscaleRoomLog", "mucscaleDeadLetter", "mucscaleAffiliation",
        "mucscaleRoomConfig", "mucscaleRoom", "mucscaleReview", "mucscaleAdminAudit"};
    @TempDir
    Path dir;
    RoomLogStore store;
    // Test instances live per class (one server per class), so the listener is renewed per test.
    CountingListener listener;

    abstract DataSource dataSource();

    abstract DatabaseType type();

    abstract void stopDatabase() throws Exception;

    abstract void startDatabase() throws Exception;

    /** How long the outage test keeps the database down. */
    abstract Duration outage();

    @BeforeEach
    void cleanTables() throws Exception {
        listener = new CountingListener();
        SchemaInstaller.install(dataSource(), type());
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            for (String t : TABLES) {
                s.execute("DELETE FROM " + t);
            }
        }
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    StoreConfig config() {
        return StoreConfig.defaults(dir.resolve("spill")).withRetryBackoff(50, 1_000).withDrainTimeoutMs(10_000);
    }

    RoomLogStore open(StoreConfig config) throws Exception {
        RoomLogStore s = new RoomLogStore(dataSource(), type(), config, Clock.SYSTEM, listener, true);
        s.start();
        return s;
    }

    @Test
    void badRows_surrogatesEmojiLargeBodiesAndTooLongIds_areStoredOrParkedWithoutLosingTheirBatch() throws Exception {
        store = open(config().withBatching(500, Duration.ofMillis(100)));
        String emoji = "party \uD83C\uDF89 \uD83D\uDE00 done";
        String large = "0123456789abcdef".repeat(100 * 1024 / 16);
        List<RoomLogRecord> bad = List.of(
                RoomLogRecord.message("lone-high", "a@muc", 1L, "n", null, "broken \uD800 text"),
                RoomLogRecord.message("lone-low", "a@muc", 2L, "n\uDC00", null, "x"),
                RoomLogRecord.message("emoji", "a@muc", 3L, "\uD83D\uDE00", "u@example.org/r", emoji),
                RoomLogRecord.message("large", "a@muc", 4L, "n", null, large),
                new RoomLogRecord("full", "a@muc", 5L, "n", null, large, "subject \uD83C\uDF89", "MASKED",
                        "<message>" + large + "</message>"),
                RoomLogRecord.message("i".repeat(300), "a@muc", 6L, "n", null, "too long id"));
        List<RoomLogRecord> all = new ArrayList<>();
        for (int i = 0; i < 494; i++) {
            all.add(record("a@muc", i));
            if (i % 80 == 0 && i / 80 < bad.size()) {
                all.add(bad.get(i / 80));
            }
        }
        assertThat(all).hasSize(500);
        for (RoomLogRecord r : all) {
            assertThat(store.offer(r)).isEqualTo(OfferResult.QUEUED);
        }
        assertThat(store.writer().awaitIdle(30_000)).isTrue();
        long stored = counts(dataSource())[0];
        long parked = deadLetterCount(dataSource());
        assertThat(stored + parked).as("every record is stored or parked").isEqualTo(500);
        assertThat(storedIds(dataSource())).as("good rows all stored")
                .containsAll(all.stream().filter(r -> r.stanzaId().startsWith("id-")).map(RoomLogRecord::stanzaId)
                        .toList())
                .contains("emoji", "large", "full").doesNotContain("i".repeat(300));
        assertThat(body(dataSource(), "emoji")).isEqualTo(emoji);
        assertThat(body(dataSource(), "large")).isEqualTo(large);
        assertThat(store.history("a@muc", 1000, 0)).filteredOn(r -> r.stanzaId().equals("full")).singleElement()
                .satisfies(r -> {
                    assertThat(r.subject()).isEqualTo("subject \uD83C\uDF89");
                    assertThat(r.filterAction()).isEqualTo("MASKED");
                    assertThat(r.stanza()).hasSize(large.length() + 19);
                });
        assertThat(store.stats().deadLettered()).isEqualTo(parked).isGreaterThanOrEqualTo(1);
    }

    /** The row of a message as stored: body, subject, filterAction, stanza; null when there is none. */
    private String[] row(String stanzaId) throws SQLException {
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT body, subject, filterAction, stanza FROM mucscaleRoomLog WHERE stanzaId = ?")) {
            ps.setString(1, stanzaId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)}
                        : null;
            }
        }
    }

    @Test
    void retract_storedMessage_bodyAndSubjectGoneFromTheRowAndTombstoneKept() throws Exception {
        store = open(config().withBatching(10, Duration.ofMillis(20)));
        store.offer(new RoomLogRecord("keep", "r@muc", 1L, "a", "a@x/r", "stays", null, "PASS", null));
        store.offer(new RoomLogRecord("gone", "r@muc", 2L, "b", "b@x/r", "abusive words", "abusive subject",
                "PASS", "<message><body>abusive words</body></message>"));
        assertThat(store.writer().awaitIdle(30_000)).isTrue();
        assertThat(store.retract("r@muc", "gone", r -> "<message from='r@muc/" + r.senderNick() + "'/>"))
                .isEqualTo(RoomLogRetractions.Outcome.RETRACTED);
        assertThat(row("gone")).containsExactly(null, null, "RETRACTED", "<message from='r@muc/b'/>");
        assertThat(row("keep")[0]).isEqualTo("stays");
        assertThat(store.retract("r@muc", "gone", r -> "x")).isEqualTo(RoomLogRetractions.Outcome.ALREADY_RETRACTED);
        assertThat(store.retract("r@muc", "nope", r -> "x")).isEqualTo(RoomLogRetractions.Outcome.NOT_FOUND);
        assertThat(store.retract("other@muc", "keep", r -> "x")).as("another room's message")
                .isEqualTo(RoomLogRetractions.Outcome.NOT_FOUND);
        assertThat(store.writer().retractions().waiting()).isZero();
    }

    @Test
    void retract_queuedMessage_bodyNeverStoredAndReadersSeeTheTombstone() throws Exception {
        store = open(config().withBatching(1000, Duration.ofMinutes(10))); // stays queued until close
        store.offer(new RoomLogRecord("q", "r@muc", 5L, "b", null, "queued abuse", null, "PASS", null));
        assertThat(store.retract("r@muc", "q", r -> "<tomb/>")).isEqualTo(RoomLogRetractions.Outcome.RETRACTED);
        assertThat(row("q")).as("not written yet").isNull();
        assertThat(store.history("r@muc", 10, 0)).singleElement().satisfies(r -> {
            assertThat(r.body()).isNull();
            assertThat(r.filterAction()).isEqualTo("RETRACTED");
            assertThat(r.stanza()).isEqualTo("<tomb/>");
        });
        store.close(); // drains the queue
        store = null;
        assertThat(row("q")).containsExactly(null, null, "RETRACTED", "<tomb/>");
    }

    @Test
    void retract_racingTheInsertOfEveryMessage_leavesNoBodyInTheDatabase() throws Exception {
        store = open(config().withBatching(7, Duration.ofMillis(1)));
        int n = 300;
        java.util.concurrent.ExecutorService retractor = java.util.concurrent.Executors.newFixedThreadPool(4);
        List<java.util.concurrent.Future<RoomLogRetractions.Outcome>> outcomes = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                RoomLogRecord r = record("race@muc", i);
                store.offer(r);
                outcomes.add(retractor.submit(() -> store.retract("race@muc", r.stanzaId(), x -> "<t/>")));
            }
            for (var f : outcomes) {
                assertThat(f.get(120, java.util.concurrent.TimeUnit.SECONDS))
                        .isEqualTo(RoomLogRetractions.Outcome.RETRACTED);
            }
        } finally {
            retractor.shutdownNow();
        }
        assertThat(store.writer().awaitIdle(60_000)).isTrue();
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*), COUNT(body), SUM(CASE WHEN filterAction = 'RETRACTED'"
                     + " THEN 1 ELSE 0 END) FROM mucscaleRoomLog WHERE roomJid = 'race@muc'")) {
            rs.next();
            assertThat(new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)}).containsExactly(n, 0, n);
        }
        assertThat(store.writer().retractions().waiting()).isZero();
    }

    @Test
    void review_flaggedMessageQueuedWithItsRow_retractionOrDismissalTakesItOut() throws Exception {
        store = open(config().withBatching(10, Duration.ofMillis(20)));
        store.offer(new RoomLogRecord("clean", "r@muc", 1L, "a", null, "hello", null, null, null));
        store.offer(new RoomLogRecord("f1", "r@muc", 2L, "b", "b@x/r", "you zorblax", null, "FLAG", null)
                .forReview("zorblax"));
        store.offer(new RoomLogRecord("f2", "r@muc", 3L, "c", null, "zorblax again", null, "FLAG", null)
                .forReview("zorblax"));
        store.offer(new RoomLogRecord("f3", "s@muc", 4L, "d", null, "elsewhere zorblax", null, "FLAG", null)
                .forReview("zorblax, quux"));
        assertThat(store.writer().awaitIdle(30_000)).isTrue();
        assertThat(store.review().waiting(null, 10)).extracting(ReviewQueue.Entry::stanzaId)
                .containsExactly("f1", "f2", "f3");
        assertThat(store.review().waiting("r@muc", 10)).first().satisfies(e -> {
            assertThat(e.body()).isEqualTo("you zorblax");
            assertThat(e.terms()).isEqualTo("zorblax");
            assertThat(e.senderNick()).isEqualTo("b");
            assertThat(e.senderJid()).isEqualTo("b@x/r");
            assertThat(e.logTimeMillis()).isEqualTo(2L);
        });
        assertThat(store.retract("r@muc", "f1", r -> "<t/>")).isEqualTo(RoomLogRetractions.Outcome.RETRACTED);
        assertThat(store.review().remove("r@muc", "f2")).isTrue();
        assertThat(store.review().remove("r@muc", "f2")).isFalse();
        assertThat(store.review().waiting(null, 10)).extracting(ReviewQueue.Entry::stanzaId).containsExactly("f3");
        assertThat(row("f2")[0]).as("dismissed: the message stays in the log").isEqualTo("zorblax again");
    }

    @Test
    void review_flaggedMessageRetractedWhileQueued_neverReachesTheReviewTable() throws Exception {
        store = open(config().withBatching(1000, Duration.ofMinutes(10)));
        store.offer(new RoomLogRecord("fq", "r@muc", 2L, "b", null, "you zorblax", null, "FLAG", null)
                .forReview("zorblax"));
        assertThat(store.retract("r@muc", "fq", r -> "<t/>")).isEqualTo(RoomLogRetractions.Outcome.RETRACTED);
        store.close();
        store = null;
        assertThat(row("fq")[0]).isNull();
        assertThat(new ReviewQueue(dataSource(), type()).waiting(null, 10)).isEmpty();
    }

    @Test
    void review_terms_distinctCommaSeparatedAndCutToTheColumn() {
        assertThat(ReviewQueue.terms(List.of("a", "b", "a", " ", "c"))).isEqualTo("a, b, c");
        assertThat(ReviewQueue.terms(List.of("x".repeat(1500), "y".repeat(600)))).hasSize(1500);
    }

    @Test
    void outage_databaseStoppedMidStream_everyMessageStoredExactlyOnceAfterRecovery() throws Exception {
        long ratePerSecond = 400;
        // The queue must overflow during the outage whatever the writer holds in flight (one batch per connection):
        // half of what the outage produces, plus 3 x 100 in flight, stays below it.
        int capacity = (int) Math.min(2_000, ratePerSecond * outage().toMillis() / 1000 / 2);
        store = open(config().withBatching(100, Duration.ofMillis(100))
                .withQueue(capacity, OverflowPolicy.SPILL_TO_DISK));
        AtomicInteger produced = new AtomicInteger();
        Duration before = Duration.ofSeconds(2);
        Duration after = Duration.ofSeconds(3);
        Thread producer = new Thread(() -> {
            long start = System.nanoTime();
            long total = (before.plus(outage()).plus(after).toMillis() * ratePerSecond) / 1000;
            for (int i = 0; i < total; i++) {
                long due = start + i * 1_000_000_000L / ratePerSecond;
                while (System.nanoTime() < due) {
                    Thread.onSpinWait();
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                OfferResult r = store.offer(record("outage@muc", i));
                assertThat(r.accepted()).isTrue();
                produced.incrementAndGet();
            }
        }, "test-producer");
        producer.start();
        Thread.sleep(before.toMillis());
        stopDatabase();
        Thread.sleep(outage().toMillis());
        startDatabase();
        producer.join(after.toMillis() + 60_000);
        assertThat(store.writer().awaitIdle(120_000)).as("writer caught up: %s", store.stats()).isTrue();
        int n = produced.get();
        assertThat(counts(dataSource())).containsExactly(n, n);
        Set<String> ids = storedIds(dataSource());
        for (int i = 0; i < n; i++) {
            assertThat(ids).contains(record("outage@muc", i).stanzaId());
        }
        StoreStats stats = store.stats();
        assertThat(stats.retries()).isPositive();
        assertThat(stats.spilled()).as("queue of %d overflowed during the outage", capacity).isPositive();
        assertThat(stats.deadLettered()).isZero();
    }

    @Test
    void restart_writerClosedAndReopenedMidStream_losesNothing() throws Exception {
        StoreConfig config = config().withBatching(100, Duration.ofMillis(200));
        store = open(config);
        int total = 3_000;
        for (int i = 0; i < total; i++) {
            if (i == 1_000) {
                RoomLogStore old = store;
                old.close();
                // Messages racing with the shutdown reach the closed store: spilled, replayed by the next one.
                for (int k = 0; k < 50; k++) {
                    assertThat(old.offer(record("restart@muc", i++))).isEqualTo(OfferResult.SPILLED);
                }
                store = open(config);
            }
            assertThat(store.offer(record("restart@muc", i)).accepted()).isTrue();
        }
        assertThat(store.writer().awaitIdle(60_000)).isTrue();
        assertThat(counts(dataSource())).containsExactly(total, total);
    }

    @Test
    void upgrade_version1TableWithRows_keepsEveryRowAndIgnoresReinserts() throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            for (String t : TABLES) {
                s.execute("DROP TABLE " + t);
            }
            s.execute("DELETE FROM ofVersion WHERE name = 'mucscale'");
            // the version 1 install script as released (a copy from git history in src/test/resources)
            SchemaInstaller.runScript(c, "schema-v1/mucscale_" + type().openfireName() + ".sql");
        }
        assertThat(SchemaInstaller.installedVersion(dataSource())).isEqualTo(1);
        long sameMs = 1_700_000_000_500L;
        List<RoomLogRecord> rows = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            rows.add(record(i % 3 == 0 ? "up-a@muc" : "up-b@muc", i));
        }
        // same millisecond, inserted out of id order (logId order c, a, b): version 2 reads them back a, b, c
        rows.add(new RoomLogRecord("up-same-c", "up-a@muc", sameMs, "n", "u@example.org/r", "c \uD83C\uDF89",
                "subject", "MASKED", "<message/>"));
        rows.add(RoomLogRecord.message("up-same-a", "up-a@muc", sameMs, "n", null, "a"));
        rows.add(RoomLogRecord.message("up-same-b", "up-a@muc", sameMs, "n", null, null));
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO mucscaleRoomLog (" + RoomLogSql.COLUMNS
                     + ") VALUES (?,?,?,?,?,?,?,?,?)")) {
            c.setAutoCommit(true);
            for (RoomLogRecord r : rows) {
                RoomLogSql.bind(ps, 1, r);
                ps.executeUpdate();
            }
        }

        assertThat(SchemaInstaller.install(dataSource(), type())).as("version found before").isEqualTo(1);

        assertThat(SchemaInstaller.installedVersion(dataSource())).isEqualTo(SchemaInstaller.LATEST_VERSION)
                .isEqualTo(4);
        assertThat(allRows()).as("every row kept, every column intact").containsExactlyInAnyOrderElementsOf(rows);
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.executeQuery("SELECT logId FROM mucscaleRoomLog").close())
                    .isInstanceOf(SQLException.class);
        }
        // a replayed batch (every record again, plus one new) is ignored on the new key
        RoomLogRecord fresh = RoomLogRecord.message("up-new", "up-b@muc", sameMs, "n", null, "new");
        List<RoomLogRecord> replay = new ArrayList<>(rows);
        replay.add(fresh);
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            new RoomLogSql(type()).insert(c, replay.toArray(new RoomLogRecord[0]), 0, replay.size());
            c.commit();
        }
        assertThat(counts(dataSource())).containsExactly(rows.size() + 1, rows.size() + 1);
        RoomLogReader reader = new RoomLogReader(dataSource(), type(), null);
        assertThat(reader.history("up-a@muc", 3, sameMs)).extracting(RoomLogRecord::stanzaId)
                .containsExactly("up-same-a", "up-same-b", "up-same-c");
        assertThat(reader.between("up-a@muc", 0, Long.MAX_VALUE, 1_000)).extracting(RoomLogRecord::logTimeMillis)
                .hasSize(103).isSorted();
    }

    @Test
    void upgrade_version2TableWithRows_keepsEveryRowAndAddsTheStanzaIdIndexAndReviewTable() throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            for (String t : TABLES) {
                s.execute("DROP TABLE " + t);
            }
            s.execute("DELETE FROM ofVersion WHERE name = 'mucscale'");
            // the version 2 install script as released (a copy in src/test/resources)
            SchemaInstaller.runScript(c, "schema-v2/mucscale_" + type().openfireName() + ".sql");
        }
        assertThat(SchemaInstaller.installedVersion(dataSource())).isEqualTo(2);
        assertThat(roomLogIndexColumns()).as("no stanza id index in version 2").doesNotContainKey("roomlog_room_id");
        List<RoomLogRecord> rows = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            rows.add(record("v2-room@muc", i));
        }
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            new RoomLogSql(type()).insert(c, rows.toArray(new RoomLogRecord[0]), 0, rows.size());
            c.commit();
        }

        assertThat(SchemaInstaller.install(dataSource(), type())).as("version found before").isEqualTo(2);

        assertThat(SchemaInstaller.installedVersion(dataSource())).isEqualTo(4);
        assertThat(allRows()).as("every row kept").containsExactlyInAnyOrderElementsOf(rows);
        assertThat(roomLogIndexColumns()).containsEntry("roomlog_room_id", List.of("roomjid", "stanzaid"));
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.execute("INSERT INTO mucscaleReview (stanzaId, roomJid, logTime, senderNick, senderJid, body, terms)"
                    + " VALUES ('r1', 'v2-room@muc', 1, 'n', NULL, 'b', 'x')");
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM mucscaleReview")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(1);
            }
        }
    }

    @Test
    void upgrade_version3WithRows_keepsThemAndAddsTheAuditTrail() throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            for (String t : TABLES) {
                s.execute("DROP TABLE " + t);
            }
            s.execute("DELETE FROM ofVersion WHERE name = 'mucscale'");
            // the version 3 install script as released (a copy in src/test/resources)
            SchemaInstaller.runScript(c, "schema-v3/mucscale_" + type().openfireName() + ".sql");
        }
        assertThat(SchemaInstaller.installedVersion(dataSource())).isEqualTo(3);
        List<RoomLogRecord> rows = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            rows.add(record("v3-room@muc", i));
        }
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            new RoomLogSql(type()).insert(c, rows.toArray(new RoomLogRecord[0]), 0, rows.size());
            c.commit();
        }

        assertThat(SchemaInstaller.install(dataSource(), type())).as("version found before").isEqualTo(3);

        assertThat(SchemaInstaller.installedVersion(dataSource())).isEqualTo(4);
        assertThat(allRows()).as("every row kept").containsExactlyInAnyOrderElementsOf(rows);
        AdminAuditLog audit = new AdminAuditLog(dataSource());
        audit.append(new AdminAuditLog.Row(1_000, "admin:admin", "127.0.0.1", "POST", "/plugins/mucscale/v1/chatrooms",
                201, null));
        audit.append(new AdminAuditLog.Row(2_000, "shared-secret", "::1", "DELETE",
                "/plugins/mucscale/v1/chatrooms/" + "r".repeat(3_000), 404, "no room \uD83C\uDF89 " + "m".repeat(3_000)));
        List<AdminAuditLog.Row> newest = audit.newest(10);
        assertThat(newest).extracting(AdminAuditLog.Row::status).containsExactly(404, 201);
        assertThat(newest.get(0).path()).hasSize(2_000).startsWith("/plugins/mucscale/v1/chatrooms/rrr");
        assertThat(newest.get(0).message()).hasSize(2_000).startsWith("no room \uD83C\uDF89 m");
        assertThat(newest.get(1).message()).isNull();
        assertThat(newest.get(1).who()).isEqualTo("admin:admin");
        assertThat(audit.newest(1)).hasSize(1);
    }

    /** The room log's secondary indexes by lower-case name (without the table prefix), with their columns in order. */
    private Map<String, List<String>> roomLogIndexColumns() throws SQLException {
        Map<String, List<String>> out = new java.util.TreeMap<>();
        try (Connection c = dataSource().getConnection()) {
            for (String table : new String[] {"mucscaleRoomLog", "MUCSCALEROOMLOG", "mucscaleroomlog"}) {
                try (ResultSet rs = c.getMetaData().getIndexInfo(null, null, table, false, false)) {
                    while (rs.next()) {
                        String name = rs.getString("INDEX_NAME");
                        String column = rs.getString("COLUMN_NAME");
                        if (name == null || column == null || !name.toLowerCase().startsWith("mucscaleroomlog_room_id")) {
                            continue;
                        }
                        List<String> cols = out.computeIfAbsent("roomlog_room_id", k -> new ArrayList<>());
                        int pos = rs.getInt("ORDINAL_POSITION");
                        while (cols.size() < pos) {
                            cols.add(null);
                        }
                        cols.set(pos - 1, column.toLowerCase());
                    }
                }
                if (!out.isEmpty()) {
                    break;
                }
            }
        }
        return out;
    }

    @Test
    void history_sameMillisecondRowsAndQueuedRecords_interleaveByStanzaIdAsOnceStored() throws Exception {
        long t = 1_700_000_000_700L;
        RoomLogRecord[] stored = {RoomLogRecord.message("mix-1", "mix@muc", t, "n", null, "1"),
            RoomLogRecord.message("mix-3", "mix@muc", t, "n", null, "3")};
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            new RoomLogSql(type()).insert(c, stored, 0, stored.length);
            c.commit();
        }
        // a writer that is never started keeps what it is offered queued: the records a lookup merges in
        RoomLogWriter queued = new RoomLogWriter(dataSource(), type(), config(), Clock.SYSTEM, listener);
        try {
            for (String id : new String[] {"mix-4", "mix-0", "mix-3", "mix-2"}) {
                assertThat(queued.offer(RoomLogRecord.message(id, "mix@muc", t, "n", null, id)))
                        .isEqualTo(OfferResult.QUEUED);
            }
            RoomLogReader reader = new RoomLogReader(dataSource(), type(), queued);
            assertThat(reader.history("mix@muc", 4, 0)).extracting(RoomLogRecord::stanzaId)
                    .containsExactly("mix-1", "mix-2", "mix-3", "mix-4");
            assertThat(reader.between("mix@muc", t, t + 1, 10)).extracting(RoomLogRecord::stanzaId)
                    .containsExactly("mix-0", "mix-1", "mix-2", "mix-3", "mix-4");
        } finally {
            queued.close();
        }
        assertThat(new RoomLogReader(dataSource(), type(), null).between("mix@muc", t, t + 1, 10))
                .as("drained on close, the duplicate ignored").extracting(RoomLogRecord::stanzaId)
                .containsExactly("mix-0", "mix-1", "mix-2", "mix-3", "mix-4");
    }

    private List<RoomLogRecord> allRows() throws SQLException {
        List<RoomLogRecord> out = new ArrayList<>();
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT " + RoomLogSql.COLUMNS + " FROM mucscaleRoomLog")) {
            while (rs.next()) {
                out.add(new RoomLogRecord(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4),
                        rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9)));
            }
        }
        return out;
    }

    @Test
    void historyAndPurgeAndRooms_onThisDatabase_work() throws Exception {
        store = open(config().withBatching(50, Duration.ofMillis(20)).withRetention(0, 0, 1_000, 9));
        for (int i = 0; i < 60; i++) {
            store.offer(record("h@muc", i));
            if (i < 12) {
                store.offer(record("h2@muc", i));
            }
        }
        assertThat(store.writer().awaitIdle(10_000)).isTrue();
        assertThat(store.history("h@muc", 5, 0)).extracting(RoomLogRecord::stanzaId)
                .containsExactly("id-h@muc-55", "id-h@muc-56", "id-h@muc-57", "id-h@muc-58", "id-h@muc-59");
        // messages within one millisecond come back in stanza-id order (send order for ids of one service run),
        // whatever order they reached the table in, oldest first, neither reversed nor by arrival
        for (int i : new int[] {2, 0, 3, 1}) {
            store.offer(RoomLogRecord.message("same-ms-" + i, "t@muc", 1_700_000_000_100L, "nick", null, "m" + i));
        }
        assertThat(store.writer().awaitIdle(10_000)).isTrue();
        assertThat(store.history("t@muc", 3, 0)).extracting(RoomLogRecord::stanzaId)
                .containsExactly("same-ms-1", "same-ms-2", "same-ms-3");
        assertThat(store.reader().between("t@muc", 0, Long.MAX_VALUE, 3)).extracting(RoomLogRecord::stanzaId)
                .containsExactly("same-ms-0", "same-ms-1", "same-ms-2");
        assertThat(store.purger().purgeBeyondCount(20)).isEqualTo(40);
        // by age, room by room: h@muc keeps 50..59 of its 20, h2@muc (all older) loses its 12, t@muc is newer
        assertThat(store.purger().purgeOlderThan(record("h@muc", 50).logTimeMillis())).isEqualTo(10 + 12);
        assertThat(store.reader().count("h@muc")).isEqualTo(10);
        assertThat(store.reader().count("h2@muc")).isZero();
        assertThat(store.reader().count("t@muc")).isEqualTo(4);
        store.rooms().saveRoom("r@muc", Map.of("name", "R \uD83C\uDF89"));
        store.rooms().setAffiliation("r@muc", "a@example.org", "owner", null);
        assertThat(store.rooms().loadRoom("r@muc").orElseThrow().config()).containsEntry("name", "R \uD83C\uDF89");
    }

    // archive queries (XEP-0313), kept in ArchiveContract

    @Test
    void archive_paging10000MessagesForwardAndBackward_noGapNoDuplicateQueuedIncluded() throws Exception {
        ArchiveContract.pagingBothWays(dataSource(), type(), config());
    }

    @Test
    void archive_boundsWithAndIds_selectExactlyTheirMessagesAndUnknownIdsAreRefused() throws Exception {
        ArchiveContract.boundsAndIds(dataSource(), type());
    }

    @Test
    void archive_queryPlans_walkTheRoomsKeyNotTheTable() throws Exception {
        ArchiveContract.plansUseTheKey(dataSource(), type());
    }
}
