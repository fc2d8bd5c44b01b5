package org.mucscale.engine.store;

import java.nio.file.Path;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The import from Openfire's embedded database (an HSQLDB file database, as Openfire's {@code embedded-db}) into a
 * standalone mucscale's embedded HSQLDB.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenfireLogImportHsqldbTest extends OpenfireLogImportContract {
    @TempDir
    static Path dir;
    Hsql openfire;
    Hsql mucscale;

    @BeforeAll
    void open() {
        openfire = Hsql.embedded(dir.resolve("openfire"));
        mucscale = Hsql.embedded(dir.resolve("mucscale"));
    }

    @AfterAll
    void close() {
        openfire.close();
        mucscale.close();
    }

    @Override
    DataSource source() {
        return openfire.dataSource;
    }

    @Override
    DataSource target() {
        return mucscale.dataSource;
    }

    @Override
    DatabaseType targetType() {
        return DatabaseType.HSQLDB;
    }

    @Override
    String textType() {
        return "LONGVARCHAR";
    }
}
