package org.mucscale.engine.store;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.mucscale.testkit.PostgresServer;

/** PostgreSQL 15 through pgjdbc. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresTest extends DatabaseContractTest {
    PostgresServer server;
    HikariDataSource pool;

    @BeforeAll
    void startServer() {
        server = PostgresServer.startNew();
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
        return DatabaseType.POSTGRESQL;
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
        return Duration.ofSeconds(5);
    }
}
