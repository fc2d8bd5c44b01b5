package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.engine.store.StoreTestSupport.counts;
import static org.mucscale.engine.store.StoreTestSupport.record;
import static org.mucscale.engine.store.StoreTestSupport.storedIds;
import static org.mucscale.engine.store.StoreTestSupport.waitFor;

import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.port.Clock;
import org.mucscale.testkit.MariaDbServer;

/**
 * Issue 39: a stop while the database does not answer, on a MariaDB server of its own paused with SIGSTOP (every
 * call on an open connection hangs and no connection drops, as on a stalled disk or a partition), through HikariCP
 * and either driver. {@code close()} returns within the drain timeout plus {@link RoomLogWriter#ABORT_GRACE_MS} (it
 * used to wait another 60 s for the lanes blocked in the database), and nothing is lost or stored twice: what the
 * lanes held and what was queued is in the spill files, and the next start stores each record exactly once, also
 * when some of what the lanes held was committed after all before that start. With mysql-connector-j no lane stays
 * blocked in the paused server (the abort closes the socket at once); MariaDB Connector/J's abort first sends KILL
 * over a new connection, which the paused server does not answer either, so its lanes end only when it answers
 * again: the stop's take-over is what keeps that stop short.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WriterStopPausedDatabaseTest {
    private static final long DRAIN_MS = 1_000;
    private static final int LANES = 3;
    private static final int BATCH = 16;
    private static final int POOL = 6;
    private static final String ROOM = "paused@muc";

    @TempDir
    Path dir;
    MariaDbServer server;

    @BeforeAll
    void startServer() {
        server = MariaDbServer.startNew();
    }

    @AfterAll
    void stopServer() throws Exception {
        if (server != null && server.pid() > 0) {
            signal("-CONT", server.pid());
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void close_whileTheDatabaseIsPaused_mysqlConnectorJ_keepsToTheDrainTimeout_andStoresEveryRecordOnce()
            throws Exception {
        try (MariaDbServer.Database db = server.newDatabase("mysqlcj")) {
            stopWhilePaused(db.jdbcUrl(), db, true);
        }
    }

    @Test
    void close_whileTheDatabaseIsPaused_mariadbConnectorJ_keepsToTheDrainTimeout_andStoresEveryRecordOnce()
            throws Exception {
        try (MariaDbServer.Database db = server.newDatabase("mariadbcj")) {
            stopWhilePaused(db.mariadbJdbcUrl(), db, false);
        }
    }

    private RoomLogStore open(HikariDataSource pool, Path spill, StoreTestSupport.CountingListener listener)
            throws Exception {
        StoreConfig config = StoreConfig.defaults(spill).withDrainTimeoutMs(DRAIN_MS)
                .withRetryBackoff(20, 200).withWriterConnections(LANES)
                // only full batches leave the queue while it runs, so that "every lane holds one" can be seen
                .withBatching(BATCH, Duration.ofSeconds(5));
        RoomLogStore store = new RoomLogStore(pool, DatabaseType.MARIADB, config, Clock.SYSTEM, listener, false);
        store.start();
        return store;
    }

    private void stopWhilePaused(String jdbcUrl, MariaDbServer.Database db, boolean abortEndsTheLanes)
            throws Exception {
        Path spill = dir.resolve(db.database());
        try (HikariDataSource pool = StandaloneDataSource.create(jdbcUrl, db.user(), db.password(), POOL)) {
            // every connection open before the pause: the lanes then block inside the database, not in the pool
            pool.setMinimumIdle(POOL);
            SchemaInstaller.install(pool, DatabaseType.MARIADB);
            stopWhilePaused(pool, spill, abortEndsTheLanes);
        }
    }

    private void stopWhilePaused(HikariDataSource pool, Path spill, boolean abortEndsTheLanes) throws Exception {
        StoreTestSupport.CountingListener listener = new StoreTestSupport.CountingListener();
        RoomLogStore store = open(pool, spill, listener);
        waitFor("a full pool", Duration.ofSeconds(60), () -> pool.getHikariPoolMXBean().getTotalConnections() == POOL);
        long pid = server.pid();
        int offered = 0;
        try {
            // a steady stream, so that the lanes are inside the database when it is paused and stay there
            for (; offered < 600; offered++) {
                store.offer(record(ROOM, offered));
                if (offered == 300) {
                    pause(pid);
                }
                Thread.sleep(1);
            }
            // every lane holds a batch the paused server does not answer; the rest waits in the queue
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (inFlight(store) != LANES * BATCH && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            assertThat(inFlight(store)).as("records in the lanes' batches").isEqualTo(LANES * BATCH);
            assertThat(store.writer().queueDepth()).isPositive();

            long start = System.nanoTime();
            store.close();
            long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(closeMs).as("close() with the database paused, ms (drain timeout %d + grace %d)", DRAIN_MS,
                    RoomLogWriter.ABORT_GRACE_MS).isLessThan(DRAIN_MS + RoomLogWriter.ABORT_GRACE_MS + 1_500);
            if (abortEndsTheLanes) {
                // no lane is left hanging in the server: their calls failed when their connections were aborted
                // (a lane that was waiting in the pool ends when the pool's own 5 s timeout ends that wait)
                waitFor("every writer lane ended", Duration.ofSeconds(10),
                        () -> store.writer().laneThreads().stream().noneMatch(Thread::isAlive));
            }
            assertThat(processState(pid)).as("MariaDB still paused during the whole stop").isEqualTo('T');
        } finally {
            signal("-CONT", pid);
        }
        // a lane that outlived the stop takes and spills nothing more once the server answers again
        waitFor("every writer lane ended", Duration.ofSeconds(30),
                () -> store.writer().laneThreads().stream().noneMatch(Thread::isAlive));

        // nothing lost: every record is in the table or in a spill file (copies of what a lane held may be in both)
        List<RoomLogRecord> spilled = spilledRecords(spill);
        Set<String> all = new HashSet<>();
        for (int i = 0; i < offered; i++) {
            all.add(record(ROOM, i).stanzaId());
        }
        Set<String> found = new HashSet<>(storedIds(pool));
        spilled.forEach(r -> found.add(r.stanzaId()));
        assertThat(found).isEqualTo(all);
        assertThat(spilled.size()).isGreaterThanOrEqualTo(LANES * BATCH);

        // the worst case for duplicates: the batches the lanes held committed after all, before the next start
        // (written here as the lanes would have, so the rows are exactly theirs)
        RoomLogRecord[] committedLate = spilled.subList(0, LANES * BATCH).toArray(new RoomLogRecord[0]);
        try (Connection c = pool.getConnection()) {
            new RoomLogSql(DatabaseType.MARIADB).insert(c, committedLate, 0, committedLate.length);
        }

        // the next start replays the spill files: every record stored, none twice
        StoreTestSupport.CountingListener again = new StoreTestSupport.CountingListener();
        RoomLogStore next = open(pool, spill, again);
        try {
            assertThat(next.writer().awaitIdle(60_000)).isTrue();
            assertThat(again.replayed.get()).isEqualTo(spilled.size());
            assertThat(counts(pool)).containsExactly((long) offered, (long) offered);
            assertThat(storedIds(pool)).isEqualTo(all);
        } finally {
            next.close();
        }
    }

    /** Records in the lanes' batches: pending (queue and batches in flight) minus the queue, once offers stopped. */
    private static int inFlight(RoomLogStore store) {
        List<RoomLogRecord> pending = new ArrayList<>();
        int queued = store.writer().queueDepth();
        store.writer().pendingFor(ROOM, pending);
        return pending.size() - queued;
    }

    private static List<RoomLogRecord> spilledRecords(Path spill) throws IOException {
        List<RoomLogRecord> out = new ArrayList<>();
        try (var files = Files.list(spill)) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith("spill-")).sorted().toList()) {
                out.addAll(SpillFiles.readAll(f));
            }
        }
        return out;
    }

    private static void pause(long pid) throws Exception {
        signal("-STOP", pid);
        // SIGSTOP is asynchronous: wait until the kernel shows the server stopped
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (processState(pid) != 'T' && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(processState(pid)).as("MariaDB paused").isEqualTo('T');
    }

    private static void signal(String sig, long pid) throws Exception {
        Process p = new ProcessBuilder("kill", sig, Long.toString(pid)).inheritIO().start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0).as("kill " + sig + " " + pid).isTrue();
    }

    /** The state letter of /proc/PID/stat: 'T' while stopped by a signal. */
    private static char processState(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }
}
