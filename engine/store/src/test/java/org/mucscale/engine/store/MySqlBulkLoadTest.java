package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.engine.store.StoreTestSupport.counts;
import static org.mucscale.engine.store.StoreTestSupport.deadLetterCount;
import static org.mucscale.engine.store.StoreTestSupport.record;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.port.Clock;
import org.mucscale.testkit.MariaDbServer;

/**
 * The LOAD DATA LOCAL fast path against a real MariaDB through mysql-connector-j: text comes back exactly as the
 * INSERT path stores it, a batch with any warning (bad row, duplicate stanza id) is re-run as INSERT so bad rows are
 * parked and nothing is duplicated or mangled, and a connection that refuses LOCAL INFILE falls back to INSERT.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MySqlBulkLoadTest {
    MariaDbServer.Database db;
    HikariDataSource pool;
    RoomLogStore store;
    StoreTestSupport.CountingListener listener;
    @TempDir
    Path dir;

    @BeforeAll
    void startServer() throws Exception {
        db = MariaDbServer.shared().newDatabase(getClass().getSimpleName());
        pool = StandaloneDataSource.create(db.jdbcUrl(), db.user(), db.password(), 4);
        SchemaInstaller.install(pool, DatabaseType.MARIADB);
    }

    @AfterAll
    void stopServer() {
        pool.close();
        db.close();
    }

    @BeforeEach
    void clean() throws Exception {
        listener = new StoreTestSupport.CountingListener();
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute("DELETE FROM mucscaleRoomLog");
            st.execute("DELETE FROM mucscaleDeadLetter");
        }
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
            store = null;
        }
    }

    private RoomLogStore open(HikariDataSource ds, boolean bulk) throws Exception {
        StoreConfig config = StoreConfig.defaults(dir.resolve("spill")).withBatching(500, Duration.ofMillis(50))
                .withMysqlBulkLoad(bulk).withRetryBackoff(10, 100);
        RoomLogStore s = new RoomLogStore(ds, DatabaseType.MARIADB, config, Clock.SYSTEM, listener, true);
        s.start();
        return s;
    }

    @Test
    void bulkLoad_awkwardText_readsBackExactlyAsTheInsertPathStoresIt() throws Exception {
        String[] texts = {"tab\there", "new\nline\r\n", "back\\slash \\N \\t \\", "nul\0byte", "\\N",
                "emoji \uD83C\uDF89 and \u00e9\u4e2d", "lone \uD800 high", "", "quote ' \" ; ,"};
        List<RoomLogRecord> bulkRecords = new ArrayList<>();
        List<RoomLogRecord> insertRecords = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            bulkRecords.add(new RoomLogRecord("bulk-" + i, "t@muc", 100L + i, "nick " + texts[i], texts[i], texts[i],
                    texts[i], i % 2 == 0 ? null : "MASKED", i % 3 == 0 ? null : "<m>" + texts[i] + "</m>"));
            insertRecords.add(new RoomLogRecord("ins-" + i, "u@muc", 100L + i, "nick " + texts[i], texts[i], texts[i],
                    texts[i], i % 2 == 0 ? null : "MASKED", i % 3 == 0 ? null : "<m>" + texts[i] + "</m>"));
        }
        store = open(pool, true);
        bulkRecords.forEach(store::offer);
        assertThat(store.writer().awaitIdle(30_000)).isTrue();
        assertThat(store.writer().bulkLoadActive()).isTrue();
        assertThat(store.writer().bulkLoadFallbacks()).isZero();
        store.close();
        store = open(pool, false);
        insertRecords.forEach(store::offer);
        assertThat(store.writer().awaitIdle(30_000)).isTrue();
        List<RoomLogRecord> viaBulk = store.history("t@muc", 100, 0);
        List<RoomLogRecord> viaInsert = store.history("u@muc", 100, 0);
        assertThat(viaBulk).hasSize(texts.length);
        for (int i = 0; i < texts.length; i++) {
            RoomLogRecord b = viaBulk.get(i);
            RoomLogRecord n = viaInsert.get(i);
            assertThat(new RoomLogRecord("x", "r", b.logTimeMillis(), b.senderNick(), b.senderJid(), b.body(),
                    b.subject(), b.filterAction(), b.stanza())).as("row %d", i)
                    .isEqualTo(new RoomLogRecord("x", "r", n.logTimeMillis(), n.senderNick(), n.senderJid(), n.body(),
                            n.subject(), n.filterAction(), n.stanza()));
        }
        // Everything but the lone surrogate (stored as '?' by both paths) comes back unchanged.
        for (int i = 0; i < texts.length; i++) {
            RoomLogRecord b = viaBulk.get(i);
            if (!texts[i].contains("\uD800")) {
                assertThat(new RoomLogRecord(b.stanzaId(), b.roomJid(), b.logTimeMillis(), b.senderNick(),
                        b.senderJid(), b.body(), b.subject(), b.filterAction(), b.stanza()))
                        .isEqualTo(bulkRecords.get(i));
            }
        }
    }

    @Test
    void bulkLoad_plainMessagesBatch_sixFieldForm_readsBackExactlyWithNullSubjectActionAndStanza() throws Exception {
        String[] texts = {"tab\there", "new\nline\r\n", "back\\slash \\N \\t \\", "nul\0byte", "\\N",
                "emoji \uD83C\uDF89 and \u00e9\u4e2d", "", "quote ' \" ; ,"};
        List<RoomLogRecord> records = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            // Sent newest first: the batch goes in key order, history still reads by time.
            records.add(RoomLogRecord.message("plain-" + i, "v@muc", 200L - i, "nick " + texts[i],
                    i % 2 == 0 ? null : texts[i], texts[i]));
        }
        store = open(pool, true);
        records.forEach(store::offer);
        assertThat(store.writer().awaitIdle(30_000)).isTrue();
        assertThat(store.writer().bulkLoadActive()).isTrue();
        assertThat(store.writer().bulkLoadFallbacks()).isZero();
        List<RoomLogRecord> back = store.history("v@muc", 100, 0);
        List<RoomLogRecord> expected = new ArrayList<>(records);
        java.util.Collections.reverse(expected);
        assertThat(back).containsExactlyElementsOf(expected);
    }

    @Test
    void bulkLoad_batchWithTooLongNickAndDuplicates_fallsBackSoTheBadRowIsParkedAndNothingDuplicates()
            throws Exception {
        store = open(pool, true);
        for (int i = 0; i < 100; i++) {
            store.offer(record("d@muc", i));
        }
        assertThat(store.writer().awaitIdle(30_000)).isTrue();
        assertThat(store.writer().bulkLoadFallbacks()).isZero();
        // Same 100 stanza ids again (a retried batch), plus 99 new ones and one nick longer than VARCHAR(1023):
        // LOAD DATA would skip the duplicates and truncate the nick with warnings, so the batch is re-run as INSERT.
        for (int i = 0; i < 199; i++) {
            store.offer(record("d@muc", i));
            if (i == 150) {
                store.offer(RoomLogRecord.message("long-nick", "d@muc", 1L, "n".repeat(2000), null, "x"));
            }
        }
        assertThat(store.writer().awaitIdle(30_000)).isTrue();
        assertThat(store.writer().bulkLoadFallbacks()).isGreaterThanOrEqualTo(1);
        assertThat(counts(pool)[0]).isEqualTo(199);
        assertThat(deadLetterCount(pool)).isEqualTo(1);
        assertThat(listener.deadLettered.get()).isEqualTo(1);
        assertThat(store.writer().bulkLoadActive()).isTrue();
    }

    @Test
    void bulkLoad_connectionWithoutLocalInfile_usesInsertAndStoresEverything() throws Exception {
        try (HikariDataSource plain = StandaloneDataSource.create(db.jdbcUrl() + "?allowLoadLocalInfile=false",
                db.user(), db.password(), 2)) {
            store = open(plain, true);
            for (int i = 0; i < 700; i++) {
                store.offer(record("p@muc", i));
            }
            assertThat(store.writer().awaitIdle(30_000)).isTrue();
            assertThat(store.writer().bulkLoadActive()).isFalse();
            assertThat(counts(plain)[0]).isEqualTo(700);
            store.close();
            store = null;
        }
    }

    /**
     * A database server can answer any statement with "send me local file X". Through the standalone pool no
     * connection hands over a file (the driver refuses), not before and not after the bulk load switched LOCAL INFILE
     * on for its own statements: the server asking is played by a statement that names a local file, the same
     * request packet whatever prompted it.
     */
    @Test
    void standalonePool_serverAsksForALocalFile_driverRefuses_whileBulkLoadStillWorks() throws Exception {
        Path secret = dir.resolve("secret.txt");
        java.nio.file.Files.writeString(secret, "db-password=hunter2\n");
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS infileProbe (line VARCHAR(200))");
            st.execute("DELETE FROM infileProbe");
        }
        assertThat(fileRequestsServed(secret)).as("before any bulk load").isZero();
        store = open(pool, true);
        for (int i = 0; i < 700; i++) {
            store.offer(record("s@muc", i));
        }
        assertThat(store.writer().awaitIdle(30_000)).isTrue();
        assertThat(store.writer().bulkLoadActive()).isTrue();
        assertThat(counts(pool)[0]).isEqualTo(700);
        assertThat(fileRequestsServed(secret)).as("after bulk loads on every connection").isZero();
        try (Connection c = pool.getConnection(); Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM infileProbe")) {
            rs.next();
            assertThat(rs.getInt(1)).isZero();
        }
    }

    /** Holds every connection of the pool at once and lets the "server" ask each for the file; counts the ones served. */
    private int fileRequestsServed(Path file) throws Exception {
        List<Connection> held = new ArrayList<>();
        int served = 0;
        try {
            for (int i = 0; i < pool.getMaximumPoolSize(); i++) {
                held.add(pool.getConnection());
            }
            for (Connection c : held) {
                try (Statement st = c.createStatement()) {
                    st.execute("LOAD DATA LOCAL INFILE '" + file + "' INTO TABLE infileProbe");
                    served++;
                } catch (java.sql.SQLException refused) {
                    assertThat(refused.getMessage()).containsIgnoringCase("local");
                }
            }
        } finally {
            for (Connection c : held) {
                c.close();
            }
        }
        return served;
    }

    @Test
    void bulkLoad_serverRefusesLocalInfile_usesInsertAndStoresEverything() throws Exception {
        // server-wide, on the JVM's shared server: classes of one JVM run one after the other, and it is put back below
        db.rootSql("SET GLOBAL local_infile = 0");
        try (HikariDataSource fresh = StandaloneDataSource.create(db.jdbcUrl(), db.user(), db.password(),
                2)) {
            store = open(fresh, true);
            for (int i = 0; i < 700; i++) {
                store.offer(record("o@muc", i));
            }
            assertThat(store.writer().awaitIdle(30_000)).isTrue();
            assertThat(store.writer().bulkLoadActive()).isFalse();
            assertThat(counts(fresh)[0]).isEqualTo(700);
            store.close();
            store = null;
        } finally {
            db.rootSql("SET GLOBAL local_infile = 1");
        }
    }

    @Test
    void encode_escapesAndNulls_matchLoadDataFormat() {
        MySqlBulkLoad bulk = new MySqlBulkLoad();
        RoomLogRecord full = new RoomLogRecord("a\tb", "r@muc", -12L, "n\\", null, "x\ny\0\u00e9",
                null, "MASK", null);
        assertThat(bulk.encode(new RoomLogRecord[] {full}, 0, 1)).isFalse();
        assertThat(new String(bulk.encoded(), StandardCharsets.UTF_8))
                .isEqualTo("a\\tb\tr@muc\t-12\tn\\\\\t\\N\tx\\ny\\0\u00e9\t\\N\tMASK\t\\N\n");
    }

    @Test
    void encode_plainMessages_sixFieldsInKeyOrder_anyOtherFieldInTheBatch_nineForAll() {
        MySqlBulkLoad bulk = new MySqlBulkLoad();
        RoomLogRecord b2 = RoomLogRecord.message("s3", "b@muc", 2L, "n", null, "third");
        RoomLogRecord a5 = RoomLogRecord.message("s1", "a@muc", 5L, "n", "u@x/r", "second");
        RoomLogRecord a1 = RoomLogRecord.message("s2", "a@muc", 1L, "n", null, "first");
        RoomLogRecord[] batch = {b2, a5, a1};
        assertThat(bulk.encode(batch, 0, 3)).isTrue();
        assertThat(new String(bulk.encoded(), StandardCharsets.UTF_8)).isEqualTo(
                "s2\ta@muc\t1\tn\t\\N\tfirst\n"
                + "s1\ta@muc\t5\tn\tu@x/r\tsecond\n"
                + "s3\tb@muc\t2\tn\t\\N\tthird\n");
        assertThat(batch).containsExactly(b2, a5, a1); // the caller's batch (readers see it) is left as it was
        RoomLogRecord withSubject = new RoomLogRecord("s4", "a@muc", 3L, "n", null, null, "topic", null, null);
        assertThat(bulk.encode(new RoomLogRecord[] {b2, withSubject}, 0, 2)).isFalse();
        assertThat(new String(bulk.encoded(), StandardCharsets.UTF_8)).isEqualTo(
                "s4\ta@muc\t3\tn\t\\N\t\\N\ttopic\t\\N\t\\N\n"
                + "s3\tb@muc\t2\tn\t\\N\tthird\t\\N\t\\N\t\\N\n");
    }
}
