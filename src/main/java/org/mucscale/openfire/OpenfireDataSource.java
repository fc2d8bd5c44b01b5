package org.mucscale.openfire;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jivesoftware.database.DbConnectionManager;
import org.mucscale.engine.store.DatabaseType;

/**
 * Openfire's connection pool ({@link DbConnectionManager}) as a plain {@link DataSource} for the engine's room log
 * store, so the store needs no Openfire types. Connections come from Openfire's pool with auto-commit on; closing one
 * returns it to the pool. The store manages its own transactions on them.
 */
public final class OpenfireDataSource implements DataSource {

    private int loginTimeoutSeconds;

    @Override
    public Connection getConnection() throws SQLException {
        return DbConnectionManager.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("Openfire's pool has its own credentials");
    }

    /** The engine's name for Openfire's database type; refused (with the supported list) when there is no script. */
    public static DatabaseType databaseType() {
        return DatabaseType.fromOpenfireName(DbConnectionManager.getDatabaseType().name());
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        // Openfire logs through slf4j
    }

    @Override
    public void setLoginTimeout(int seconds) {
        this.loginTimeoutSeconds = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeoutSeconds;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("Openfire logs through slf4j");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("not a wrapper for " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }
}
