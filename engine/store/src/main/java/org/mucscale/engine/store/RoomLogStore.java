package org.mucscale.engine.store;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.mucscale.engine.port.Clock;

/**
 * The store capability in one object: installs or upgrades the schema (standalone) and wires the room log writer,
 * reader, retention purger and persistent rooms over one {@link DataSource}. Inside Openfire the adapter passes
 * Openfire's pool and type (and {@code installSchema=false}, since Openfire runs the plugin's scripts); standalone
 * passes a {@link StandaloneDataSource} pool.
 *
 * <p>Lifecycle: construct, {@link #start()}, hand records in with {@link #offer}/{@link #appendDurable} from any
 * thread, {@link #close()} (drains, spills the rest) after the rooms stopped producing.
 */
public final class RoomLogStore implements AutoCloseable {
    private final StoreConfig config;
    private final DataSource dataSource;
    private final DatabaseType type;
    private final boolean installSchema;
    private final RoomLogWriter writer;
    private final RoomLogReader reader;
    private final RetentionPurger purger;
    private final PersistentRoomStore rooms;
    private final ReviewQueue review;
    private final AdminAuditLog audit;

    public RoomLogStore(DataSource dataSource, DatabaseType type, StoreConfig config, Clock clock,
                        StoreListener listener, boolean installSchema) {
        this.config = config;
        this.dataSource = dataSource;
        this.type = type;
        this.installSchema = installSchema;
        this.writer = new RoomLogWriter(dataSource, type, config, clock, listener);
        this.reader = new RoomLogReader(dataSource, type, writer);
        this.purger = new RetentionPurger(dataSource, type, config, clock);
        this.rooms = new PersistentRoomStore(dataSource, clock);
        this.review = new ReviewQueue(dataSource, type);
        this.audit = new AdminAuditLog(dataSource);
    }

    /** Applies the schema scripts when asked to, recovers spill/write-ahead files, starts writer and purge job. */
    public void start() throws SQLException {
        if (installSchema) {
            SchemaInstaller.install(dataSource, type);
        }
        writer.start();
        purger.start();
    }

    /** Message path: enqueue only. See {@link RoomLogWriter#offer}. */
    public OfferResult offer(RoomLogRecord record) {
        return writer.offer(record);
    }

    /** Message path in write-ahead mode, waiting at most {@code timeoutMs}: {@link RoomLogWriter#appendDurableWithin}. */
    public OfferResult appendDurableWithin(RoomLogRecord record, long timeoutMs) {
        return writer.appendDurableWithin(record, timeoutMs);
    }

    /** Message path in write-ahead mode: complete before broadcasting. See {@link RoomLogWriter#appendDurable}. */
    public CompletableFuture<OfferResult> appendDurable(RoomLogRecord record) {
        return writer.appendDurable(record);
    }

    /** History on join: newest {@code maxMessages} since a time, oldest first, including queued messages. */
    public List<RoomLogRecord> history(String roomJid, int maxMessages, long sinceMillis) throws SQLException {
        return reader.history(roomJid, maxMessages, sinceMillis);
    }

    /**
     * Retracts a logged message (XEP-0425 moderation): its row keeps a tombstone and loses body and subject, also
     * when the message is still queued. Blocking: call it off the room threads. See {@link RoomLogRetractions}.
     */
    public RoomLogRetractions.Outcome retract(String roomJid, String stanzaId,
                                              java.util.function.Function<RoomLogRecord, String> tombstone)
            throws SQLException {
        return writer.retractions().retract(roomJid, stanzaId, tombstone);
    }

    /** Flagged messages waiting for a moderator's review. */
    public ReviewQueue review() {
        return review;
    }

    /** The room administration audit trail. */
    public AdminAuditLog audit() {
        return audit;
    }

    public RoomLogReader reader() {
        return reader;
    }

    public RoomLogWriter writer() {
        return writer;
    }

    public RetentionPurger purger() {
        return purger;
    }

    public PersistentRoomStore rooms() {
        return rooms;
    }

    public StoreStats stats() {
        return writer.stats();
    }

    public StoreConfig config() {
        return config;
    }

    public DatabaseType type() {
        return type;
    }

    /** Stops the purge job, drains the writer within the drain timeout and spills what is left. */
    @Override
    public void close() {
        purger.close();
        writer.close();
    }
}
