package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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

    /**
     * Ids in engine/muc's StanzaIds format (node, base-32 start time, counter zero-padded to 13 base-32 digits; not a
     * dependency of this module, so built here) sort in generation order under the database's default collation, an
     * ICU locale collation (what most PostgreSQL installs default to is locale-aware, where '-' weighs nothing), and
     * the room log's stanzaId column is bytewise ("C") whatever the default.
     */
    @Test
    void stanzaIdOrder_idsOfOneRunUnderDefaultAndLocaleCollations_sortInGenerationOrder() throws Exception {
        String digits = "0123456789abcdefghjkmnpqrstvwxyz";
        List<String> ids = new ArrayList<>();
        for (long n : new long[] {1, 2, 9, 10, 31, 32, 33, 1023, 1024, 1025, 32767, 32768, 1L << 40, Long.MAX_VALUE}) {
            char[] counter = new char[13];
            long v = n;
            for (int i = 12; i >= 0; i--) {
                counter[i] = digits.charAt((int) (v & 31));
                v >>>= 5;
            }
            ids.add("node-1hf0m9k00-" + new String(counter));
        }
        List<String> collations = new ArrayList<>(List.of(""));
        try (Connection c = pool.getConnection(); ResultSet rs = c.createStatement().executeQuery(
                "SELECT collname FROM pg_collation WHERE collname IN ('en-US-x-icu', 'und-x-icu', 'en_US')")) {
            while (rs.next()) {
                collations.add(" COLLATE \"" + rs.getString(1) + "\"");
            }
        }
        assertThat(collations).as("an ICU collation to test against").hasSizeGreaterThan(1);
        try (Connection c = pool.getConnection()) {
            for (String collation : collations) {
                try (PreparedStatement ps = c.prepareStatement(
                        "SELECT id FROM unnest(?::text[]) AS t(id) ORDER BY id" + collation)) {
                    List<String> reversed = new ArrayList<>(ids);
                    java.util.Collections.reverse(reversed);
                    ps.setArray(1, c.createArrayOf("text", reversed.toArray()));
                    List<String> sorted = new ArrayList<>();
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            sorted.add(rs.getString(1));
                        }
                    }
                    assertThat(sorted).as("collation" + collation).isEqualTo(ids);
                }
            }
            try (ResultSet rs = c.createStatement().executeQuery("SELECT collation_name FROM information_schema.columns"
                    + " WHERE table_name = 'mucscaleroomlog' AND column_name = 'stanzaid'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("C");
            }
        }
    }
}
