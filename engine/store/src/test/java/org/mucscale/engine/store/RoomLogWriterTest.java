package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mucscale.engine.store.StoreTestSupport.counts;
import static org.mucscale.engine.store.StoreTestSupport.deadLetterCount;
import static org.mucscale.engine.store.StoreTestSupport.record;
import static org.mucscale.engine.store.StoreTestSupport.waitFor;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.port.Clock;
import org.mucscale.engine.store.StoreTestSupport.CountingListener;

/** The write path, overflow policies, shutdown, dead letters, reads and retention, on a real HSQLDB file database. */
class RoomLogWriterTest {
    @TempDir
    Path dir;
    Hsql db;
    RoomLogStore store;
    final CountingListener listener = new CountingListener();

    @BeforeEach
    void openDatabase() throws Exception {
        db = Hsql.embedded(dir);
        SchemaInstaller.install(db.dataSource, DatabaseType.HSQLDB);
    }

    @AfterEach
    void closeAll() {
        if (store != null) {
            store.close();
        }
        db.close();
    }

    private StoreConfig config() {
        return StoreConfig.defaults(dir.resolve("spill")).withRetryBackoff(20, 200).withDrainTimeoutMs(5_000);
    }

    private RoomLogStore open(StoreConfig config, boolean start) throws Exception {
        store = new RoomLogStore(db.dataSource, DatabaseType.HSQLDB, config, Clock.SYSTEM, listener, true);
        if (start) {
            store.start();
        }
        return store;
    }

    @Test
    void offer_fullBatch_isCommittedWithoutWaitingForTheBatchAge() throws Exception {
        open(config().withBatching(100, Duration.ofMinutes(5)), true);
        for (int i = 0; i < 100; i++) {
            assertThat(store.offer(record("a@muc", i))).isEqualTo(OfferResult.QUEUED);
        }
        waitFor("one full batch committed", Duration.ofSeconds(5), () -> store.stats().committed() == 100);
        assertThat(counts(db.dataSource)[0]).isEqualTo(100);
        assertThat(store.stats().batches()).isEqualTo(1);
        waitFor("latency reported per record", Duration.ofSeconds(5), () -> listener.latencies.get() == 100);
        assertThat(listener.depthSamples.get()).isEqualTo(1);
        assertThat(listener.committedRows.get()).isEqualTo(100);
        assertThat(listener.enqueued.get()).isEqualTo(100);
    }

