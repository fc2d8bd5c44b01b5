package org.mucscale.engine.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.mucscale.engine.port.Clock;

/**
 * Persistent rooms: configuration as key/value pairs and affiliations, with plain types. Each call is one short
 * transaction on a pooled connection (rooms change rarely; none of this is on the message path). Thread-safe.
 */
public final class PersistentRoomStore {
    /** A stored room. */
    public record PersistentRoom(String roomJid, long createdAtMillis, long modifiedAtMillis,
                                 Map<String, String> config, List<Affiliation> affiliations) {
    }

    /** One affiliation: a bare JID, its affiliation (owner, admin, member, outcast) and an optional reason. */
    public record Affiliation(String jid, String affiliation, String reason) {
    }

    private final DataSource dataSource;
    private final Clock clock;

    public PersistentRoomStore(DataSource dataSource, Clock clock) {
        this.dataSource = dataSource;
        this.clock = clock;
    }

    /** Creates or replaces a room's configuration (all keys; keys not given are removed). */
    public void saveRoom(String roomJid, Map<String, String> config) throws SQLException {
        requireLength("roomJid", roomJid, 255);
        for (String key : config.keySet()) {
            requireLength("configuration key", key, 100);
        }
        long now = clock.currentTimeMillis();
        inTransaction(c -> {
            int updated;
            try (PreparedStatement ps = c.prepareStatement("UPDATE mucscaleRoom SET modifiedAt = ? WHERE roomJid = ?")) {
                ps.setLong(1, now);
                ps.setString(2, roomJid);
                updated = ps.executeUpdate();
            }
            if (updated == 0) {
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO mucscaleRoom (roomJid, createdAt, modifiedAt) VALUES (?,?,?)")) {
                    ps.setString(1, roomJid);
                    ps.setLong(2, now);
                    ps.setLong(3, now);
                    ps.executeUpdate();
                }
            }
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM mucscaleRoomConfig WHERE roomJid = ?")) {
                ps.setString(1, roomJid);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO mucscaleRoomConfig (roomJid, propName, propValue) VALUES (?,?,?)")) {
                for (Map.Entry<String, String> e : config.entrySet()) {
                    ps.setString(1, roomJid);
                    ps.setString(2, e.getKey());
                    ps.setString(3, e.getValue());
                    ps.addBatch();
                }
                if (!config.isEmpty()) {
                    ps.executeBatch();
                }
            }
        });
    }

    /** Sets (inserts or replaces) one affiliation of a saved room. */
    public void setAffiliation(String roomJid, String jid, String affiliation, String reason) throws SQLException {
        requireLength("roomJid", roomJid, 255);
        requireLength("jid", jid, 255);
        requireLength("affiliation", affiliation, 16);
        inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "DELETE FROM mucscaleAffiliation WHERE roomJid = ? AND jid = ?")) {
                ps.setString(1, roomJid);
                ps.setString(2, jid);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO mucscaleAffiliation (roomJid, jid, affiliation, reason) VALUES (?,?,?,?)")) {
                ps.setString(1, roomJid);
                ps.setString(2, jid);
                ps.setString(3, affiliation);
                ps.setString(4, reason);
                ps.executeUpdate();
            }
        });
    }

    /** Removes one affiliation; true when there was one. */
    public boolean removeAffiliation(String roomJid, String jid) throws SQLException {
        boolean[] removed = new boolean[1];
        inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "DELETE FROM mucscaleAffiliation WHERE roomJid = ? AND jid = ?")) {
                ps.setString(1, roomJid);
                ps.setString(2, jid);
                removed[0] = ps.executeUpdate() > 0;
            }
        });
        return removed[0];
    }

    public Optional<PersistentRoom> loadRoom(String roomJid) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            long created;
            long modified;
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT createdAt, modifiedAt FROM mucscaleRoom WHERE roomJid = ?")) {
                ps.setString(1, roomJid);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    created = rs.getLong(1);
                    modified = rs.getLong(2);
                }
            }
            return Optional.of(new PersistentRoom(roomJid, created, modified, config(c, roomJid),
                    affiliations(c, roomJid)));
        }
    }

    /** Every saved room's JID, sorted. */
    public List<String> roomJids() throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT roomJid FROM mucscaleRoom ORDER BY roomJid");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** Every saved room, for loading at start. */
    public List<PersistentRoom> loadAll() throws SQLException {
        List<PersistentRoom> out = new ArrayList<>();
        for (String jid : roomJids()) {
            loadRoom(jid).ifPresent(out::add);
        }
        return out;
    }

    /** Deletes a room with its configuration and affiliations; true when it existed. */
    public boolean deleteRoom(String roomJid) throws SQLException {
        boolean[] existed = new boolean[1];
        inTransaction(c -> {
            for (String table : new String[] {"mucscaleAffiliation", "mucscaleRoomConfig"}) {
                try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE roomJid = ?")) {
                    ps.setString(1, roomJid);
                    ps.executeUpdate();
                }
            }
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM mucscaleRoom WHERE roomJid = ?")) {
                ps.setString(1, roomJid);
                existed[0] = ps.executeUpdate() > 0;
            }
        });
        return existed[0];
    }

    private static Map<String, String> config(Connection c, String roomJid) throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT propName, propValue FROM mucscaleRoomConfig WHERE roomJid = ? ORDER BY propName")) {
            ps.setString(1, roomJid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        return out;
    }

    private static List<Affiliation> affiliations(Connection c, String roomJid) throws SQLException {
        List<Affiliation> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT jid, affiliation, reason FROM mucscaleAffiliation WHERE roomJid = ? ORDER BY jid")) {
            ps.setString(1, roomJid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Affiliation(rs.getString(1), rs.getString(2), rs.getString(3)));
                }
            }
        }
        return out;
    }

    private static void requireLength(String what, String value, int max) {
        if (value == null || value.isEmpty() || value.length() > max) {
            throw new IllegalArgumentException(what + " must be 1 to " + max + " characters, was "
                    + (value == null ? "null" : value.length() + " characters"));
        }
    }

    private interface Work {
        void run(Connection c) throws SQLException;
    }

    private void inTransaction(Work work) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                work.run(c);
                c.commit();
            } catch (SQLException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException ignored) {
                    // reported through e
                }
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }
    }
}
