package org.mucscale.engine.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the Openfire plugin database scripts ({@code database/} at the repository root, on the classpath under
 * {@code mucscale-db/}) the way Openfire's SchemaManager does, for standalone mode where no Openfire runs them:
 * creates {@code ofVersion} when missing, runs the install script when there is no {@code mucscale} row, then every
 * {@code upgrade/N} above the installed version. Inside Openfire this class is not needed (Openfire does the same
 * from plugin.xml's databaseKey/databaseVersion), but running it there is harmless: it finds the current version.
 */
public final class SchemaInstaller {
    /** The schema version the install scripts create; equals plugin.xml's databaseVersion. */
    public static final int LATEST_VERSION = 4;
    static final String DATABASE_KEY = "mucscale";
    static final String RESOURCE_ROOT = "mucscale-db/";

    private static final Logger LOG = LoggerFactory.getLogger(SchemaInstaller.class);

    private SchemaInstaller() {
    }

    /** Brings the schema to {@link #LATEST_VERSION}; returns the version found before (0 when none). */
    public static int install(DataSource dataSource, DatabaseType type) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            ensureVersionTable(c, type);
            int before = installedVersion(c);
            if (before == 0) {
                LOG.info("mucscale schema missing; installing version {} for {}", LATEST_VERSION, type.openfireName());
                runScript(c, RESOURCE_ROOT + DATABASE_KEY + "_" + type.openfireName() + ".sql");
            }
            int current = installedVersion(c);
            for (int n = current + 1; n <= LATEST_VERSION; n++) {
                String path = RESOURCE_ROOT + "upgrade/" + n + "/" + DATABASE_KEY + "_" + type.openfireName() + ".sql";
                if (SchemaInstaller.class.getClassLoader().getResource(path) != null) {
                    LOG.info("mucscale schema upgrade to version {}", n);
                    runScript(c, path);
                }
            }
            return before;
        }
    }

    /** The installed version of the mucscale schema, 0 when there is none. */
    public static int installedVersion(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return installedVersion(c);
        }
    }

    private static int installedVersion(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT version FROM ofVersion WHERE name = ?")) {
            ps.setString(1, DATABASE_KEY);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : 0;
            }
        } catch (SQLException e) {
            if (!versionTableExists(c)) {
                return 0;
            }
            throw e;
        }
    }

    private static boolean versionTableExists(Connection c) throws SQLException {
        for (String name : new String[] {"ofVersion", "OFVERSION", "ofversion"}) {
            try (ResultSet rs = c.getMetaData().getTables(null, null, name, new String[] {"TABLE"})) {
                if (rs.next()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Openfire creates ofVersion itself; standalone has no Openfire, so create it with Openfire's definition. */
    private static void ensureVersionTable(Connection c, DatabaseType type) throws SQLException {
        if (versionTableExists(c)) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE ofVersion (name VARCHAR(50) NOT NULL, version INTEGER NOT NULL,"
                    + " CONSTRAINT ofVersion_pk PRIMARY KEY (name))");
        }
    }

    /** Runs one script with Openfire's rules: statements end with ';' at end of line, comment lines skipped. */
    static void runScript(Connection c, String resource) throws SQLException {
        List<String> statements = statements(readResource(resource));
        try (Statement s = c.createStatement()) {
            for (String sql : statements) {
                try {
                    s.execute(sql);
                } catch (SQLException e) {
                    throw new SQLException("schema script " + resource + " failed at: " + sql + ": " + e.getMessage(),
                            e.getSQLState(), e.getErrorCode(), e);
                }
            }
        }
    }

    static String readResource(String resource) {
        try (InputStream in = SchemaInstaller.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("schema script " + resource + " is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + resource, e);
        }
    }

    /** Splits a script as Openfire's SchemaManager does (its comment prefixes: //, --, #, REM, /*, *). */
    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String raw : script.split("\n")) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("//") || line.startsWith("--") || line.startsWith("#")
                    || line.startsWith("REM") || line.startsWith("/*") || line.startsWith("*")) {
                continue;
            }
            current.append(line);
            if (line.endsWith(";")) {
                current.setLength(current.length() - 1);
                out.add(current.toString().replace("jiveVersion", "ofVersion"));
                current.setLength(0);
            } else {
                current.append(' ');
            }
        }
        if (!current.toString().isBlank()) {
            throw new IllegalArgumentException("script ends without ';': " + current);
        }
        return out;
    }
}
