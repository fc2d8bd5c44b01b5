package org.mucscale.engine.store;

import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.mucscale.testkit.MariaDbServer;

/**
 * The import inside one MariaDB database, as the plugin runs it against Openfire's own database: Openfire's tables
 * (utf8mb4, the server's default collation, as Openfire's MySQL script creates them) and mucscale's side by side.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenfireLogImportMariaDbTest extends OpenfireLogImportContract {
    MariaDbServer.Database db;
    HikariDataSource pool;

    @BeforeAll
    void startServer() {
        db = MariaDbServer.shared().newDatabase(getClass().getSimpleName());
        pool = StandaloneDataSource.create(db.mariadbJdbcUrl(), db.user(), db.password(), 4);
    }

    @AfterAll
    void stopServer() {
        pool.close();
        db.close();
    }

    @Override
    DataSource source() {
        return pool;
    }

    @Override
    DataSource target() {
        return pool;
    }

    @Override
    DatabaseType targetType() {
        return DatabaseType.MARIADB;
    }

    @Override
    String textType() {
        return "TEXT";
    }

    @Override
    String senderType() {
        return "TEXT";
    }
}
