package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.mucscale.engine.store.StoreTestSupport.record;
import static org.mucscale.engine.store.StoreTestSupport.storedIds;
import static org.mucscale.engine.store.StoreTestSupport.waitFor;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.port.Clock;

/**
 * A room thread's wait for a write-ahead append is bounded (issue 18, item 3): when the write-ahead flusher does not
 * answer (held before its next write, as on a disk that hangs in fsync) the wait ends after the timeout, or at once
 * when the waiting thread is interrupted at stop, with REJECTED; the appends of others are still stored, and an
 * append whose wait ended before it was written is withdrawn. Real HSQLDB file database, real write-ahead files.
 */
class WriteAheadWaitTest {
    @TempDir
    Path dir;
    Hsql db;
    RoomLogStore store;
    final CountDownLatch disk = new CountDownLatch(1);

    @BeforeEach
    void open() throws Exception {
        db = Hsql.embedded(dir);
        SchemaInstaller.install(db.dataSource, DatabaseType.HSQLDB);
        store = new RoomLogStore(db.dataSource, DatabaseType.HSQLDB, StoreConfig.defaults(dir.resolve("spill"))
                .withBatching(16, Duration.ofMillis(5)).withDurability(DurabilityMode.WRITE_AHEAD_LOG),
                Clock.SYSTEM, StoreListener.NONE, true);
        store.start();
    }

    @AfterEach
    void close() {
        disk.countDown();
        store.close();
        db.close();
    }

    /** The flusher takes {@code first} into its group and then waits for {@link #disk}. */
    private CompletableFuture<OfferResult> holdTheDiskBehind(RoomLogRecord first) throws Exception {
        store.writer().holdWriteAheadForTest(disk);
        CompletableFuture<OfferResult> taken = store.appendDurable(first);
        // give the flusher time to take it (it polls its queue every millisecond while idle)
        Thread.sleep(50);
        assertThat(taken).isNotDone();
        return taken;
    }

    @Test
    void appendDurableWithin_diskHangs_endsAfterTheTimeout_rejected_andWithdrawsTheAppend() throws Exception {
        CompletableFuture<OfferResult> taken = holdTheDiskBehind(record("a@muc", 1));
        OfferResult result = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> store.appendDurableWithin(record("b@muc", 2), 200));
        assertThat(result).isEqualTo(OfferResult.REJECTED);
        assertThat(store.writer().durableTimeouts()).isEqualTo(1);

        disk.countDown();
        assertThat(taken.get()).isEqualTo(OfferResult.QUEUED);
        // later appends pass again; the withdrawn one never reaches the log, the one already taken does
        assertThat(store.appendDurableWithin(record("c@muc", 3), 10_000)).isEqualTo(OfferResult.QUEUED);
        waitFor("a and c stored", Duration.ofSeconds(10),
                () -> storedIds(db.dataSource).containsAll(java.util.List.of("id-a@muc-1", "id-c@muc-3")));
        assertThat(store.writer().awaitIdle(10_000)).isTrue();
        assertThat(storedIds(db.dataSource)).doesNotContain("id-b@muc-2");
    }

    @Test
    void appendDurableWithin_interruptedAtStop_returnsAtOnce_keepsTheInterrupt_andLosesNoQueuedRecord() throws Exception {
        CompletableFuture<OfferResult> taken = holdTheDiskBehind(record("a@muc", 1));
        // another room's append queued behind the hung write, waiting as a room thread would
        CompletableFuture<OfferResult> queued = store.appendDurable(record("c@muc", 3));
        AtomicReference<OfferResult> result = new AtomicReference<>();
        AtomicBoolean interruptKept = new AtomicBoolean();
        Thread roomThread = new Thread(() -> {
            result.set(store.appendDurableWithin(record("b@muc", 2), 600_000));
            interruptKept.set(Thread.currentThread().isInterrupted());
        }, "test-room-thread");
        roomThread.start();
        Thread.sleep(50);
        roomThread.interrupt(); // what MucService.stop does to a room thread that does not end in time
        roomThread.join(30_000);
        assertThat(roomThread.isAlive()).as("the wait ended at the interrupt").isFalse();
        assertThat(result.get()).isEqualTo(OfferResult.REJECTED);
        assertThat(interruptKept.get()).isTrue();

        disk.countDown();
        store.close(); // the write-ahead log writes what waits before it closes (stored, or spilled for the next start)
        assertThat(taken.get().accepted()).isTrue();
        assertThat(queued.get().accepted()).isTrue();
        store = new RoomLogStore(db.dataSource, DatabaseType.HSQLDB, StoreConfig.defaults(dir.resolve("spill"))
                .withDurability(DurabilityMode.WRITE_AHEAD_LOG), Clock.SYSTEM, StoreListener.NONE, true);
        store.start();
        waitFor("a and c stored after the restart", Duration.ofSeconds(20),
                () -> storedIds(db.dataSource).containsAll(java.util.List.of("id-a@muc-1", "id-c@muc-3")));
        assertThat(store.writer().awaitIdle(10_000)).isTrue();
        assertThat(storedIds(db.dataSource)).doesNotContain("id-b@muc-2");
    }

    @Test
    void writeAheadTimeout_outOfRange_isRefusedNamingKeyAndRange() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Settings.fromText(StoreSettings.ALL,
                        java.util.Map.of("mucscale.store.write-ahead-timeout", "0")))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("mucscale.store.write-ahead-timeout");
        assertThat(Settings.defaults(StoreSettings.ALL).get(StoreSettings.WRITE_AHEAD_TIMEOUT))
                .isEqualTo(Duration.ofSeconds(5));
    }
}
