package org.mucscale.engine.store;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Copies Openfire's MUC conversation log ({@code ofMucConversationLog}, Openfire 5.1 schema, rooms named by
 * {@code ofMucRoom} and {@code ofMucService}) into mucscale's room log, so a room moved from Openfire's MUC keeps its
 * archive. Runs standalone against two databases or inside Openfire against its own (source and target may be the
 * same DataSource).
 *
 * <p>Idempotent and resumable: every row gets the stanza id the old room assigned (its XEP-0359 {@code <stanza-id>},
 * read from the stored XML) or, when there is none, an id derived from (service, roomID, messageID), and its logTime;
 * rows already in the room log (same key) are counted and not inserted again, so re-running after an interruption
 * continues where it stopped and a complete re-run inserts nothing. Each page of {@link Options#batchSize} source rows
 * is committed on its own. A row that cannot be imported (unparseable time, no nickname, refused by the target) is
 * reported and skipped; only a database failure (down, missing table) stops the import.
 */
public final class OpenfireLogImport {
    /** Problems kept in the report in full; beyond this they are counted only. */
    static final int MAX_REPORTED_PROBLEMS = 1000;

    private final DataSource source;
    private final DataSource target;
    private final DatabaseType targetType;
    private final Options options;
    private final Consumer<String> progress;
    private final OpenfireLogStanza stanzas = new OpenfireLogStanza();
    private final RoomLogSql sql;

    /**
     * @param progress receives one human-readable line per room and per committed page (e.g. to a log or stderr)
     */
    public OpenfireLogImport(DataSource source, DataSource target, DatabaseType targetType, Options options,
                             Consumer<String> progress) {
        this.source = Objects.requireNonNull(source, "source");
        this.target = Objects.requireNonNull(target, "target");
        this.targetType = Objects.requireNonNull(targetType, "targetType");
        this.options = Objects.requireNonNull(options, "options");
        this.progress = progress == null ? line -> { } : progress;
        this.sql = new RoomLogSql(targetType);
    }

    /** What to import and where to. Room names are Openfire's ({@code ofMucRoom.name}, the JID's local part). */
    public static final class Options {
        private String domain;
        private String fromService = "conference";
        private String toService;
        private final Map<String, String> rooms = new LinkedHashMap<>();
        private int batchSize = 1000;

        /** The XMPP domain (Openfire's {@code xmpp.domain}), e.g. {@code example.org}. Required. */
        public Options domain(String domain) {
            this.domain = requireName(domain, "domain");
            return this;
        }

        /** The Openfire MUC service's subdomain to read ({@code ofMucService.subdomain}); default conference. */
        public Options fromService(String subdomain) {
            this.fromService = requireName(subdomain, "from-service");
            return this;
        }

        /** The mucscale service's subdomain the rooms move to; required unless every room gets a full JID. */
        public Options toService(String subdomain) {
            this.toService = requireName(subdomain, "to-service");
            return this;
        }

        /** Imports this room (all rooms of the service when none is named) to name@to-service.domain. */
        public Options room(String name) {
            rooms.put(requireName(name, "room"), null);
            return this;
        }

        /** Imports this room to the given bare room JID (a new name or service). */
        public Options room(String name, String newRoomJid) {
            String jid = requireName(newRoomJid, "room " + name + " target JID");
            int at = jid.indexOf('@');
            if (at <= 0 || at == jid.length() - 1 || jid.indexOf('/') >= 0 || jid.indexOf('@', at + 1) >= 0) {
                throw new IllegalArgumentException("room " + name + " target must be a bare room JID like "
                        + "name@chat.example.org, was '" + newRoomJid + "'");
            }
            rooms.put(requireName(name, "room"), jid.substring(0, at) + jid.substring(at).toLowerCase(Locale.ROOT));
            return this;
        }

        /** Source rows per committed page, 1 to 10000; default 1000. */
        public Options batchSize(int rows) {
            if (rows < 1 || rows > 10_000) {
                throw new IllegalArgumentException("batch-size must be 1 to 10000, was " + rows);
            }
            this.batchSize = rows;
            return this;
        }

        public int batchSize() {
            return batchSize;
        }

        void validate() {
            if (domain == null) {
                throw new IllegalArgumentException("the XMPP domain is required (domain)");
            }
            boolean everyRoomHasJid = !rooms.isEmpty() && !rooms.containsValue(null);
            if (toService == null && !everyRoomHasJid) {
                throw new IllegalArgumentException("to-service (the mucscale subdomain) is required unless every"
                        + " room is given a full target JID");
            }
        }

        String oldRoomJid(String name) {
            return name + "@" + fromService + "." + domain;
        }

        String newRoomJid(String name) {
            String given = rooms.get(name);
            return given != null ? given : name + "@" + toService + "." + domain;
        }

        private static String requireName(String value, String what) {
            if (value == null || value.isBlank() || value.strip().chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException(what + " must be a non-empty name without spaces, was '"
                        + value + "'");
            }
            String v = value.strip();
            return what.equals("room") ? v : v.toLowerCase(Locale.ROOT);
        }
    }

    /** One skipped row or problem, with where it came from. */
    public record Problem(String room, long messageId, String reason) {
        @Override
        public String toString() {
            return room + " message " + messageId + ": " + reason;
        }
    }

    /** The outcome; counts are rows of the source. */
    public static final class Report {
        final List<String> rooms = new ArrayList<>();
        long read;
        long inserted;
        long alreadyPresent;
        long skipped;
        long stanzaDropped;
        final List<Problem> problems = new ArrayList<>();
        long problemsNotListed;
        boolean stopped;

        /** The rooms imported completely. */
        public List<String> rooms() { return List.copyOf(rooms); }
        public long read() { return read; }
        /** Rows new in the room log. */
        public long inserted() { return inserted; }
        /** Rows that were there already (an earlier run): not inserted again. */
        public long alreadyPresent() { return alreadyPresent; }
        /** Rows not imported (see problems). */
        public long skipped() { return skipped; }
        /** Rows imported without their XML because it could not be parsed (see problems). */
        public long stanzaDropped() { return stanzaDropped; }
        /** The first problems in full ({@value #MAX_REPORTED_PROBLEMS} at most). */
        public List<Problem> problems() { return List.copyOf(problems); }
        public long problemsNotListed() { return problemsNotListed; }
        /** True when the importing thread was interrupted (between pages); a re-run continues. */
        public boolean stopped() { return stopped; }

        void problem(Problem p) {
            if (problems.size() < MAX_REPORTED_PROBLEMS) {
                problems.add(p);
            } else {
                problemsNotListed++;
            }
        }

        @Override
        public String toString() {
            return rooms.size() + " rooms" + (stopped ? " (stopped)" : "") + ", " + read + " rows read, " + inserted
                    + " inserted, " + alreadyPresent
                    + " already present, " + skipped + " skipped" + (stanzaDropped > 0
                    ? ", " + stanzaDropped + " imported without their unparseable XML" : "");
        }
    }

    private record SourceRoom(long roomId, String name) {
    }

    /** Runs the import. Throws only for database failures (nothing committed is lost; re-run to continue). */
    public Report run() throws SQLException {
        options.validate();
        Report report = new Report();
        List<SourceRoom> rooms = rooms();
        for (SourceRoom room : rooms) {
            importRoom(room, report);
            if (report.stopped) {
                break;
            }
            report.rooms.add(room.name());
        }
        progress.accept((report.stopped ? "import stopped (interrupted; run it again to continue): "
                : "import done: ") + report);
        return report;
    }

    private List<SourceRoom> rooms() throws SQLException {
        List<SourceRoom> found = new ArrayList<>();
        try (Connection c = source.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT r.roomID, r.name FROM ofMucRoom r JOIN ofMucService s"
                     + " ON r.serviceID = s.serviceID WHERE s.subdomain = ? ORDER BY r.name")) {
            ps.setString(1, options.fromService);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(2);
                    if (options.rooms.isEmpty() || options.rooms.containsKey(name)) {
                        found.add(new SourceRoom(rs.getLong(1), name));
                    }
                }
            }
        }
        Set<String> missing = new HashSet<>(options.rooms.keySet());
        found.forEach(r -> missing.remove(r.name()));
        if (!missing.isEmpty()) {
            // Before anything is written: a mistyped name must not look like an import of an empty room.
            throw new IllegalArgumentException("no room " + String.join(", ", missing) + " in Openfire's MUC service '"
                    + options.fromService + "' (ofMucRoom/ofMucService)");
        }
        return found;
    }

    private void importRoom(SourceRoom room, Report report) throws SQLException {
        String oldJid = options.oldRoomJid(room.name());
        String newJid = options.newRoomJid(room.name());
        progress.accept("room " + oldJid + " -> " + newJid + " (Openfire roomID " + room.roomId() + ")");
        long read = 0;
        long inserted = 0;
        long present = 0;
        long skipped = 0;
        // Keyset paging on Openfire's (roomID, logTime) index, messageID breaking ties: no offset scans, no
        // driver-specific streaming, and each page is a short read on the source.
        String lastTime = null;
        long lastMessageId = Long.MIN_VALUE;
        List<RoomLogRecord> batch = new ArrayList<>(options.batchSize);
        // Openfire's messageID of each record of the page, for reporting a row the target refuses.
        Map<RoomLogRecord, Long> messageIds = new IdentityHashMap<>();
        while (true) {
            if (Thread.currentThread().isInterrupted()) {
                // Between pages: everything committed stays, and a re-run continues from here.
                report.stopped = true;
                break;
            }
            batch.clear();
            messageIds.clear();
            int rows = 0;
            try (Connection c = source.getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT messageID, sender, nickname, logTime, subject,"
                         + " body, stanza FROM ofMucConversationLog WHERE roomID = ?"
                         + (lastTime == null ? "" : " AND (logTime > ? OR (logTime = ? AND messageID > ?))")
                         + " ORDER BY logTime, messageID LIMIT " + options.batchSize)) {
                ps.setLong(1, room.roomId());
                if (lastTime != null) {
                    ps.setString(2, lastTime);
                    ps.setString(3, lastTime);
                    ps.setLong(4, lastMessageId);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows++;
                        long messageId = rs.getLong(1);
                        String logTime = rs.getString(4);
                        lastTime = logTime;
                        lastMessageId = messageId;
                        RoomLogRecord r = convert(room, oldJid, newJid, messageId, rs.getString(2), rs.getString(3),
                                logTime, rs.getString(5), rs.getString(6), rs.getString(7), report);
                        if (r != null) {
                            batch.add(r);
                            messageIds.put(r, messageId);
                        } else {
                            skipped++;
                        }
                    }
                }
            }
            if (rows == 0) {
                break;
            }
            read += rows;
            long[] result = store(room, newJid, batch, messageIds, report);
            inserted += result[0];
            present += result[1];
            skipped += result[2];
            progress.accept("room " + newJid + ": " + read + " read, " + inserted + " inserted, " + present
                    + " already present, " + skipped + " skipped");
            if (rows < options.batchSize) {
                break;
            }
        }
        report.read += read;
        report.inserted += inserted;
        report.alreadyPresent += present;
        report.skipped += skipped;
    }

    /** One source row as a room log record, or null (reported) when it cannot be imported. */
    RoomLogRecord convert(SourceRoom room, String oldJid, String newJid, long messageId, String sender,
                          String nickname, String logTime, String subject, String body, String stanza, Report report) {
        long time;
        try {
            time = Long.parseLong(logTime == null ? "" : logTime.strip());
        } catch (NumberFormatException e) {
            time = -1;
        }
        if (time < 0) {
            report.problem(new Problem(room.name(), messageId, "logTime '" + logTime
                    + "' is not milliseconds since the epoch; skipped"));
            return null;
        }
        String stanzaId = null;
        String nick = nickname == null || nickname.isEmpty() ? null : nickname;
        String xml = null;
        if (stanza != null && !stanza.isBlank()) {
            try {
                OpenfireLogStanza.Parsed parsed = stanzas.parse(stanza, oldJid, newJid);
                stanzaId = parsed.stanzaId();
                xml = parsed.rewritten();
                if (nick == null) {
                    nick = parsed.fromNick(); // the occupant's nickname is the resource of the room's from
                }
            } catch (IllegalArgumentException e) {
                report.stanzaDropped++;
                report.problem(new Problem(room.name(), messageId, e.getMessage()
                        + "; imported without its XML"));
            }
        }
        if (nick == null) {
            report.problem(new Problem(room.name(), messageId, "no nickname (column and stanza); skipped"));
            return null;
        }
        if (stanzaId == null) {
            stanzaId = derivedStanzaId(options.fromService + "." + options.domain, room.roomId(), messageId);
        }
        return new RoomLogRecord(stanzaId, newJid, time, nick, sender, body, subject, null, xml);
    }

    /**
     * The id of a row whose XML carries no stanza-id (Openfire before 4.x, or xmpp.sid.enabled off): a name-based
     * UUID, so it looks like any stanza id to clients and is the same on every run.
     */
    static String derivedStanzaId(String service, long roomId, long messageId) {
        return UUID.nameUUIDFromBytes(("openfire-muc-log:" + service + ":" + roomId + ":" + messageId)
                .getBytes(StandardCharsets.UTF_8)).toString();
    }

    /** Stores one page in one transaction; returns {inserted, already present, refused}. */
    private long[] store(SourceRoom room, String newJid, List<RoomLogRecord> batch, Map<RoomLogRecord, Long> messageIds,
                         Report report)
            throws SQLException {
        if (batch.isEmpty()) {
            return new long[3];
        }
        try (Connection c = target.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                List<RoomLogRecord> fresh = withoutStored(c, newJid, batch);
                long present = batch.size() - fresh.size();
                try {
                    insert(c, fresh);
                    c.commit();
                    return new long[] {fresh.size(), present, 0};
                } catch (SQLException e) {
                    c.rollback();
                    if (!RoomLogSql.isRowLevel(e)) {
                        throw e;
                    }
                }
                // Some row is refused (too long, bad encoding): one by one, so only that row is left out.
                long inserted = 0;
                long refused = 0;
                for (RoomLogRecord r : fresh) {
                    try {
                        insert(c, List.of(r));
                        c.commit();
                        inserted++;
                    } catch (SQLException e) {
                        c.rollback();
                        if (!RoomLogSql.isRowLevel(e)) {
                            throw e;
                        }
                        refused++;
                        report.problem(new Problem(room.name(), messageIds.get(r), "stanza id " + r.stanzaId() + " at "
                                + r.logTimeMillis() + " refused by the room log: " + e.getMessage() + "; skipped"));
                    }
                }
                return new long[] {inserted, present, refused};
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }
    }

    private void insert(Connection c, List<RoomLogRecord> records) throws SQLException {
        if (!records.isEmpty()) {
            sql.insert(c, records.toArray(new RoomLogRecord[0]), 0, records.size());
        }
    }

    /** The records of the page not yet in the room log, by its key: one range read of the room's primary key. */
    private static List<RoomLogRecord> withoutStored(Connection c, String roomJid, List<RoomLogRecord> batch)
            throws SQLException {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (RoomLogRecord r : batch) {
            min = Math.min(min, r.logTimeMillis());
            max = Math.max(max, r.logTimeMillis());
        }
        Set<String> stored = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT logTime, stanzaId FROM mucscaleRoomLog"
                + " WHERE roomJid = ? AND logTime >= ? AND logTime <= ?")) {
            ps.setString(1, roomJid);
            ps.setLong(2, min);
            ps.setLong(3, max);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    stored.add(rs.getLong(1) + " " + rs.getString(2));
                }
            }
        }
        List<RoomLogRecord> fresh = new ArrayList<>(batch.size());
        Set<String> seen = new HashSet<>();
        for (RoomLogRecord r : batch) {
            String key = r.logTimeMillis() + " " + r.stanzaId();
            // seen: Openfire can hold one stanza-id twice (a cluster re-send); the key takes it once.
            if (!stored.contains(key) && seen.add(key)) {
                fresh.add(r);
            }
        }
        return fresh;
    }

    DatabaseType targetType() {
        return targetType;
    }
}
