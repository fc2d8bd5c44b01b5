package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.mucscale.testkit.MariaDbServer;
import org.mucscale.testkit.PostgresServer;

/** The testkit's throwaway servers: real user login, data kept across stop/start, everything gone after close. */
class DatabaseFixtureTest {

    @Test
    void mariaDb_stopThenStart_keepsDataAndAcceptsTheSameUrl() throws Exception {
        Path data;
        try (MariaDbServer db = MariaDbServer.startNew()) {
            data = db.dataDir();
            roundTrip(db.jdbcUrl(), db.user(), db.password(), "CREATE TABLE t (v VARCHAR(10))");
            db.stop();
            assertThatThrownBy(() -> DriverManager.getConnection(db.jdbcUrl() + "?connectTimeout=2000", db.user(),
                    db.password())).isInstanceOf(SQLException.class);
            db.start();
            assertThat(count(db.jdbcUrl(), db.user(), db.password())).isEqualTo(1);
            assertThat(count(db.mariadbJdbcUrl(), db.user(), db.password())).isEqualTo(1);
        }
        assertThat(Files.exists(data)).isFalse();
    }

    @Test
    void postgres_stopThenStart_keepsDataAndAcceptsTheSameUrl() throws Exception {
        Path data;
        try (PostgresServer db = PostgresServer.startNew()) {
            data = db.dataDir();
            roundTrip(db.jdbcUrl(), db.user(), db.password(), "CREATE TABLE t (v VARCHAR(10))");
            db.stop();
            assertThatThrownBy(() -> DriverManager.getConnection(db.jdbcUrl() + "?connectTimeout=2", db.user(),
                    db.password())).isInstanceOf(SQLException.class);
            db.start();
            assertThat(count(db.jdbcUrl(), db.user(), db.password())).isEqualTo(1);
        }
        assertThat(Files.exists(data)).isFalse();
    }

    @Test
    void mariaDb_wrongPassword_isRefused() {
        try (MariaDbServer db = MariaDbServer.startNew()) {
            assertThatThrownBy(() -> DriverManager.getConnection(db.jdbcUrl(), db.user(), "wrong"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("Access denied");
        }
    }

    private static void roundTrip(String url, String user, String password, String ddl) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement()) {
            s.execute(ddl);
            s.execute("INSERT INTO t VALUES ('x')");
        }
    }

    private static int count(String url, String user, String password) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
