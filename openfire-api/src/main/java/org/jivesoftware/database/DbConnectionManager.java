package org.jivesoftware.database;

import java.sql.Connection;
import java.sql.SQLException;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.database.DbConnectionManager} (members mucscale uses). */
public class DbConnectionManager {

    public static Connection getConnection() throws SQLException {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public static Connection getTransactionConnection() throws SQLException {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public static void closeConnection(Connection con) { }

    public static DatabaseType getDatabaseType() { return null; }

    public static boolean isEmbeddedDB() { return false; }

    public enum DatabaseType {
        oracle, postgresql, cockroachdb, mysql, mariadb, hsqldb, db2, firebird, sqlserver, interbase, unknown
    }
}
