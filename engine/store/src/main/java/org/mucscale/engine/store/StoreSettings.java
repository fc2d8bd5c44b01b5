package org.mucscale.engine.store;

import java.time.Duration;
import java.util.List;
import org.mucscale.engine.config.Setting;

/** Every tunable of the room log store, {@code mucscale.store.*}. Shared by the Openfire plugin and standalone. */
public final class StoreSettings {
    private StoreSettings() {
    }

    public static final Setting<Boolean> ENABLED = Setting.ofBoolean("mucscale.store.enabled", true, false,
            "Writes every room message to the database room log.");

    public static final Setting<Integer> BATCH_SIZE = Setting.ofInt("mucscale.store.batch-size", 500, 1, 10_000, false,
            "Rows the writer commits in one transaction at most; a full batch is written at once.");

    public static final Setting<Duration> MAX_BATCH_AGE = Setting.ofDuration("mucscale.store.max-batch-age",
            Duration.ofSeconds(1), Duration.ofMillis(1), Duration.ofMinutes(10), false,
            "Longest a queued message waits before its batch is written even when the batch is not full.");

    public static final Setting<Integer> QUEUE_CAPACITY = Setting.ofInt("mucscale.store.queue-capacity", 100_000,
            16, 10_000_000, false,
            "Messages the in-memory write-behind queue holds before the overflow policy applies.");

    public static final Setting<OverflowPolicy> OVERFLOW_POLICY = Setting.ofEnum("mucscale.store.overflow-policy",
            OverflowPolicy.class, OverflowPolicy.SPILL_TO_DISK, false,
            "When the queue is full: SPILL_TO_DISK appends to a local file replayed later, REJECT_WITH_ERROR refuses"
                    + " the message with a resource-constraint error.");

    public static final Setting<String> SPILL_DIRECTORY = Setting.ofString("mucscale.store.spill-directory",
            "mucscale-store", false,
            "Local directory for the spill, dead-letter and write-ahead files (relative paths resolve against the"
                    + " server's home).", StoreSettings::directoryRule);

    public static final Setting<Duration> RETRY_BACKOFF_MIN = Setting.ofDuration("mucscale.store.retry-backoff-min",
            Duration.ofMillis(100), Duration.ofMillis(1), Duration.ofMinutes(1), false,
            "First wait before retrying a batch after a database error; doubles per failure up to the maximum.");

    public static final Setting<Duration> RETRY_BACKOFF_MAX = Setting.ofDuration("mucscale.store.retry-backoff-max",
            Duration.ofSeconds(10), Duration.ofMillis(1), Duration.ofMinutes(10), false,
            "Longest wait between retries while the database is down or erroring.");

    public static final Setting<Duration> DRAIN_TIMEOUT = Setting.ofDuration("mucscale.store.drain-timeout",
            Duration.ofSeconds(10), Duration.ZERO, Duration.ofMinutes(10), false,
            "On shutdown, how long the writer keeps writing queued messages before spilling the rest to disk; a"
                    + " database call still running then is aborted, and the stop returns at most 2 s later.");

    public static final Setting<DurabilityMode> DURABILITY = Setting.ofEnum("mucscale.store.durability",
            DurabilityMode.class, DurabilityMode.BATCHED, false,
            "BATCHED keeps queued messages in memory; WRITE_AHEAD_LOG fsyncs each message to a local file before it"
                    + " is broadcast so a crash loses none.");

    public static final Setting<Duration> WRITE_AHEAD_TIMEOUT = Setting.ofDuration(
            "mucscale.store.write-ahead-timeout", Duration.ofSeconds(5), Duration.ofMillis(10), Duration.ofMinutes(10),
            false, "WRITE_AHEAD_LOG only: longest a room waits for a message's fsync; a message not confirmed in time"
                    + " is refused to its sender with resource-constraint instead of broadcast.");

    public static final Setting<Boolean> MYSQL_BULK_LOAD = Setting.ofBoolean("mucscale.store.mysql-bulk-load", true,
            false, "MySQL/MariaDB with mysql-connector-j: write batches with LOAD DATA LOCAL INFILE from memory (any"
                    + " warning re-runs the batch as INSERT); false, or a connection that refuses it, uses INSERT.");

    public static final Setting<Integer> WRITER_CONNECTIONS = Setting.ofInt("mucscale.store.writer-connections", 3,
            1, 16, false,
            "Database connections the room log writer commits its batches over in parallel (one queue; reads order by"
                    + " time, so batches may commit out of order); one database connection writes at most what one"
                    + " database core does.");

    public static final Setting<Duration> RETENTION_MAX_AGE = Setting.ofDuration("mucscale.store.retention-max-age",
            Duration.ZERO, Duration.ZERO, Duration.ofDays(36_500), false,
            "Room log rows older than this are purged; 0 keeps them forever.");

    public static final Setting<Integer> RETENTION_MAX_MESSAGES = Setting.ofInt(
            "mucscale.store.retention-max-messages-per-room", 0, 0, 100_000_000, false,
            "Only this many newest messages are kept per room; 0 keeps all.");

    public static final Setting<Duration> PURGE_INTERVAL = Setting.ofDuration("mucscale.store.purge-interval",
            Duration.ofHours(1), Duration.ofSeconds(1), Duration.ofDays(7), false,
            "How often the retention purge runs when a retention limit is set.");

    public static final Setting<Integer> PURGE_BATCH_SIZE = Setting.ofInt("mucscale.store.purge-batch-size", 1_000,
            1, 100_000, false,
            "Rows one purge DELETE removes at most, so a purge never holds long locks.");

    public static final Setting<String> JDBC_URL = Setting.ofString("mucscale.store.jdbc-url",
            "jdbc:hsqldb:file:mucscale-db/mucscale;shutdown=true", false,
            "Standalone only: JDBC URL of the database (inside Openfire, Openfire's database is used).",
            StoreSettings::jdbcUrlRule);

    public static final Setting<String> JDBC_USER = Setting.ofString("mucscale.store.jdbc-user", "SA", false,
            "Standalone only: database user.");

    public static final Setting<String> JDBC_PASSWORD = Setting.ofSecret("mucscale.store.jdbc-password", false,
            "Standalone only: database password.", null);

    public static final Setting<Integer> POOL_SIZE = Setting.ofInt("mucscale.store.pool-size", 6, 2, 100, false,
            "Standalone only: most connections the pool opens; must exceed mucscale.store.writer-connections, the rest"
                    + " serve reads, purge and rooms.");

    public static final List<Setting<?>> ALL = List.of(ENABLED, BATCH_SIZE, MAX_BATCH_AGE, QUEUE_CAPACITY,
            OVERFLOW_POLICY, SPILL_DIRECTORY, RETRY_BACKOFF_MIN, RETRY_BACKOFF_MAX, DRAIN_TIMEOUT, DURABILITY, MYSQL_BULK_LOAD,
            WRITER_CONNECTIONS,
            RETENTION_MAX_AGE, RETENTION_MAX_MESSAGES, PURGE_INTERVAL, PURGE_BATCH_SIZE, JDBC_URL, JDBC_USER,
            JDBC_PASSWORD, POOL_SIZE, WRITE_AHEAD_TIMEOUT);

    private static String directoryRule(String value) {
        if (value == null || value.isBlank() || value.indexOf('\0') >= 0) {
            return "a directory path";
        }
        return null;
    }

    private static String jdbcUrlRule(String value) {
        if (value == null || !value.startsWith("jdbc:")) {
            return "a JDBC URL starting with jdbc:";
        }
        return null;
    }
}
