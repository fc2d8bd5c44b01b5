package org.mucscale.engine.store;

import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.mucscale.testkit.PostgresServer;

/** The import inside one PostgreSQL database, as the plugin runs it against an Openfire on PostgreSQL. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenfireLogImportPostgresTest extends OpenfireLogImportContract {
    PostgresServer.Database db;
    HikariDataSource pool;

    @BeforeAll
    void startServer() {
        db = PostgresServer.shared().newDatabase(getClass().getSimpleName());
        pool = StandaloneDataSource.create(db.jdbcUrl(), db.user(), db.password(), 4);
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
        return DatabaseType.POSTGRESQL;
    }

    @Override
    String textType() {
        return "TEXT";
    }

    @Override
    String idType() {
        return "INTEGER";
    }
}
