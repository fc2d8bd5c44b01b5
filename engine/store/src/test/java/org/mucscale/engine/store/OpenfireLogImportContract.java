package org.mucscale.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Openfire conversation log import against real databases (one subclass per database). The source tables are
 * created by {@link #createOpenfireTables} with DDL written for this test: the columns and types of Openfire 5.1.1's
 * {@code ofMucService}, {@code ofMucRoom} (the columns the import reads plus the rest of its key columns) and
 * {@code ofMucConversationLog} (every column), as Openfire's own install scripts for that database declare them.
 */
abstract class OpenfireLogImportContract {
    static final String DOMAIN = "example.org";
    static final long T0 = 1_700_000_000_000L;

    abstract DataSource source();

    abstract DataSource target();

    abstract DatabaseType targetType();

    /** Openfire 5.1.1's type of long text on this database (LONGVARCHAR on HSQLDB, TEXT elsewhere). */
    abstract String textType();

    /** Openfire 5.1.1's type of ids on this database (INTEGER on PostgreSQL, BIGINT elsewhere). */
    String idType() {
        return "BIGINT";
    }

    /** Openfire 5.1.1's type of ofMucConversationLog.sender (TEXT on MySQL/MariaDB, VARCHAR(1024) elsewhere). */
    String senderType() {
        return "VARCHAR(1024)";
    }

    @BeforeEach
    void freshTables() throws Exception {
        SchemaInstaller.install(target(), targetType());
        execute(target(), "DELETE FROM mucscaleRoomLog");
        for (String t : new String[] {"ofMucConversationLog", "ofMucRoom", "ofMucService"}) {
            try {
                execute(source(), "DROP TABLE " + t);
            } catch (SQLException absent) {
                // first test on this database
            }
        }
        createOpenfireTables();
        service(1, "conference");
        service(2, "other");
    }

    void createOpenfireTables() throws SQLException {
        String id = idType();
        execute(source(), "CREATE TABLE ofMucService (serviceID " + id + " NOT NULL, subdomain VARCHAR(255) NOT NULL,"
                + " description VARCHAR(255), isHidden INTEGER NOT NULL, PRIMARY KEY (subdomain))");
        execute(source(), "CREATE TABLE ofMucRoom (serviceID " + id + " NOT NULL, roomID " + id + " NOT NULL,"
                + " creationDate CHAR(15) NOT NULL, modificationDate CHAR(15) NOT NULL, name VARCHAR(50) NOT NULL,"
                + " naturalName VARCHAR(255) NOT NULL, description VARCHAR(255), PRIMARY KEY (serviceID, name))");
        execute(source(), "CREATE TABLE ofMucConversationLog (roomID " + id + " NOT NULL,"
                + " messageID " + id + " NOT NULL, sender " + senderType() + " NOT NULL,"
                + " nickname VARCHAR(255) NULL, logTime CHAR(15) NOT NULL, subject VARCHAR(255) NULL,"
                + " body " + textType() + " NULL, stanza " + textType() + " NULL)");
        execute(source(), "CREATE INDEX ofMucConversationLog_roomtime_idx ON ofMucConversationLog (roomID, logTime)");
    }

    // ---------------------------------------------------------------------------------------------- the tests

    @Test
    void importsEveryRow_withItsStanzaIdTimeAndText_andHistoryReturnsThemInOrder() throws Exception {
        room(1, 10, "lobby");
        int n = 2_345; // three pages of 1000, the page boundaries inside runs of equal logTime
        List<RoomLogRecord> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long time = T0 + i / 3; // three messages per millisecond
            String nick = i % 5 == 0 ? "sp\uD83D\uDE80ce" : "nick" + (i % 4);
            String body = i % 7 == 0 ? "party \uD83C\uDF89 " + i : "message " + i;
            String subject = i % 100 == 0 ? "topic \uD83D\uDCAC " + i : null;
            String sid = "of-sid-" + i;
            String stanza = null;
            if (i % 3 == 0) { // Openfire's stored XML with its stanza-id
                stanza = "<message type=\"groupchat\" from=\"lobby@conference." + DOMAIN + "/" + nick + "\" to=\"u"
                        + i + "@" + DOMAIN + "/r\"><body>" + body + "</body><stanza-id xmlns=\"urn:xmpp:sid:0\" id=\""
                        + sid + "\" by=\"lobby@conference." + DOMAIN + "\"/></message>";
            } else if (i % 3 == 1) { // XML without a stanza-id (xmpp.sid.enabled off)
                stanza = "<message type=\"groupchat\" from=\"lobby@conference." + DOMAIN + "/" + nick
                        + "\"><body>" + body + "</body></message>";
            }
            String id = i % 3 == 0 ? sid : OpenfireLogImport.derivedStanzaId("conference." + DOMAIN, 10, 5000 + i);
            log(10, 5000 + i, "user" + i + "@" + DOMAIN + "/phone", nick, time, subject, body, stanza);
            expected.add(new RoomLogRecord(id, "lobby@chat." + DOMAIN, time, nick, "user" + i + "@" + DOMAIN
                    + "/phone", body, subject, null, null));
        }

        OpenfireLogImport.Report report = importer(options().batchSize(1000)).run();

        assertThat(report.read()).isEqualTo(n);
        assertThat(report.inserted()).isEqualTo(n);
        assertThat(report.skipped()).isZero();
        assertThat(report.problems()).isEmpty();
        expected.sort(RoomLogReader.BY_TIME);
        RoomLogReader reader = new RoomLogReader(target(), targetType(), null);
        List<RoomLogRecord> all = reader.between("lobby@chat." + DOMAIN, 0, Long.MAX_VALUE, n + 10);
        assertThat(all).hasSize(n);
        for (int k = 0; k < n; k++) {
            RoomLogRecord got = all.get(k);
            RoomLogRecord want = expected.get(k);
            assertThat(new RoomLogRecord(got.stanzaId(), got.roomJid(), got.logTimeMillis(), got.senderNick(),
                    got.senderJid(), got.body(), got.subject(), got.filterAction(), null)).isEqualTo(want);
        }
        List<RoomLogRecord> last = reader.history("lobby@chat." + DOMAIN, 50, 0);
        assertThat(last).containsExactlyElementsOf(all.subList(n - 50, n));

        RoomLogRecord withXml = all.stream().filter(r -> r.stanzaId().equals("of-sid-3")).findFirst().orElseThrow();
        assertThat(withXml.stanza()).contains("from=\"lobby@chat." + DOMAIN + "/nick3\"")
                .contains("by=\"lobby@chat." + DOMAIN + "\"").contains("id=\"of-sid-3\"")
                .contains("to=\"u3@" + DOMAIN + "/r\"").doesNotContain("conference");
        assertThat(all.stream().filter(r -> r.stanza() == null).count()).isEqualTo(n / 3);
    }

    @Test
    void reRun_insertsNothingTwice_andAnInterruptedRunIsCompletedByTheNext() throws Exception {
        room(1, 10, "lobby");
        for (int i = 0; i < 1_200; i++) {
            log(10, i, "u@" + DOMAIN + "/r", "nick", T0 + i, null, "m" + i, i % 2 == 0 ? stanza("lobby", "nick",
                    "m" + i, "sid-" + i) : null);
        }
        OpenfireLogImport.Report first = importer(options().batchSize(500)).run();
        assertThat(first.inserted()).isEqualTo(1_200);

        OpenfireLogImport.Report second = importer(options().batchSize(500)).run();
        assertThat(second.read()).isEqualTo(1_200);
        assertThat(second.inserted()).isZero();
        assertThat(second.alreadyPresent()).isEqualTo(1_200);
        assertThat(StoreTestSupport.counts(target())).containsExactly(1_200, 1_200);

        // As if the first run had stopped after 700 rows: the next run inserts exactly the rest.
        execute(target(), "DELETE FROM mucscaleRoomLog WHERE logTime >= " + (T0 + 700));
        OpenfireLogImport.Report resumed = importer(options().batchSize(500)).run();
        assertThat(resumed.inserted()).isEqualTo(500);
        assertThat(resumed.alreadyPresent()).isEqualTo(700);
        assertThat(StoreTestSupport.counts(target())).containsExactly(1_200, 1_200);
    }

    @Test
    void anInterruptedImport_stopsBetweenPages_keepingWhatItCommitted_andTheNextRunCompletesIt() throws Exception {
        room(1, 10, "lobby");
        room(1, 11, "guild");
        for (int i = 0; i < 250; i++) {
            log(10, i, "u@" + DOMAIN + "/r", "nick", T0 + i, null, "m" + i, null);
            log(11, 1000 + i, "u@" + DOMAIN + "/r", "nick", T0 + i, null, "g" + i, null);
        }
        // The progress line of a committed page runs on the importing thread: interrupt it there, as a plugin unload
        // interrupts the admin page's import thread.
        OpenfireLogImport.Report stopped;
        try {
            stopped = new OpenfireLogImport(source(), target(), targetType(), options().batchSize(100), line -> {
                if (line.contains(": 100 read")) {
                    Thread.currentThread().interrupt();
                }
            }).run();
        } finally {
            Thread.interrupted();
        }
        assertThat(stopped.stopped()).isTrue();
        assertThat(stopped.rooms()).isEmpty(); // "guild" (first by name) was not finished, "lobby" not started
        assertThat(stopped.inserted()).isEqualTo(100);
        assertThat(StoreTestSupport.counts(target())[0]).isEqualTo(100);

        OpenfireLogImport.Report next = importer(options().batchSize(100)).run();
        assertThat(next.stopped()).isFalse();
        assertThat(next.rooms()).containsExactly("guild", "lobby");
        assertThat(next.inserted()).isEqualTo(400);
        assertThat(next.alreadyPresent()).isEqualTo(100);
        assertThat(StoreTestSupport.counts(target())).containsExactly(500, 500);
    }

    @Test
    void badRows_areReportedAndSkipped_andTheRestOfTheirPageIsImported() throws Exception {
        room(1, 10, "lobby");
        for (int i = 0; i < 20; i++) {
            log(10, i, "u@" + DOMAIN + "/r", "nick", T0 + i, null, "good " + i, null);
        }
        logRaw(10, 100, "u@" + DOMAIN + "/r", "nick", "not-a-time", null, "bad time", null);
        logRaw(10, 101, "u@" + DOMAIN + "/r", null, "001700000000050", null, "no nick at all", null);
        // no nickname column, but the stored XML's from names it: imported under that nickname
        logRaw(10, 102, "u@" + DOMAIN + "/r", null, "001700000000051", null, "nick from xml",
                stanza("lobby", "fromxml", "nick from xml", "sid-102"));
        // XML that does not parse: imported from the columns, without the XML
        logRaw(10, 103, "u@" + DOMAIN + "/r", "nick", "001700000000052", null, "broken xml", "<message><body>");
        // a nickname the room log cannot hold (senderNick is VARCHAR(1023)): refused by the target, skipped alone
        logRaw(10, 104, "u@" + DOMAIN + "/r", null, "001700000000053", null, "too long",
                stanza("lobby", "n".repeat(2000), "too long", "sid-104"));
        // an entity declaration: refused as XML, the message still imported
        logRaw(10, 105, "u@" + DOMAIN + "/r", "nick", "001700000000054", null, "xxe",
                "<!DOCTYPE m [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><message><body>&x;</body></message>");

        OpenfireLogImport.Report report = importer(options().batchSize(1000)).run();

        assertThat(report.read()).isEqualTo(26);
        assertThat(report.inserted()).isEqualTo(23);
        assertThat(report.skipped()).isEqualTo(3);
        assertThat(report.stanzaDropped()).isEqualTo(2);
        assertThat(report.problems()).extracting(Object::toString).anySatisfy(p ->
                assertThat(p).startsWith("lobby message 100: logTime 'not-a-time").endsWith("skipped"));
        assertThat(report.problems()).extracting(Object::toString).anySatisfy(p ->
                assertThat(p).isEqualTo("lobby message 101: no nickname (column and stanza); skipped"));
        assertThat(report.problems()).extracting(Object::toString).anySatisfy(p ->
                assertThat(p).startsWith("lobby message 103: stanza XML not parseable"));
        assertThat(report.problems()).extracting(Object::toString).anySatisfy(p ->
                assertThat(p).startsWith("lobby message 105: stanza XML not parseable"));
        assertThat(report.problems()).extracting(Object::toString).anySatisfy(p ->
                assertThat(p).startsWith("lobby message 104: stanza id sid-104").contains("refused by the room log"));
        List<RoomLogRecord> all = new RoomLogReader(target(), targetType(), null)
                .between("lobby@chat." + DOMAIN, 0, Long.MAX_VALUE, 100);
        assertThat(all).extracting(RoomLogRecord::body).contains("nick from xml", "broken xml", "xxe", "good 19")
                .doesNotContain("bad time", "no nick at all", "too long");
        assertThat(all).filteredOn(r -> r.body().equals("nick from xml")).singleElement()
                .satisfies(r -> assertThat(r.senderNick()).isEqualTo("fromxml"))
                .satisfies(r -> assertThat(r.stanzaId()).isEqualTo("sid-102"));
        assertThat(all).filteredOn(r -> r.body().equals("xxe")).singleElement()
                .satisfies(r -> assertThat(r.stanza()).isNull());
    }

    @Test
    void onlySelectedRoomsOfTheNamedServiceAreImported_toTheirNewAddresses() throws Exception {
        room(1, 10, "lobby");
        room(1, 11, "guild");
        room(1, 12, "staff");
        room(2, 13, "lobby"); // same name on another Openfire MUC service
        for (long roomId = 10; roomId <= 13; roomId++) {
            for (int i = 0; i < 5; i++) {
                log(roomId, roomId * 100 + i, "u@" + DOMAIN + "/r", "nick", T0 + i, null, "room " + roomId, null);
            }
        }

        OpenfireLogImport.Report report = importer(new OpenfireLogImport.Options().domain(DOMAIN)
                .toService("chat").room("lobby").room("guild", "clan@games." + DOMAIN)).run();

        assertThat(report.rooms()).containsExactlyInAnyOrder("lobby", "guild");
        assertThat(report.inserted()).isEqualTo(10);
        RoomLogReader reader = new RoomLogReader(target(), targetType(), null);
        assertThat(reader.between("lobby@chat." + DOMAIN, 0, Long.MAX_VALUE, 100)).extracting(RoomLogRecord::body)
                .containsOnly("room 10").hasSize(5);
        assertThat(reader.between("clan@games." + DOMAIN, 0, Long.MAX_VALUE, 100)).extracting(RoomLogRecord::body)
                .containsOnly("room 11").hasSize(5);
        assertThat(StoreTestSupport.counts(target())[0]).isEqualTo(10);

        OpenfireLogImport.Report other = importer(new OpenfireLogImport.Options().domain(DOMAIN).fromService("other")
                .toService("chat2")).run();
        assertThat(other.rooms()).containsExactly("lobby");
        assertThat(reader.between("lobby@chat2." + DOMAIN, 0, Long.MAX_VALUE, 100)).extracting(RoomLogRecord::body)
                .containsOnly("room 13").hasSize(5);
    }

    @Test
    void anUnknownRoom_isRefusedBeforeAnythingIsWritten() throws Exception {
        room(1, 10, "lobby");
        log(10, 1, "u@" + DOMAIN + "/r", "nick", T0, null, "hello", null);

        assertThatThrownBy(() -> importer(options().room("lobby").room("lobbby")).run())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no room lobbby in Openfire's MUC service 'conference' (ofMucRoom/ofMucService)");
        assertThat(StoreTestSupport.counts(target())[0]).isZero();
    }

    // ---------------------------------------------------------------------------------------------- helpers

    OpenfireLogImport.Options options() {
        return new OpenfireLogImport.Options().domain(DOMAIN).fromService("conference").toService("chat");
    }

    OpenfireLogImport importer(OpenfireLogImport.Options options) {
        return new OpenfireLogImport(source(), target(), targetType(), options, line -> { });
    }

    static String stanza(String room, String nick, String body, String stanzaId) {
        return "<message type=\"groupchat\" from=\"" + room + "@conference." + DOMAIN + "/" + nick + "\"><body>"
                + body + "</body><stanza-id xmlns=\"urn:xmpp:sid:0\" id=\"" + stanzaId + "\" by=\"" + room
                + "@conference." + DOMAIN + "\"/></message>";
    }

    void service(long id, String subdomain) throws SQLException {
        try (Connection c = source().getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO ofMucService (serviceID, subdomain, description, isHidden) VALUES (?, ?, NULL, 0)")) {
            ps.setLong(1, id);
            ps.setString(2, subdomain);
            ps.executeUpdate();
        }
    }

    void room(long serviceId, long roomId, String name) throws SQLException {
        try (Connection c = source().getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO ofMucRoom (serviceID, roomID, creationDate, modificationDate, name, naturalName)"
                        + " VALUES (?, ?, '001700000000000', '001700000000000', ?, ?)")) {
            ps.setLong(1, serviceId);
            ps.setLong(2, roomId);
            ps.setString(3, name);
            ps.setString(4, name.toUpperCase());
            ps.executeUpdate();
        }
    }

    /** A row as Openfire writes it: logTime zero-padded to 15 digits (StringUtils.dateToMillis). */
    void log(long roomId, long messageId, String sender, String nick, long time, String subject, String body,
             String stanza) throws SQLException {
        logRaw(roomId, messageId, sender, nick, String.format("%015d", time), subject, body, stanza);
    }

    void logRaw(long roomId, long messageId, String sender, String nick, String logTime, String subject,
                String body, String stanza) throws SQLException {
        try (Connection c = source().getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO ofMucConversationLog (roomID, messageID, sender, nickname, logTime, subject, body, stanza)"
                        + " VALUES (?,?,?,?,?,?,?,?)")) {
            ps.setLong(1, roomId);
            ps.setLong(2, messageId);
            ps.setString(3, sender);
            ps.setString(4, nick);
            ps.setString(5, logTime);
            ps.setString(6, subject);
            ps.setString(7, body);
            ps.setString(8, stanza);
            ps.executeUpdate();
        }
    }

    static void execute(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
