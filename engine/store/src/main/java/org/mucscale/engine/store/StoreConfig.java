package org.mucscale.engine.store;

import java.nio.file.Path;
import java.time.Duration;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Settings;

/**
 * The store's typed, validated configuration, built from a {@link Settings} snapshot ({@link #from}) so the Openfire
 * plugin and the standalone config file share keys. Durations are carried in the unit the code uses.
 */
public record StoreConfig(
        boolean enabled,
        int batchSize,
        long maxBatchAgeNanos,
        int queueCapacity,
        OverflowPolicy overflowPolicy,
        Path spillDirectory,
        long retryBackoffMinMs,
        long retryBackoffMaxMs,
        long drainTimeoutMs,
        DurabilityMode durability,
        long retentionMaxAgeMs,
        int retentionMaxMessagesPerRoom,
        long purgeIntervalMs,
        int purgeBatchSize,
        boolean mysqlBulkLoad,
        int writerConnections) {

    public StoreConfig {
        if (retryBackoffMaxMs < retryBackoffMinMs) {
            throw new InvalidSettingException(StoreSettings.RETRY_BACKOFF_MAX.key() + " must be at least "
                    + StoreSettings.RETRY_BACKOFF_MIN.key() + " (" + retryBackoffMinMs + "), was " + retryBackoffMaxMs);
        }
        if (writerConnections < 1) {
            throw new InvalidSettingException(StoreSettings.WRITER_CONNECTIONS.key() + " must be at least 1, was "
                    + writerConnections);
        }
        if (batchSize > queueCapacity) {
            throw new InvalidSettingException(StoreSettings.BATCH_SIZE.key() + " must not exceed "
                    + StoreSettings.QUEUE_CAPACITY.key() + " (" + queueCapacity + "), was " + batchSize);
        }
    }

    /** Reads a settings snapshot whose catalog includes {@link StoreSettings#ALL}. */
    public static StoreConfig from(Settings s) {
        return new StoreConfig(
                s.get(StoreSettings.ENABLED),
                s.get(StoreSettings.BATCH_SIZE),
                s.get(StoreSettings.MAX_BATCH_AGE).toNanos(),
                s.get(StoreSettings.QUEUE_CAPACITY),
                s.get(StoreSettings.OVERFLOW_POLICY),
                Path.of(s.get(StoreSettings.SPILL_DIRECTORY)),
                s.get(StoreSettings.RETRY_BACKOFF_MIN).toMillis(),
                s.get(StoreSettings.RETRY_BACKOFF_MAX).toMillis(),
                s.get(StoreSettings.DRAIN_TIMEOUT).toMillis(),
                s.get(StoreSettings.DURABILITY),
                s.get(StoreSettings.RETENTION_MAX_AGE).toMillis(),
                s.get(StoreSettings.RETENTION_MAX_MESSAGES),
                s.get(StoreSettings.PURGE_INTERVAL).toMillis(),
                s.get(StoreSettings.PURGE_BATCH_SIZE),
                s.get(StoreSettings.MYSQL_BULK_LOAD),
                s.get(StoreSettings.WRITER_CONNECTIONS));
    }

    /** Every default, with the given spill directory (tests and embedders). */
    public static StoreConfig defaults(Path spillDirectory) {
        return from(Settings.defaults(StoreSettings.ALL)).withSpillDirectory(spillDirectory);
    }

    public StoreConfig withSpillDirectory(Path dir) {
        return new StoreConfig(enabled, batchSize, maxBatchAgeNanos, queueCapacity, overflowPolicy, dir,
                retryBackoffMinMs, retryBackoffMaxMs, drainTimeoutMs, durability, retentionMaxAgeMs,
                retentionMaxMessagesPerRoom, purgeIntervalMs, purgeBatchSize, mysqlBulkLoad, writerConnections);
    }

    public StoreConfig withBatching(int newBatchSize, Duration maxBatchAge) {
        return new StoreConfig(enabled, newBatchSize, maxBatchAge.toNanos(), queueCapacity, overflowPolicy,
                spillDirectory, retryBackoffMinMs, retryBackoffMaxMs, drainTimeoutMs, durability, retentionMaxAgeMs,
                retentionMaxMessagesPerRoom, purgeIntervalMs, purgeBatchSize, mysqlBulkLoad, writerConnections);
    }

    public StoreConfig withQueue(int capacity, OverflowPolicy policy) {
        return new StoreConfig(enabled, batchSize, maxBatchAgeNanos, capacity, policy, spillDirectory,
                retryBackoffMinMs, retryBackoffMaxMs, drainTimeoutMs, durability, retentionMaxAgeMs,
                retentionMaxMessagesPerRoom, purgeIntervalMs, purgeBatchSize, mysqlBulkLoad, writerConnections);
    }

    public StoreConfig withRetryBackoff(long minMs, long maxMs) {
        return new StoreConfig(enabled, batchSize, maxBatchAgeNanos, queueCapacity, overflowPolicy, spillDirectory,
                minMs, maxMs, drainTimeoutMs, durability, retentionMaxAgeMs, retentionMaxMessagesPerRoom,
                purgeIntervalMs, purgeBatchSize, mysqlBulkLoad, writerConnections);
    }

    public StoreConfig withDrainTimeoutMs(long ms) {
        return new StoreConfig(enabled, batchSize, maxBatchAgeNanos, queueCapacity, overflowPolicy, spillDirectory,
                retryBackoffMinMs, retryBackoffMaxMs, ms, durability, retentionMaxAgeMs, retentionMaxMessagesPerRoom,
                purgeIntervalMs, purgeBatchSize, mysqlBulkLoad, writerConnections);
    }

    public StoreConfig withDurability(DurabilityMode mode) {
        return new StoreConfig(enabled, batchSize, maxBatchAgeNanos, queueCapacity, overflowPolicy, spillDirectory,
                retryBackoffMinMs, retryBackoffMaxMs, drainTimeoutMs, mode, retentionMaxAgeMs,
                retentionMaxMessagesPerRoom, purgeIntervalMs, purgeBatchSize, mysqlBulkLoad, writerConnections);
    }

    public StoreConfig withMysqlBulkLoad(boolean on) {
        return new StoreConfig(enabled, batchSize, maxBatchAgeNanos, queueCapacity, overflowPolicy, spillDirectory,
                retryBackoffMinMs, retryBackoffMaxMs, drainTimeoutMs, durability, retentionMaxAgeMs,
                retentionMaxMessagesPerRoom, purgeIntervalMs, purgeBatchSize, on, writerConnections);
    }

    public StoreConfig withRetention(long maxAgeMs, int maxMessagesPerRoom, long intervalMs, int batchRows) {
        return new StoreConfig(enabled, batchSize, maxBatchAgeNanos, queueCapacity, overflowPolicy, spillDirectory,
                retryBackoffMinMs, retryBackoffMaxMs, drainTimeoutMs, durability, maxAgeMs, maxMessagesPerRoom,
                intervalMs, batchRows, mysqlBulkLoad, writerConnections);
    }

    public StoreConfig withWriterConnections(int connections) {
        return new StoreConfig(enabled, batchSize, maxBatchAgeNanos, queueCapacity, overflowPolicy, spillDirectory,
                retryBackoffMinMs, retryBackoffMaxMs, drainTimeoutMs, durability, retentionMaxAgeMs,
                retentionMaxMessagesPerRoom, purgeIntervalMs, purgeBatchSize, mysqlBulkLoad, connections);
    }
}
