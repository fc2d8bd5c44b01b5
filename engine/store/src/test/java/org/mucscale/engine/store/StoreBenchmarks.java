package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.port.Clock;
import org.mucscale.testkit.MariaDbServer;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * The store's benchmarks, off by default. One command runs them (see docs/benchmarks/store.md):
 * <pre>
 * mvn -B -ntp -q -pl engine/store -am -Dmucscale.build.suffix=-store -Dmucscale.bench=true \
 *     -Dtest=StoreBenchmarks -Dsurefire.failIfNoSpecifiedTests=false verify
 * </pre>
 * Results are printed to the test output (target-store/surefire-reports/...StoreBenchmarks-output.txt).
 */
@EnabledIfSystemProperty(named = "mucscale.bench", matches = "true")
class StoreBenchmarks {
    @TempDir
    java.nio.file.Path dir;

    /** JMH: enqueue cost and allocation, against baselines in the same run. */
    @Test
    void enqueue_jmh_under200NsAndNoAllocationBeyondTheRecord() throws Exception {
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                .include(EnqueueBenchmark.class.getName())
                .forks(1).warmupIterations(3).warmupTime(org.openjdk.jmh.runner.options.TimeValue.seconds(1))
                .measurementIterations(5).measurementTime(org.openjdk.jmh.runner.options.TimeValue.seconds(1))
                .addProfiler("gc")
                .jvmArgs("-Xms1g", "-Xmx1g")
                .build()).run();
        double offerNs = 0;
        double offerBytes = -1;
        double allocBytes = -2;
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            var secondary = r.getSecondaryResults();
            var norm = secondary.containsKey("gc.alloc.rate.norm") ? secondary.get("gc.alloc.rate.norm")
                    : secondary.get("\u00b7gc.alloc.rate.norm");
            double bytes = norm.getScore();
            System.out.printf("%-60s %8.1f ns/op %8.1f B/op%n", name, r.getPrimaryResult().getScore(), bytes);
            if (name.endsWith("writerOffer")) {
                offerNs = r.getPrimaryResult().getScore();
                offerBytes = bytes;
            } else if (name.endsWith("recordAllocationOnly")) {
                allocBytes = bytes;
            }
        }
        assertThat(offerNs).isLessThanOrEqualTo(200);
        assertThat(offerBytes).isCloseTo(allocBytes, org.assertj.core.data.Offset.offset(2.0));
    }

    /** Sustained load into MariaDB (mysql-connector-j): one writer vs row-by-row inserts, same run, same server. */
    @Test
    void sustainedLoad_mariaDb_atLeast100kRowsPerSecondAnd20TimesRowByRow() throws Exception {
        try (MariaDbServer db = MariaDbServer.startNew();
             HikariDataSource pool = StandaloneDataSource.create(db.jdbcUrl(), db.user(), db.password(), 4)) {
            SchemaInstaller.install(pool, DatabaseType.MARIADB);
            String body = "hello everyone, this is a typical chat message of some sixty chars";

            // Baseline: one INSERT and one commit per message (what a naive logger does), for 10 s.
            RoomLogSql sql = new RoomLogSql(DatabaseType.MARIADB);
            long rowByRow = 0;
            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(10);
            try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(sql.singleRowSql())) {
                while (System.nanoTime() < end) {
                    RoomLogSql.bind(ps, 1, new RoomLogRecord("rbr-" + rowByRow, "base@muc", rowByRow, "alice",
                            "alice@example.org/phone", body, null, null, null));
                    ps.executeUpdate();
                    rowByRow++;
                }
            }
            double rowByRowPerSecond = rowByRow / ((System.nanoTime() - start) / 1e9);

            // The writer: one thread, default batch size (500), fed as fast as its queue allows.
            AtomicLong batchNanos = new AtomicLong();
            AtomicLong batchCount = new AtomicLong();
            StoreListener listener = new StoreListener() {
                @Override
                public void batchCommitted(int rows, long nanos) {
                    batchNanos.addAndGet(nanos);
                    batchCount.incrementAndGet();
                }
            };
            StoreConfig config = StoreConfig.defaults(dir.resolve("spill"))
                    .withQueue(200_000, OverflowPolicy.REJECT_WITH_ERROR);
            int total = 2_000_000;
            long writerStart;
            long writerNanos;
            try (RoomLogStore store = new RoomLogStore(pool, DatabaseType.MARIADB, config, Clock.SYSTEM, listener,
                    false)) {
                store.start();
                writerStart = System.nanoTime();
                String[] rooms = new String[100];
                for (int i = 0; i < rooms.length; i++) {
                    rooms[i] = "room" + i + "@conference.example.org";
                }
                for (int i = 0; i < total; i++) {
                    while (store.writer().queueDepth() > 190_000) {
                        Thread.onSpinWait();
                    }
                    OfferResult r = store.offer(new RoomLogRecord("w-" + i, rooms[i % rooms.length], i, "alice",
                            "alice@example.org/phone", body, null, null, null));
                    assertThat(r).isEqualTo(OfferResult.QUEUED);
                }
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
                while (store.stats().committed() < total && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                writerNanos = System.nanoTime() - writerStart;
                assertThat(store.stats().committed()).isEqualTo(total);
            }
            double writerPerSecond = total / (writerNanos / 1e9);
            double ratio = writerPerSecond / rowByRowPerSecond;
            System.out.printf("row-by-row (autocommit, 1 INSERT per message): %,d rows in 10 s = %,.0f rows/s%n",
                    rowByRow, rowByRowPerSecond);
            System.out.printf("writer (batch 500, multi-row INSERT, 1 tx per batch): %,d rows in %.1f s = %,.0f rows/s"
                    + " (%d batches, mean commit %.2f ms)%n", total, writerNanos / 1e9, writerPerSecond,
                    batchCount.get(), batchNanos.get() / 1e6 / Math.max(1, batchCount.get()));
            System.out.printf("ratio writer / row-by-row: %.1fx%n", ratio);
            assertThat(writerPerSecond).isGreaterThanOrEqualTo(100_000);
            assertThat(ratio).isGreaterThanOrEqualTo(20);
            Duration.ofNanos(writerNanos);
        }
    }
}
