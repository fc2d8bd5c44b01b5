package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.mucscale.testkit.MariaDbServer;

/**
 * Archive (XEP-0313) query throughput and latency on MariaDB, off by default. One command:
 * <pre>
 * mvn -B -ntp -o -pl engine/store -am -Dmucscale.bench=true -Dtest=ArchiveQueryBenchmark \
 *     -Dsurefire.failIfNoSpecifiedTests=false test
 * </pre>
 * A room with 1,000,000 logged messages (and a room with 1,000 as the baseline, in the same run and database): pages
 * of 50 after a random message (a client catching up: RSM after, no count) from 2 threads, as the service's archive
 * threads would run them, for 20 s each; then the first page with its count (a COUNT over the whole room).
 */
@EnabledIfSystemProperty(named = "mucscale.bench", matches = "true")
class ArchiveQueryBenchmark {
    static final int BIG = 1_000_000;
    static final int SMALL = 1_000;
    static final int THREADS = 2;
    static final long SECONDS = 20;

    @Test
    void pageOf50_fromARoomWithAMillionMessages() throws Exception {
        try (MariaDbServer db = MariaDbServer.startNew();
             HikariDataSource pool = StandaloneDataSource.create(db.mariadbJdbcUrl(), db.user(), db.password(),
                     THREADS + 1)) {
            SchemaInstaller.install(pool, DatabaseType.MARIADB);
            long t0 = System.nanoTime();
            fill(pool, "big@muc", BIG);
            fill(pool, "small@muc", SMALL);
            System.out.printf("filled %,d + %,d rows in %.1f s%n", BIG, SMALL, (System.nanoTime() - t0) / 1e9);
            RoomLogReader reader = new RoomLogReader(pool, DatabaseType.MARIADB, null);
            run(reader, "small@muc", SMALL, 5); // warm-up
            run(reader, "big@muc", BIG, 5);
            double[] small = run(reader, "small@muc", SMALL, SECONDS);
            double[] big = run(reader, "big@muc", BIG, SECONDS);
            System.out.printf("page of 50 after a random id, %d threads, %d s each:%n", THREADS, SECONDS);
            System.out.printf("  room of %,9d: %8.0f queries/s, p50 %.2f ms, p99 %.2f ms%n", SMALL, small[0], small[1],
                    small[2]);
            System.out.printf("  room of %,9d: %8.0f queries/s, p50 %.2f ms, p99 %.2f ms%n", BIG, big[0], big[1],
                    big[2]);
            System.out.printf("  ratio 1M/1k: throughput %.2f, p99 %.2f%n", big[0] / small[0], big[2] / small[2]);
            long[] counted = new long[5];
            for (int i = 0; i < counted.length; i++) {
                long s = System.nanoTime();
                ArchivePage p = reader.archive("big@muc", ArchiveRequest.firstPage(50));
                counted[i] = System.nanoTime() - s;
                assertThat(p.count()).isEqualTo(BIG);
            }
            Arrays.sort(counted);
            System.out.printf("  first page with count over %,d rows: median %.1f ms (5 runs)%n", BIG,
                    counted[2] / 1e6);
        }
    }

    private static void fill(HikariDataSource pool, String room, int n) throws Exception {
        RoomLogSql sql = new RoomLogSql(DatabaseType.MARIADB);
        RoomLogRecord[] batch = new RoomLogRecord[1000];
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < n; i += batch.length) {
                int k = Math.min(batch.length, n - i);
                for (int j = 0; j < k; j++) {
                    batch[j] = message(room, i + j);
                }
                sql.insert(c, batch, 0, k);
                c.commit();
            }
            c.setAutoCommit(true);
            try (var s = c.createStatement()) {
                s.execute("ANALYZE TABLE mucscaleRoomLog");
            }
        }
    }

    static RoomLogRecord message(String room, int n) {
        return new RoomLogRecord(id(room, n), room, 1_700_000_000_000L + n / 3, "nick" + (n % 50),
                "user" + (n % 50) + "@example.org/r", "archived message number " + n + " with some ordinary text",
                null, null, null);
    }

    static String id(String room, int n) {
        return String.format("%s-%09d", room.substring(0, 3), n);
    }

    /** {queries/s, p50 ms, p99 ms} of pages of 50 after a random message, THREADS threads for {@code seconds}. */
    private static double[] run(RoomLogReader reader, String room, int size, long seconds) throws Exception {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        List<long[]> perThread = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        AtomicLong failures = new AtomicLong();
        for (int t = 0; t < THREADS; t++) {
            long[] lat = new long[4_000_000];
            long[] n = new long[1];
            perThread.add(n);
            perThread.add(lat);
            Thread th = new Thread(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                while (System.nanoTime() < end && n[0] < lat.length) {
                    String after = id(room, r.nextInt(size - 60));
                    long s = System.nanoTime();
                    try {
                        ArchivePage p = reader.archive(room, new ArchiveRequest(Long.MIN_VALUE, Long.MAX_VALUE, null,
                                null, null, after, null, false, null, 50, false));
                        if (p.records().size() != 50) {
                            failures.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failures.incrementAndGet();
                    }
                    lat[(int) n[0]++] = System.nanoTime() - s;
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        assertThat(failures.get()).isZero();
        long total = 0;
        for (int i = 0; i < perThread.size(); i += 2) {
            total += perThread.get(i)[0];
        }
        long[] all = new long[(int) total];
        int k = 0;
        for (int i = 0; i < perThread.size(); i += 2) {
            long n = perThread.get(i)[0];
            System.arraycopy(perThread.get(i + 1), 0, all, k, (int) n);
            k += (int) n;
        }
        Arrays.sort(all);
        return new double[] {total / (double) seconds, all[all.length / 2] / 1e6, all[(int) (all.length * 0.99)] / 1e6};
    }
}
