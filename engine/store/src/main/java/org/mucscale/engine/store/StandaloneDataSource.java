package org.mucscale.engine.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Settings;

/**
 * Standalone mode's connection pool: HikariCP over a JDBC URL (embedded HSQLDB file database by default). Inside
 * Openfire this is not used; the adapter passes Openfire's own pooled DataSource to {@link RoomLogStore}.
 * For MySQL/MariaDB URLs the driver options that make batches fast and text exact are added unless given.
 */
public final class StandaloneDataSource {
    /**
     * The {@code allowLoadLocalInfileInPath} of the standalone pool: a directory that does not exist, so the driver
     * finds no file a database server could ask for.
     */
    static final String NO_LOCAL_FILES = "/nonexistent/mucscale-serves-no-local-files";

    private StandaloneDataSource() {
    }

    /** A pool from {@code mucscale.store.jdbc-url}, {@code -user}, {@code -password}, {@code pool-size}. */
    public static HikariDataSource create(Settings settings) {
        int poolSize = settings.get(StoreSettings.POOL_SIZE);
        int writerConnections = settings.get(StoreSettings.WRITER_CONNECTIONS);
        if (poolSize <= writerConnections) {
            // The writer's lanes would hold every connection while the database is slow, starving history reads.
            throw new InvalidSettingException(StoreSettings.POOL_SIZE.key() + " must exceed "
                    + StoreSettings.WRITER_CONNECTIONS.key() + " (" + writerConnections + "), was " + poolSize);
        }
        return create(settings.get(StoreSettings.JDBC_URL), settings.get(StoreSettings.JDBC_USER),
                settings.get(StoreSettings.JDBC_PASSWORD), settings.get(StoreSettings.POOL_SIZE));
    }

    public static HikariDataSource create(String jdbcUrl, String user, String password, int poolSize) {
        if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:")) {
            throw new IllegalArgumentException("mucscale.store.jdbc-url must be a JDBC URL starting with jdbc:, was '"
                    + jdbcUrl + "'");
        }
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(jdbcUrl);
        hc.setUsername(user);
        hc.setPassword(password);
        hc.setMaximumPoolSize(poolSize);
        hc.setMinimumIdle(1);
        hc.setPoolName("mucscale-store");
        // A server database: fail fast while it is down, the writer retries with its own backoff. An embedded
        // HSQLDB cannot be "down"; opening it can take seconds on a loaded machine, so wait rather than fail.
        boolean embedded = jdbcUrl.startsWith("jdbc:hsqldb:file:") || jdbcUrl.startsWith("jdbc:hsqldb:mem:");
        hc.setConnectionTimeout(embedded ? 60_000 : 5_000);
        hc.setInitializationFailTimeout(-1);
        if (jdbcUrl.startsWith("jdbc:mysql:")) {
            addIfAbsent(hc, jdbcUrl, "rewriteBatchedStatements", "true");
            addIfAbsent(hc, jdbcUrl, "characterEncoding", "UTF-8");
            addIfAbsent(hc, jdbcUrl, "connectionCollation", "utf8mb4_bin");
            addIfAbsent(hc, jdbcUrl, "connectTimeout", "5000");
            // Not allowLoadLocalInfile=true: with it on, the driver hands any local file to a server that asks for
            // one. A path with no files in it still makes the driver announce LOCAL INFILE to the server, which the
            // room log's bulk load needs; it switches the driver's LOCAL INFILE on for its own in-memory statement
            // only (MySqlBulkLoad). An operator's own choice in the URL is kept.
            if (!jdbcUrl.contains("allowLoadLocalInfile")) {
                hc.addDataSourceProperty("allowLoadLocalInfileInPath", NO_LOCAL_FILES);
            }
        } else if (jdbcUrl.startsWith("jdbc:mariadb:")) {
            addIfAbsent(hc, jdbcUrl, "connectTimeout", "5000");
        } else if (jdbcUrl.startsWith("jdbc:postgresql:")) {
            addIfAbsent(hc, jdbcUrl, "connectTimeout", "5");
        }
        return new HikariDataSource(hc);
    }

    private static void addIfAbsent(HikariConfig hc, String url, String key, String value) {
        if (!url.contains(key + "=")) {
            hc.addDataSourceProperty(key, value);
        }
    }
}