    @Test
    void offer_partialBatch_waitsForTheBatchAgeThenCommits() throws Exception {
        open(config().withBatching(500, Duration.ofMillis(600)), true);
        long start = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            store.offer(record("a@muc", i));
        }
        Thread.sleep(200);
        assertThat(counts(db.dataSource)[0]).isZero();
        waitFor("partial batch committed", Duration.ofSeconds(5), () -> counts(db.dataSource)[0] == 10);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(600));
    }

    @Test
    void offer_sameStanzaIdAgain_isStoredOnce() throws Exception {
        open(config().withBatching(10, Duration.ofMillis(10)), true);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 25; i++) {
                store.offer(record("a@muc", i));
            }
            assertThat(store.writer().awaitIdle(5_000)).isTrue();
        }
        assertThat(counts(db.dataSource)).containsExactly(25, 25);
        assertThat(store.stats().committed()).isEqualTo(75);
    }

    @Test
    void offer_queueFullWithSpillPolicy_spillsThenReplaysEveryRecordOnce() throws Exception {
        open(config().withBatching(16, Duration.ofMillis(10)).withQueue(16, OverflowPolicy.SPILL_TO_DISK), false);
        int queued = 0;
        int spilled = 0;
        for (int i = 0; i < 100; i++) {
            OfferResult r = store.offer(record("a@muc", i));
            if (r == OfferResult.QUEUED) {
                queued++;
            } else {
                assertThat(r).isEqualTo(OfferResult.SPILLED);
                spilled++;
            }
        }
        assertThat(queued).isEqualTo(16);
        assertThat(spilled).isEqualTo(84);
        assertThat(store.stats().spillPending()).isEqualTo(84);
        store.start();
        assertThat(store.writer().awaitIdle(10_000)).isTrue();
        assertThat(counts(db.dataSource)).containsExactly(100, 100);
        assertThat(listener.spilled.get()).isEqualTo(84);
        assertThat(listener.replayed.get()).isEqualTo(84);
        try (var files = Files.list(dir.resolve("spill"))) {
            assertThat(files.filter(p -> p.getFileName().toString().startsWith("spill-"))).isEmpty();
        }
    }

    @Test
    void offer_queueFullWithRejectPolicy_refusesAndCountsEveryRefusal() throws Exception {
        open(config().withBatching(16, Duration.ofMillis(10)).withQueue(16, OverflowPolicy.REJECT_WITH_ERROR), false);
        int rejected = 0;
        for (int i = 0; i < 100; i++) {
            if (store.offer(record("a@muc", i)) == OfferResult.REJECTED) {
                rejected++;
            }
        }
        assertThat(rejected).isEqualTo(84);
        assertThat(store.stats().rejected()).isEqualTo(84);
        assertThat(listener.rejected.get()).isEqualTo(84);
        assertThat(OfferResult.REJECTED.accepted()).isFalse();
        store.start();
        assertThat(store.writer().awaitIdle(10_000)).isTrue();
        assertThat(counts(db.dataSource)[0]).isEqualTo(16);
    }

    @Test
    void close_withQueuedRecords_drainsThemIntoTheDatabase() throws Exception {
        open(config().withBatching(500, Duration.ofMinutes(5)), true);
        for (int i = 0; i < 1_234; i++) {
            store.offer(record("a@muc", i));
        }
        store.close();
        store = null;
        assertThat(counts(db.dataSource)).containsExactly(1_234, 1_234);
        try (var files = Files.list(dir.resolve("spill"))) {
            assertThat(files.filter(p -> p.getFileName().toString().startsWith("spill-"))
                    .mapToLong(p -> p.toFile().length()).sum()).isZero();
        }
    }

    @Test
    void offer_afterClose_goesToTheSpillFileAndTheNextStartStoresIt() throws Exception {
        open(config(), true);
        store.close();
        assertThat(store.offer(record("a@muc", 1))).isEqualTo(OfferResult.SPILLED);
        store = null;
        open(config(), true);
        assertThat(store.writer().awaitIdle(10_000)).isTrue();
        assertThat(counts(db.dataSource)[0]).isEqualTo(1);
    }

    @Test
    void badRows_tooLongValues_areDeadLetteredAndTheRestOfTheBatchIsStored() throws Exception {
        open(config().withBatching(500, Duration.ofMillis(50)), true);
        RoomLogRecord longId = RoomLogRecord.message("x".repeat(300), "a@muc", 1L, "n", null, "bad id");
        RoomLogRecord longRoom = RoomLogRecord.message("ok-id", "r".repeat(300) + "@muc", 2L, "n", null, "bad room");
        for (int i = 0; i < 498; i++) {
            store.offer(record("a@muc", i));
            if (i == 100) {
                store.offer(longId);
            }
            if (i == 400) {
                store.offer(longRoom);
            }
        }
        assertThat(store.writer().awaitIdle(10_000)).isTrue();
        assertThat(counts(db.dataSource)).containsExactly(498, 498);
        assertThat(deadLetterCount(db.dataSource)).isEqualTo(2);
        assertThat(store.stats().deadLettered()).isEqualTo(2);
        try (Connection c = db.dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT reason, record FROM mucscaleDeadLetter ORDER BY deadId")) {
            // the two bad rows may sit in batches that two lanes write side by side: either can be parked first
            Map<RoomLogRecord, String> reasons = new HashMap<>();
            while (rs.next()) {
                reasons.put(RecordCodec.fromFrame(Base64.getDecoder().decode(rs.getString(2))), rs.getString(1));
            }
            assertThat(reasons).containsKey(longId);
            assertThat(reasons.get(longId)).contains("22001");
        }
    }

    @Test
    void history_queuedMessages_areVisibleBeforeAndAfterCommitWithoutDuplicates() throws Exception {
        open(config().withBatching(500, Duration.ofMillis(800)), true);
        for (int i = 0; i < 5; i++) {
            store.offer(record("a@muc", i));
            store.offer(record("b@muc", i));
        }
        List<RoomLogRecord> before = store.history("a@muc", 3, 0);
        assertThat(counts(db.dataSource)[0]).as("nothing committed yet").isZero();
        assertThat(before).extracting(RoomLogRecord::stanzaId).containsExactly("id-a@muc-2", "id-a@muc-3",
                "id-a@muc-4");
        assertThat(store.writer().awaitIdle(5_000)).isTrue();
        assertThat(store.history("a@muc", 10, 0)).hasSize(5).first().isEqualTo(record("a@muc", 0));
        assertThat(store.reader().between("b@muc", record("b@muc", 1).logTimeMillis(),
                record("b@muc", 3).logTimeMillis(), 100)).extracting(RoomLogRecord::stanzaId)
                .containsExactly("id-b@muc-1", "id-b@muc-2");
    }

    @Test
    void purge_byAgeAndByCountPerRoom_deletesInBatches() throws Exception {
        open(config().withBatching(100, Duration.ofMillis(10)).withRetention(0, 0, 1_000, 7), true);
        for (int i = 0; i < 50; i++) {
            store.offer(record("a@muc", i));
            store.offer(record("b@muc", i));
        }
        assertThat(store.writer().awaitIdle(5_000)).isTrue();
        long cutoff = record("a@muc", 20).logTimeMillis();
        assertThat(store.purger().purgeOlderThan(cutoff)).isEqualTo(40);
        assertThat(store.purger().purgeBeyondCount(10)).isEqualTo(40);
        assertThat(store.reader().count("a@muc")).isEqualTo(10);
        assertThat(store.history("b@muc", 100, 0)).first().isEqualTo(record("b@muc", 40));
    }

    @Test
    void purgeJob_retentionAgeSet_deletesOldRowsOnItsInterval() throws Exception {
        open(config().withBatching(100, Duration.ofMillis(10)).withRetention(60_000, 0, 1_000, 3), true);
        long now = System.currentTimeMillis();
        for (int i = 0; i < 10; i++) {
            store.offer(RoomLogRecord.message("old-" + i, "a@muc", now - 3_600_000L, "n", null, "old"));
            store.offer(RoomLogRecord.message("new-" + i, "a@muc", now, "n", null, "new"));
        }
        assertThat(store.writer().awaitIdle(5_000)).isTrue();
        waitFor("the purge job removed the old rows", Duration.ofSeconds(10), () -> counts(db.dataSource)[0] == 10);
        assertThat(store.history("a@muc", 100, 0)).allSatisfy(r -> assertThat(r.body()).isEqualTo("new"));
    }

    @Test
    void persistentRooms_saveLoadAffiliateDelete_roundTrip() throws Exception {
        open(config(), true);
        PersistentRoomStore rooms = store.rooms();
        rooms.saveRoom("room@muc", Map.of("name", "Room", "moderated", "true"));
        rooms.saveRoom("room@muc", Map.of("name", "Renamed", "members-only", "true"));
        rooms.setAffiliation("room@muc", "alice@example.org", "owner", null);
        rooms.setAffiliation("room@muc", "bob@example.org", "member", "invited");
        rooms.setAffiliation("room@muc", "bob@example.org", "outcast", "spam \uD83D\uDE00");
        var room = rooms.loadRoom("room@muc").orElseThrow();
        assertThat(room.config()).containsExactlyInAnyOrderEntriesOf(Map.of("name", "Renamed", "members-only", "true"));
        assertThat(room.affiliations()).containsExactly(
                new PersistentRoomStore.Affiliation("alice@example.org", "owner", null),
                new PersistentRoomStore.Affiliation("bob@example.org", "outcast", "spam \uD83D\uDE00"));
        assertThat(rooms.loadAll()).hasSize(1);
        assertThat(rooms.removeAffiliation("room@muc", "alice@example.org")).isTrue();
        assertThat(rooms.deleteRoom("room@muc")).isTrue();
        assertThat(rooms.loadRoom("room@muc")).isEmpty();
        assertThatThrownBy(() -> rooms.saveRoom("x".repeat(256), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("roomJid must be 1 to 255");
    }

    @Test
    void appendDurable_writeAheadModeWithQueueOverflow_storesEveryAcknowledgedMessageOnce() throws Exception {
        open(config().withBatching(16, Duration.ofMillis(5)).withQueue(16, OverflowPolicy.SPILL_TO_DISK)
                .withDurability(DurabilityMode.WRITE_AHEAD_LOG), true);
        int perThread = 1_000;
        Thread[] threads = new Thread[4];
        java.util.concurrent.atomic.AtomicInteger acked = new java.util.concurrent.atomic.AtomicInteger();
        for (int t = 0; t < threads.length; t++) {
            String room = "r" + t + "@muc";
            threads[t] = new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    if (store.appendDurable(record(room, i)).join().accepted()) {
                        acked.incrementAndGet();
                    }
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(acked.get()).isEqualTo(4_000);
        assertThat(store.writer().awaitIdle(30_000)).isTrue();
        assertThat(counts(db.dataSource)).containsExactly(4_000, 4_000);
        assertThat(store.stats().spilled()).as("queue of 16 overflowed").isPositive();
        store.close();
        store = null;
        try (var wal = Files.list(dir.resolve("spill").resolve("wal"))) {
            assertThat(wal.toList()).as("every segment deleted once its records were safe").isEmpty();
        }
    }

    @Test
    void appendDurable_batchedMode_isAnOfferWithACompletedFuture() throws Exception {
        open(config(), true);
        var future = store.appendDurable(record("a@muc", 1));
        assertThat(future).isCompletedWithValue(OfferResult.QUEUED);
    }

    @Test
    void schemaInstaller_secondRun_findsTheVersionAndChangesNothing() throws Exception {
        assertThat(SchemaInstaller.install(db.dataSource, DatabaseType.HSQLDB)).isEqualTo(SchemaInstaller.LATEST_VERSION);
        assertThat(SchemaInstaller.installedVersion(db.dataSource)).isEqualTo(SchemaInstaller.LATEST_VERSION);
    }

    @Test
    void config_outOfRangeValues_areRefusedNamingKeyAndRange() {
        assertThatThrownBy(() -> StoreConfig.from(Settings.fromText(StoreSettings.ALL,
                Map.of("mucscale.store.batch-size", "0"))))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("mucscale.store.batch-size must be a whole number between 1 and 10000, was 0");
        assertThatThrownBy(() -> StoreConfig.from(Settings.fromText(StoreSettings.ALL,
                Map.of("mucscale.store.retry-backoff-min", "5000", "mucscale.store.retry-backoff-max", "100"))))
                .hasMessageContaining("mucscale.store.retry-backoff-max must be at least");
        assertThatThrownBy(() -> StoreConfig.from(Settings.fromText(StoreSettings.ALL,
                Map.of("mucscale.store.overflow-policy", "DROP"))))
                .hasMessageContaining("one of [SPILL_TO_DISK, REJECT_WITH_ERROR]");
        StoreConfig operator = StoreConfig.from(Settings.fromText(StoreSettings.ALL,
                Map.of("mucscale.store.max-batch-age", "20s", "mucscale.store.batch-size", "500")));
        assertThat(operator.maxBatchAgeNanos()).isEqualTo(Duration.ofSeconds(20).toNanos());
    }
}
