package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.engine.store.StoreTestSupport.counts;
import static org.mucscale.engine.store.StoreTestSupport.storedIds;

import com.zaxxer.hikari.HikariDataSource;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.port.Clock;
import org.mucscale.testkit.MariaDbServer;

/**
 * kill -9 of a JVM running the store in write-ahead mode, mid-stream: every message the process acknowledged (and
 * so would have broadcast) is in the database exactly once after the next start replays the write-ahead log.
 */
class CrashDurabilityTest {
    @TempDir
    Path dir;

    @Test
    void killDashNine_writeAheadMode_losesNoAcknowledgedMessage() throws Exception {
        long t0 = System.nanoTime();
        // the child JVM is what crashes, not the database: a database of its own on the shared server
        try (MariaDbServer.Database db = MariaDbServer.shared().newDatabase("CrashDurabilityTest")) {
            System.err.println("db started ms " + (System.nanoTime() - t0) / 1_000_000);
            Path spill = dir.resolve("spill");
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    CrashChild.class.getName(), db.jdbcUrl(), db.user(), db.password(), spill.toString(), "200000")
                    .redirectError(dir.resolve("child.err").toFile())
                    .start();
            Set<String> acked = new HashSet<>();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                String line;
                while ((line = in.readLine()) != null && System.nanoTime() < deadline) {
                    if (line.startsWith("ACK ")) {
                        acked.add(line.substring(4));
                        if (acked.size() == 5_000) {
                            child.destroyForcibly(); // SIGKILL: no shutdown hook, no drain
                            break;
                        }
                    }
                }
            }
            child.waitFor(30, TimeUnit.SECONDS);
            System.err.println("child killed ms " + (System.nanoTime() - t0) / 1_000_000);
            assertThat(acked).as("child output: %s", Files.exists(dir.resolve("child.err"))
                    ? Files.readString(dir.resolve("child.err")) : "").hasSize(5_000);
            try (var wal = Files.list(spill.resolve("wal"))) {
                assertThat(wal.toList()).as("write-ahead segments left by the killed process").isNotEmpty();
            }

            try (HikariDataSource ds = StandaloneDataSource.create(db.jdbcUrl(), db.user(), db.password(), 4)) {
                long beforeRecovery = counts(ds)[0];
                StoreConfig config = StoreConfig.defaults(spill).withDurability(DurabilityMode.WRITE_AHEAD_LOG);
                try (RoomLogStore store = new RoomLogStore(ds, DatabaseType.MARIADB, config, Clock.SYSTEM,
                        StoreListener.NONE, true)) {
                    store.start();
                    assertThat(store.writer().awaitIdle(60_000)).isTrue();
                    System.err.println("recovered ms " + (System.nanoTime() - t0) / 1_000_000);
                    Set<String> stored = storedIds(ds);
                    assertThat(stored).containsAll(acked);
                    long[] c = counts(ds);
                    assertThat(c[0]).as("no duplicates").isEqualTo(c[1]);
                    assertThat(c[0]).as("recovery added what the crash left uncommitted")
                            .isGreaterThan(beforeRecovery);
                }
                try (var wal = Files.list(spill.resolve("wal"))) {
                    List<Path> left = wal.toList();
                    assertThat(left).as("segments are deleted once committed").isEmpty();
                }
            }
        }
    }
}
