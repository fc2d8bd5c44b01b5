package org.mucscale.engine.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * Retractions of room log messages (XEP-0425 moderation): the row keeps its key, nick and sender and loses its text
 * for good: {@code filterAction = 'RETRACTED'}, {@code body} and {@code subject} NULL, and {@code stanza} holds the
 * tombstone message the archive shows instead.
 *
 * <p>A retraction can race the message's own insert, which is still queued or in a batch being written. So a
 * retraction is first registered here; a writer lane replaces a registered record by its tombstone every time it is
 * about to write a batch (and the reader shows the tombstone for pending records), so a queued body never reaches the
 * database. For a batch whose write may have begun before the retraction was registered, {@link #retract} waits
 * (off the room thread) until the batch left the writer and then updates the committed row. A registration is
 * dropped once its row is known to hold the tombstone. Records parked in spill files are replaced when replayed.
 * Thread-safe.
 */
public final class RoomLogRetractions {
    public static final String RETRACTED = "RETRACTED";
    /** How long {@link #retract} waits for a batch in flight holding the message, at most. */
    static final long IN_FLIGHT_WAIT_MS = 60_000;

    public enum Outcome { RETRACTED, ALREADY_RETRACTED, NOT_FOUND }

    private final DataSource dataSource;
    private final RoomLogWriter writer;
    private final ConcurrentHashMap<String, RoomLogRecord> registered = new ConcurrentHashMap<>();

    RoomLogRetractions(DataSource dataSource, RoomLogWriter writer) {
        this.dataSource = dataSource;
        this.writer = writer;
    }

    private static String key(String roomJid, String stanzaId) {
        return roomJid + '\u0000' + stanzaId;
    }

    /**
     * Retracts one message of a room (blocking: call it off the room threads). {@code tombstone} builds the stanza
     * XML to keep from the message as logged. Looks the message up among the pending records and then by the room
     * log's (roomJid, stanzaId) index, never by a scan.
     */
    public Outcome retract(String roomJid, String stanzaId, Function<RoomLogRecord, String> tombstone)
            throws SQLException {
        RoomLogRecord found = pending(roomJid, stanzaId);
        if (found == null) {
            found = select(roomJid, stanzaId);
        }
        if (found == null) {
            return Outcome.NOT_FOUND;
        }
        if (RETRACTED.equals(found.filterAction())) {
            return Outcome.ALREADY_RETRACTED;
        }
        RoomLogRecord dead = tombstoned(found, tombstone.apply(found));
        String key = key(roomJid, stanzaId);
        registered.put(key, dead);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(IN_FLIGHT_WAIT_MS);
        while (true) {
            if (update(dead) > 0) {
                registered.remove(key, dead);
                return Outcome.RETRACTED;
            }
            if (!writer.inFlightWithText(roomJid, stanzaId)) {
                // Not in a write that began before the registration. Committed between the update and this look
                // (the next update finds it), or queued, spilled or parked: every later write attempt writes the
                // tombstone, and the lane drops the registration once it committed it.
                if (update(dead) > 0) {
                    registered.remove(key, dead);
                }
                return Outcome.RETRACTED;
            }
            if (System.nanoTime() > deadline) {
                return Outcome.RETRACTED; // still registered: the lane writes the tombstone on its next attempt
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /** Registered retractions not yet known to be stored (tests, metrics). */
    public int waiting() {
        return registered.size();
    }

    /** Writer lane, before each write attempt: registered records of the batch become their tombstones. */
    void substitute(RoomLogRecord[] batch, int n) {
        if (registered.isEmpty()) {
            return;
        }
        for (int i = 0; i < n; i++) {
            RoomLogRecord r = batch[i];
            if (r != null && !RETRACTED.equals(r.filterAction())) {
                RoomLogRecord dead = registered.get(key(r.roomJid(), r.stanzaId()));
                if (dead != null) {
                    dead.enqueueNanos = r.enqueueNanos;
                    dead.walSegment = r.walSegment;
                    batch[i] = dead;
                }
            }
        }
    }

    /** Writer lane, after a batch committed: tombstones it wrote need no registration any more. */
    void committed(RoomLogRecord[] batch, int n) {
        if (registered.isEmpty()) {
            return;
        }
        for (int i = 0; i < n; i++) {
            RoomLogRecord r = batch[i];
            if (r != null && RETRACTED.equals(r.filterAction())) {
                registered.remove(key(r.roomJid(), r.stanzaId()), r);
            }
        }
    }

    /** Pending records as readers should see them: registered ones as their tombstones. */
    void substitute(List<RoomLogRecord> pending) {
        if (registered.isEmpty()) {
            return;
        }
        for (int i = 0; i < pending.size(); i++) {
            RoomLogRecord r = pending.get(i);
            RoomLogRecord dead = registered.get(key(r.roomJid(), r.stanzaId()));
            if (dead != null) {
                pending.set(i, dead);
            }
        }
    }

    static RoomLogRecord tombstoned(RoomLogRecord r, String stanza) {
        return new RoomLogRecord(r.stanzaId(), r.roomJid(), r.logTimeMillis(), r.senderNick(), r.senderJid(), null,
                null, RETRACTED, stanza);
    }

    private RoomLogRecord pending(String roomJid, String stanzaId) {
        List<RoomLogRecord> out = new ArrayList<>();
        writer.pendingFor(roomJid, out);
        for (RoomLogRecord r : out) {
            if (r.stanzaId().equals(stanzaId)) {
                return r;
            }
        }
        return null;
    }

    private RoomLogRecord select(String roomJid, String stanzaId) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT " + RoomLogSql.COLUMNS
                     + " FROM mucscaleRoomLog WHERE roomJid = ? AND stanzaId = ?")) {
            ps.setString(1, roomJid);
            ps.setString(2, stanzaId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return new RoomLogRecord(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4),
                        rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9));
            }
        }
    }

    /** The row becomes its tombstone and leaves the review queue, in one transaction. */
    private int update(RoomLogRecord dead) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("UPDATE mucscaleRoomLog SET body = NULL, subject = NULL,"
                    + " filterAction = ?, stanza = ? WHERE roomJid = ? AND stanzaId = ?")) {
                ps.setString(1, RETRACTED);
                ps.setString(2, dead.stanza());
                ps.setString(3, dead.roomJid());
                ps.setString(4, dead.stanzaId());
                int n = ps.executeUpdate();
                ReviewQueue.remove(c, dead.roomJid(), dead.stanzaId());
                c.commit();
                return n;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }
    }
}
