package org.mucscale.engine.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
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
}
