package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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

    /** The command line, on the same two embedded databases (each opened by URL, as an operator would). */
    @Test
    void commandLine_importsTheNamedRoom_andRefusesBadArgumentsWithUsage() throws Exception {
        room(1, 10, "lobby");
        room(1, 11, "guild");
        log(10, 1, "u@" + DOMAIN + "/r", "nick", T0, "welcome", "hello \uD83D\uDC4B",
                stanza("lobby", "nick", "hi", "s1"));
        log(11, 2, "u@" + DOMAIN + "/r", "nick", T0, null, "not this one", null);
        String sourceUrl = "jdbc:hsqldb:file:" + dir.resolve("openfire").resolve("db/mucscale") + ";hsqldb.tx=mvcc";
        String targetUrl = "jdbc:hsqldb:file:" + dir.resolve("mucscale").resolve("db/mucscale") + ";hsqldb.tx=mvcc";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = OpenfireLogImportCli.run(new String[] {"--source-url", sourceUrl, "--source-user", "SA",
            "--target-url", targetUrl, "--target-user", "SA", "--domain", DOMAIN, "--to-service", "chat",
            "--room", "lobby"}, Map.of(), print(out), print(err));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("1 rooms, 1 rows read, 1 inserted, 0 already present,"
                + " 0 skipped");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("room lobby@conference." + DOMAIN + " -> lobby@chat."
                + DOMAIN);
        assertThat(new RoomLogReader(target(), targetType(), null).history("lobby@chat." + DOMAIN, 10, 0))
                .extracting(RoomLogRecord::stanzaId, RoomLogRecord::subject, RoomLogRecord::body)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("s1", "welcome", "hello \uD83D\uDC4B"));

        err.reset();
        assertThat(OpenfireLogImportCli.run(new String[] {"--source-url", sourceUrl, "--target-url", targetUrl,
            "--domain", DOMAIN}, Map.of(), print(out), print(err))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("to-service (the mucscale subdomain) is required")
                .contains("usage: mucscale-import-openfire-log");
        err.reset();
        assertThat(OpenfireLogImportCli.run(new String[] {"--source-url", "jdbc:oracle:thin:@x", "--target-url",
            targetUrl, "--domain", DOMAIN, "--to-service", "chat"}, Map.of(), print(out), print(err))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("jdbc:oracle:thin:@x");
        err.reset();
        assertThat(OpenfireLogImportCli.run(new String[] {"--source-url", sourceUrl, "--source-user", "SA",
            "--target-url", targetUrl, "--target-user", "SA", "--domain", DOMAIN, "--to-service", "chat",
            "--room", "nosuch"}, Map.of(), print(out), print(err))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no room nosuch");
    }

    private static PrintStream print(ByteArrayOutputStream bytes) {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }
}
