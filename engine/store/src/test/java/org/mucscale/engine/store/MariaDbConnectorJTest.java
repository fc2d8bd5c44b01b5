package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.engine.store.StoreTestSupport.counts;
import static org.mucscale.engine.store.StoreTestSupport.deadLetterCount;
import static org.mucscale.engine.store.StoreTestSupport.record;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.mucscale.testkit.MariaDbServer;

/** MariaDB through mysql-connector-j (as Openfire's MySQL/MariaDB setups use it), with the full 30 s outage. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbConnectorJTest extends DatabaseContractTest {
    MariaDbServer server;
    HikariDataSource pool;

    @BeforeAll
    void startServer() {
        server = MariaDbServer.startNew();
        pool = StandaloneDataSource.create(server.jdbcUrl(), server.user(), server.password(), 4);
    }

    @AfterAll
    void stopServer() {
        pool.close();
        server.close();
    }

    @Override
    DataSource dataSource() {
        return pool;
    }

    @Override
    DatabaseType type() {
        return DatabaseType.MARIADB;
    }

    @Override
    void stopDatabase() {
        server.stop();
    }

    @Override
    void startDatabase() {
        server.start();
    }

    @Override
    Duration outage() {
        return Duration.ofSeconds(30);
    }

    @Test
    void badRows_emojiIntoUtf8mb3Column_isParkedAndTheRestOfTheBatchStored() throws Exception {
        // A server whose room log was created utf8mb3 (an old default) refuses 4-byte characters (error 1366).
        server.rootSql("ALTER TABLE " + server.database() + ".mucscaleRoomLog MODIFY body MEDIUMTEXT"
                + " CHARACTER SET utf8mb3 COLLATE utf8mb3_bin NULL;");
        try {
            store = open(config().withBatching(300, Duration.ofMillis(50)));
            for (int i = 0; i < 299; i++) {
                store.offer(record("mb3@muc", i));
                if (i == 150) {
                    store.offer(RoomLogRecord.message("emoji-mb3", "mb3@muc", 1L, "n", null, "hi \uD83D\uDE00"));
                }
            }
            assertThat(store.writer().awaitIdle(30_000)).isTrue();
            assertThat(counts(pool)).containsExactly(299, 299);
            assertThat(deadLetterCount(pool)).as(server.rootSql("SELECT deadId, stanzaId, reason FROM "
                    + server.database() + ".mucscaleDeadLetter;")).isEqualTo(1);
            assertThat(listener.deadLettered.get()).isEqualTo(1);
        } finally {
            server.rootSql("ALTER TABLE " + server.database() + ".mucscaleRoomLog MODIFY body MEDIUMTEXT"
                    + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL;");
        }
    }

    @Test
    void badRows_rowLargerThanMaxAllowedPacket_isParkedInTheDeadLetterFileAndTheRestStored() throws Exception {
        server.rootSql("SET GLOBAL max_allowed_packet = 1048576;");
        try (HikariDataSource small = StandaloneDataSource.create(server.jdbcUrl(), server.user(), server.password(),
                2)) {
            store = new RoomLogStore(small, type(), config().withBatching(100, Duration.ofMillis(50)),
                    org.mucscale.engine.port.Clock.SYSTEM, listener, true);
            store.start();
            RoomLogRecord huge = RoomLogRecord.message("huge", "big@muc", 1L, "n", null, "x".repeat(2_000_000));
            for (int i = 0; i < 99; i++) {
                store.offer(record("big@muc", i));
                if (i == 50) {
                    store.offer(huge);
                }
            }
            assertThat(store.writer().awaitIdle(30_000)).isTrue();
            assertThat(counts(small)).containsExactly(99, 99);
            assertThat(listener.deadLettered.get()).isEqualTo(1);
            // The dead-letter row (base64 of 2 MB) does not fit the packet either: it went to the file.
            java.nio.file.Path file = store.writer().deadLetterFile();
            assertThat(java.nio.file.Files.readString(file)).contains("\t");
            String line = java.nio.file.Files.readAllLines(file).get(0);
            RoomLogRecord parked = RecordCodec.fromFrame(java.util.Base64.getDecoder()
                    .decode(line.substring(line.lastIndexOf('\t') + 1)));
            assertThat(parked).isEqualTo(huge);
            store.close();
            store = null;
        } finally {
            server.rootSql("SET GLOBAL max_allowed_packet = 67108864;");
        }
    }

    @Test
    void detect_connectorJOnMariaDb_isMariaDb() throws Exception {
        assertThat(DatabaseType.detect(pool)).isIn(DatabaseType.MARIADB, DatabaseType.MYSQL);
    }
}
