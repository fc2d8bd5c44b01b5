package org.mucscale.engine.store;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.mucscale.testkit.MariaDbServer;

/** MariaDB through MariaDB Connector/J, type "mysql" (the MySQL script on a MySQL-compatible server). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbClientTest extends DatabaseContractTest {
    MariaDbServer server;
    HikariDataSource pool;

    @BeforeAll
    void startServer() {
        server = MariaDbServer.startNew();
        pool = StandaloneDataSource.create(server.mariadbJdbcUrl(), server.user(), server.password(), 4);
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
        return DatabaseType.MYSQL;
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
