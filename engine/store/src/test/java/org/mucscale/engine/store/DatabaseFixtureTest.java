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

/**
 * The testkit's throwaway servers: real user login, data kept across stop/start, everything gone after close; and the
 * JVM's shared servers: one database and user per class, apart from the others, and a server no test can stop.
 */
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
        try (MariaDbServer.Database db = MariaDbServer.shared().newDatabase("wrongPassword")) {
            assertThatThrownBy(() -> DriverManager.getConnection(db.jdbcUrl(), db.user(), "wrong"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("Access denied");
        }
    }

    @Test
    void mariaDbShared_eachDatabaseItsOwn_otherUsersLockedOut_droppedOnClose_serverNotStoppable() throws Exception {
        MariaDbServer shared = MariaDbServer.shared();
        assertThat(MariaDbServer.shared()).isSameAs(shared);
        try (MariaDbServer.Database a = shared.newDatabase("a"); MariaDbServer.Database b = shared.newDatabase("b")) {
            assertThat(a.database()).isNotEqualTo(b.database());
            roundTrip(a.jdbcUrl(), a.user(), a.password(), "CREATE TABLE t (v VARCHAR(10))");
            roundTrip(b.jdbcUrl(), b.user(), b.password(), "CREATE TABLE t (v VARCHAR(10))");
            assertThat(count(a.mariadbJdbcUrl(), a.user(), a.password())).isEqualTo(1);
            assertThatThrownBy(() -> DriverManager.getConnection(b.jdbcUrl(), a.user(), a.password()))
                    .isInstanceOf(SQLException.class).hasMessageContaining("Access denied");
            b.close();
            assertThat(shared.rootSql("SHOW DATABASES;")).contains(a.database()).doesNotContain(b.database());
        }
        assertThatThrownBy(shared::stop).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(shared::kill).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(shared::close).isInstanceOf(IllegalStateException.class);
        assertThat(shared.isRunning()).isTrue();
    }

    @Test
    void postgresShared_eachDatabaseItsOwn_otherRolesLockedOut_droppedOnClose_serverNotStoppable() throws Exception {
        PostgresServer shared = PostgresServer.shared();
        assertThat(PostgresServer.shared()).isSameAs(shared);
        try (PostgresServer.Database a = shared.newDatabase("a"); PostgresServer.Database b = shared.newDatabase("b")) {
            roundTrip(a.jdbcUrl(), a.user(), a.password(), "CREATE TABLE t (v VARCHAR(10))");
            roundTrip(b.jdbcUrl(), b.user(), b.password(), "CREATE TABLE t (v VARCHAR(10))");
            assertThat(count(a.jdbcUrl(), a.user(), a.password())).isEqualTo(1);
            assertThatThrownBy(() -> DriverManager.getConnection(b.jdbcUrl(), a.user(), a.password()))
                    .isInstanceOf(SQLException.class).hasMessageContaining("permission denied");
            Connection open = DriverManager.getConnection(b.jdbcUrl(), b.user(), b.password());
            b.close(); // drops the database even with a session still open in it
            open.close();
            assertThat(shared.superuserSql("SELECT datname FROM pg_database")).contains(a.database())
                    .doesNotContain(b.database());
        }
        assertThatThrownBy(shared::stop).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(shared::kill).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(shared::close).isInstanceOf(IllegalStateException.class);
        assertThat(shared.isRunning()).isTrue();
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
