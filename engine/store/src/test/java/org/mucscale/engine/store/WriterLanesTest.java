package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mucscale.engine.store.StoreTestSupport.counts;
import static org.mucscale.engine.store.StoreTestSupport.record;
import static org.mucscale.engine.store.StoreTestSupport.waitFor;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.port.Clock;
import org.mucscale.testkit.MariaDbServer;

/**
 * The writer's parallel lanes (mucscale.store.writer-connections) on a real MariaDB through mysql-connector-j:
 * batches really are written side by side, a stuck batch does not hold the others, and reads never miss a record
 * while it moves from the queue into a lane and on into the table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WriterLanesTest {
    @TempDir
    Path dir;
    MariaDbServer.Database db;
    HikariDataSource pool;
    RoomLogStore store;
    final StoreTestSupport.CountingListener listener = new StoreTestSupport.CountingListener();

    @BeforeAll
    void startServer() {
        db = MariaDbServer.shared().newDatabase(getClass().getSimpleName());
        pool = StandaloneDataSource.create(db.jdbcUrl(), db.user(), db.password(), 6);
    }

    @AfterAll
    void stopServer() {
        pool.close();
        db.close();
    }

    @BeforeEach
    void freshSchema() throws Exception {
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS mucscaleRoomLog, mucscaleDeadLetter, mucscaleRoom, mucscaleRoomConfig,"
                    + " mucscaleAffiliation, mucscaleReview, mucscaleAdminAudit, ofVersion");
        }
        SchemaInstaller.install(pool, DatabaseType.MARIADB);
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
            store = null;
        }
    }

    private RoomLogStore open(int lanes, int batchSize) throws Exception {
        StoreConfig config = StoreConfig.defaults(dir.resolve("spill")).withRetryBackoff(20, 200)
                .withDrainTimeoutMs(10_000).withBatching(batchSize, Duration.ofMillis(20)).withWriterConnections(lanes);
        store = new RoomLogStore(pool, DatabaseType.MARIADB, config, Clock.SYSTEM, listener, false);
        store.start();
        return store;
    }

    @Test
    void lanes_oneBatchBlockedByARowLock_laterBatchesOfOtherRoomsCommitMeanwhile_thenEveryRowOnce() throws Exception {
        // Rows that bound the locked key range: 'b@muc' is locked up to the first 'c@muc' row, 'x@muc' lies beyond.
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute("INSERT INTO mucscaleRoomLog (stanzaId, roomJid, logTime, senderNick) VALUES"
                    + " ('seed-b', 'b@muc', 1, 'n'), ('seed-c', 'c@muc', 1, 'n')");
        }
        open(2, 100);
        try (Connection locker = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password())) {
            locker.setAutoCommit(false);
            try (Statement st = locker.createStatement()) {
                st.executeQuery("SELECT * FROM mucscaleRoomLog WHERE roomJid = 'b@muc' FOR UPDATE").close();
            }
            for (int i = 0; i < 100; i++) {
                store.offer(record("b@muc", i)); // one full batch: a lane takes it and waits on the lock
            }
            waitFor("the b batch in flight", Duration.ofSeconds(10), () -> store.writer().queueDepth() == 0);
            for (int i = 0; i < 300; i++) {
                store.offer(record("x@muc", i));
            }
            // The other lane writes every later batch while the first one waits.
            waitFor("x rows committed beside the blocked batch", Duration.ofSeconds(20),
                    () -> roomCount("x@muc") == 300);
            assertThat(roomCount("b@muc")).isEqualTo(1); // only the seed row: the b batch is still waiting
            assertThat(store.history("b@muc", 1_000, 0)).hasSize(101); // its rows are readable while in flight
            locker.rollback();
        }
        assertThat(store.writer().awaitIdle(30_000)).isTrue();
        assertThat(roomCount("b@muc")).isEqualTo(101);
        assertThat(counts(pool)).containsExactly(402, 402);
    }

    @Test
    void history_whileThreeLanesCommitInParallel_neverMissesARecordOfferedBeforeTheRead() throws Exception {
        open(3, 50);
        String[] rooms = {"r0@muc", "r1@muc", "r2@muc", "r3@muc"};
        int perRoom = 3_000;
        AtomicInteger[] offered = new AtomicInteger[rooms.length];
        for (int r = 0; r < rooms.length; r++) {
            offered[r] = new AtomicInteger();
        }
        AtomicReference<String> missing = new AtomicReference<>();
        AtomicInteger reads = new AtomicInteger();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        Thread producer = new Thread(() -> {
            for (int i = 0; i < perRoom; i++) {
                for (int r = 0; r < rooms.length; r++) {
                    store.offer(record(rooms[r], i));
                    offered[r].set(i + 1);
                }
                if (i % 100 == 99) {
                    // let a read start in between (bounded): reads and commits must interleave however fast either is
                    int next = reads.get() + 1;
                    while (reads.get() < next && System.nanoTime() < deadline) {
                        java.util.concurrent.locks.LockSupport.parkNanos(200_000);
                    }
                }
            }
        }, "lanes-test-producer");
        producer.start();
        while ((producer.isAlive() || store.writer().queueDepth() > 0) && missing.get() == null
                && System.nanoTime() < deadline) {
            int r = reads.getAndIncrement() % rooms.length;
            int before = offered[r].get();
            Set<String> seen = new HashSet<>();
            for (RoomLogRecord rec : store.reader().between(rooms[r], 0, Long.MAX_VALUE, 1_000_000)) {
                seen.add(rec.stanzaId());
            }
            for (int i = 0; i < before; i++) {
                String id = record(rooms[r], i).stanzaId();
                if (!seen.contains(id)) {
                    missing.set(id + " (offered before read " + reads.get() + ")");
                    break;
                }
            }
        }
        producer.join(60_000);
        assertThat(missing.get()).isNull();
        assertThat(reads.get()).isGreaterThan(10);
        assertThat(store.writer().awaitIdle(30_000)).isTrue();
        assertThat(counts(pool)).containsExactly((long) perRoom * rooms.length, (long) perRoom * rooms.length);
        // Read back in time order per room however the batches committed.
        List<RoomLogRecord> all = store.reader().between("r2@muc", 0, Long.MAX_VALUE, 1_000_000);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < perRoom; i++) {
            expected.add(record("r2@muc", i).stanzaId());
        }
        assertThat(all).extracting(RoomLogRecord::stanzaId).containsExactlyElementsOf(expected);
    }

    @Test
    void close_withThreeLanesAndAFullQueue_drainsEveryRecordOnce() throws Exception {
        open(3, 100);
        for (int i = 0; i < 20_000; i++) {
            store.offer(record("d" + (i % 5) + "@muc", i));
        }
        store.close();
        store = null;
        assertThat(counts(pool)).containsExactly(20_000L, 20_000L);
        assertThat(listener.spilled.get()).isZero();
    }

    @Test
    void config_writerConnectionsOutOfRangeOrNotBelowThePoolSize_isRefusedNamingTheKeys() {
        assertThatThrownBy(() -> Settings.fromText(StoreSettings.ALL,
                Map.of("mucscale.store.writer-connections", "0")))
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("mucscale.store.writer-connections");
        assertThatThrownBy(() -> Settings.fromText(StoreSettings.ALL,
                Map.of("mucscale.store.writer-connections", "17")))
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("mucscale.store.writer-connections");
        Settings tooSmallPool = Settings.fromText(StoreSettings.ALL, Map.of("mucscale.store.writer-connections", "4",
                "mucscale.store.pool-size", "4", "mucscale.store.jdbc-url", "jdbc:hsqldb:mem:lanes"));
        assertThatThrownBy(() -> StandaloneDataSource.create(tooSmallPool))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("mucscale.store.pool-size must exceed mucscale.store.writer-connections (4)");
        assertThat(StoreConfig.from(Settings.defaults(StoreSettings.ALL)).writerConnections()).isEqualTo(3);
    }

    private long roomCount(String room) throws Exception {
        return store.reader().count(room);
    }
}
