package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.mucscale.engine.port.Clock;
import org.mucscale.testkit.ProcessRunner;

/** HSQLDB as a network server (so it can be taken away and brought back), the database Openfire embeds. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HsqldbServerTest extends DatabaseContractTest {
    Path dbDir;
    Hsql hsql;

    @BeforeAll
    void startServer() throws Exception {
        dbDir = Files.createTempDirectory("mucscale-hsql-");
        hsql = Hsql.networked(dbDir);
    }

    @AfterAll
    void stopServer() {
        hsql.close();
        ProcessRunner.deleteTree(dbDir);
    }

    @Override
    DataSource dataSource() {
        return hsql.dataSource;
    }

    @Override
    DatabaseType type() {
        return DatabaseType.HSQLDB;
    }

    @Override
    void stopDatabase() {
        hsql.stopServer();
    }

    @Override
    void startDatabase() {
        hsql.startServer();
    }

    @Override
    Duration outage() {
        return Duration.ofSeconds(3);
    }

    @Test
    void start_databaseDownAtStart_queuesAndStoresEverythingOnceItIsUp() throws Exception {
        hsql.stopServer();
        try {
            store = new RoomLogStore(dataSource(), type(), config().withBatching(50, Duration.ofMillis(20)),
                    Clock.SYSTEM, listener, false);
            store.start();
            for (int i = 0; i < 120; i++) {
                assertThat(store.offer(StoreTestSupport.record("down@muc", i))).isEqualTo(OfferResult.QUEUED);
            }
            Thread.sleep(500);
            assertThat(store.stats().committed()).isZero();
        } finally {
            hsql.startServer();
        }
        assertThat(store.writer().awaitIdle(30_000)).isTrue();
        assertThat(StoreTestSupport.counts(dataSource())).containsExactly(120, 120);
        assertThat(listener.retries.get()).isPositive();
    }
}
