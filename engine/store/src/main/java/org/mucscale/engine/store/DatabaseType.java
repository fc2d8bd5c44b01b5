package org.mucscale.engine.store;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;
import org.mucscale.engine.config.InvalidSettingException;

/**
 * The databases the store supports, named as Openfire names them ({@code DbConnectionManager.DatabaseType}), which is
 * also the suffix of the schema script ({@code mucscale_<name>.sql}).
 */
public enum DatabaseType {
    MYSQL("mysql"),
    MARIADB("mariadb"),
    POSTGRESQL("postgresql"),
    HSQLDB("hsqldb");

    private final String openfireName;

    DatabaseType(String openfireName) {
        this.openfireName = openfireName;
    }

    /** Openfire's name for the type, e.g. {@code mariadb}. */
    public String openfireName() {
        return openfireName;
    }

    boolean isMySqlFamily() {
        return this == MYSQL || this == MARIADB;
    }

    /**
     * The type for Openfire's name ({@code DbConnectionManager.getDatabaseType().name()}); any other type is refused
     * with a message listing the supported ones, since there is no schema script for it.
     */
    public static DatabaseType fromOpenfireName(String name) {
        if (name != null) {
            for (DatabaseType t : values()) {
                if (t.openfireName.equalsIgnoreCase(name.trim())) {
                    return t;
                }
            }
        }
        throw new IllegalArgumentException("mucscale store supports databases mysql, mariadb, postgresql and hsqldb,"
                + " not '" + name + "'");
    }

    /**
     * The type a JDBC URL names (how standalone mode finds it, before any connection is made); any other URL is
     * refused naming the key, the value and what is supported.
     */
    public static DatabaseType fromJdbcUrl(String url) {
        if (url != null) {
            if (url.startsWith("jdbc:hsqldb:")) {
                return HSQLDB;
            }
            if (url.startsWith("jdbc:mysql:")) {
                return MYSQL;
            }
            if (url.startsWith("jdbc:mariadb:")) {
                return MARIADB;
            }
            if (url.startsWith("jdbc:postgresql:")) {
                return POSTGRESQL;
            }
        }
        throw new InvalidSettingException(StoreSettings.JDBC_URL.key() + " must be a jdbc:hsqldb:, jdbc:mysql:, "
                + "jdbc:mariadb: or jdbc:postgresql: URL, was '" + url + "'");
    }

    /** Detects the type from a connection's product name (MariaDB behind a jdbc:mysql: URL, for instance). */
    public static DatabaseType detect(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return detect(c.getMetaData());
        }
    }

    static DatabaseType detect(DatabaseMetaData meta) throws SQLException {
        String product = meta.getDatabaseProductName().toLowerCase(Locale.ROOT);
        String version = meta.getDatabaseProductVersion().toLowerCase(Locale.ROOT);
        if (product.contains("mariadb") || (product.contains("mysql") && version.contains("mariadb"))) {
            return MARIADB;
        }
        if (product.contains("mysql")) {
            return MYSQL;
        }
        if (product.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (product.contains("hsql")) {
            return HSQLDB;
        }
        throw new SQLException("mucscale store supports MySQL, MariaDB, PostgreSQL and HSQLDB, not "
                + meta.getDatabaseProductName());
    }
}
