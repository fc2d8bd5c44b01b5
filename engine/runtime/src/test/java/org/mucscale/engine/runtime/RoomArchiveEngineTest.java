package org.mucscale.engine.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.engine.runtime.EngineFixture.SERVICE;
import static org.mucscale.engine.runtime.EngineFixture.groupchat;
import static org.mucscale.engine.runtime.EngineFixture.instantRoom;
import static org.mucscale.engine.runtime.EngineFixture.join;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;
import org.mucscale.engine.store.DatabaseType;
import org.mucscale.engine.store.RoomLogRecord;
import org.mucscale.engine.store.StandaloneDataSource;

/**
 * The room archive (XEP-0313) end to end in the engine, on a real (embedded, file-backed) HSQLDB: messages sent
 * through rooms, queries answered from the room log on the archive threads, refusals as the XEPs name them.
 */
class RoomArchiveEngineTest {
    static final String MAM = "urn:xmpp:mam:2";
    static final String ALICE = "alice@example.org/a";
    static final String BOB = "bob@example.org/b";
    static final String EVE = "eve@example.org/e";
    private static final Pattern RESULT = Pattern.compile("<result xmlns=\"urn:xmpp:mam:2\" id=\"([^\"]+)\""
            + "[^>]*>.*?<body>([^<]*)</body>");
    private static final AtomicInteger IDS = new AtomicInteger();

    @TempDir
    Path dir;
    HikariDataSource db;

    @BeforeEach
    void openDatabase() {
        db = StandaloneDataSource.create("jdbc:hsqldb:file:" + dir.resolve("db/mucscale") + ";shutdown=true", "SA", "",
                4);
    }

    @AfterEach
    void closeDatabase() {
        db.close();
    }

    /** Records what the engine sends, in order, with no per-add copying (10,000s of stanzas). */
    static final class Out implements Delivery {
        private final List<String[]> sent = new ArrayList<>();

        @Override
        public void deliver(RenderedStanza stanza, Jid recipient) {
            add(recipient.toString(), stanza.forRecipient(recipient));
        }

        @Override
        public void send(XmlElement stanza) {
            add(stanza.attribute("to"), stanza.toXml());
        }

        private synchronized void add(String to, String xml) {
            sent.add(new String[] {to, xml});
        }

        synchronized List<String> to(String recipient) {
            List<String> out = new ArrayList<>();
            for (String[] s : sent) {
                if (recipient.equals(s[0])) {
                    out.add(s[1]);
                }
            }
            return out;
        }

        synchronized int count(String recipient, String contains) {
            int n = 0;
            for (String[] s : sent) {
                if (recipient.equals(s[0]) && s[1].contains(contains)) {
                    n++;
                }
            }
            return n;
        }

        synchronized void clear() {
            sent.clear();
        }
    }

    private MucScaleEngine start(Out out, String... settings) {
        MucScaleEngine engine = MucScaleEngine.builder(SERVICE, EngineFixture.settings(dir.resolve("spill"), settings),
                out).database(db, DatabaseType.HSQLDB, true).build();
        engine.start();
        return engine;
    }

    /** An archive query; {@code fields} are var/value pairs of the form, {@code rsm} the children of RSM's set. */
    static XmlElement query(String from, String room, String id, String[] fields, XmlElement... rsm) {
        XmlElement.Builder q = XmlElement.builder("query", MAM).attribute("queryid", "q-" + id);
        if (fields.length > 0) {
            XmlElement.Builder x = XmlElement.builder("x", "jabber:x:data").attribute("type", "submit")
                    .child(field("FORM_TYPE", MAM));
            for (int i = 0; i < fields.length; i += 2) {
                x.child(field(fields[i], fields[i + 1]));
            }
            q.child(x.build());
        }
        if (rsm.length > 0) {
            XmlElement.Builder set = XmlElement.builder("set", "http://jabber.org/protocol/rsm");
            for (XmlElement e : rsm) {
                set.child(e);
            }
            q.child(set.build());
        }
        return XmlElement.builder("iq").attribute("type", "set").attribute("id", id).attribute("from", from)
                .attribute("to", room + "@" + SERVICE).child(q.build()).build();
    }

    static XmlElement field(String var, String... values) {
        XmlElement.Builder f = XmlElement.builder("field").attribute("var", var);
        for (String v : values) {
            f.child(XmlElement.builder("value").text(v).build());
        }
        return f.build();
    }

    static XmlElement rsm(String name, String text) {
        return XmlElement.builder(name).text(text).build();
    }

    /** Sends an IQ and returns everything its sender received for it: result messages, then the IQ reply. */
    static List<String> ask(MucScaleEngine engine, Out out, String from, XmlElement iq) throws Exception {
        String id = iq.attribute("id");
        int before = out.to(from).size();
        engine.process(iq);
        await(() -> out.to(from).stream().skip(before).anyMatch(x -> x.startsWith("<iq") && x.contains(
                "id=\"" + id + "\"")));
        List<String> got = new ArrayList<>(out.to(from).subList(before, out.to(from).size()));
        // the reply comes last: every result message arrives before the IQ result carrying <fin/>
        assertThat(got.get(got.size() - 1)).startsWith("<iq").contains("id=\"" + id + "\"");
        return got;
    }

    static String reply(List<String> got) {
        return got.get(got.size() - 1);
    }

    static String nextId() {
        return "mam-" + IDS.incrementAndGet();
    }

    private static void openRoom(MucScaleEngine engine, Out out, String room) throws Exception {
        engine.process(join(ALICE, room, "alice"));
        engine.process(instantRoom(ALICE, room));
        await(() -> out.to(ALICE).stream().anyMatch(x -> x.contains("id=\"cfg\"") && x.contains("result")));
    }

    @Test
    void paging10000Messages_forwardAndBackward_noGapNoDuplicate() throws Exception {
        Out out = new Out();
        // two senders at full speed: the flood limits are not what this test is about
        try (MucScaleEngine engine = start(out, "mucscale.muc.occupant-burst", "1000000",
                "mucscale.muc.room-burst", "10000000")) {
            openRoom(engine, out, "big");
            engine.process(join(BOB, "big", "bob"));
            int n = 10_000;
            for (int i = 0; i < n; i++) {
                engine.process(groupchat(i % 2 == 0 ? ALICE : BOB, "big", "m" + i));
            }
            await(() -> out.count(BOB, "<body>m") == n);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                expected.add("m" + i);
            }

            List<String> forward = new ArrayList<>();
            Set<String> ids = new HashSet<>();
            String after = null;
            int pages = 0;
            while (true) {
                XmlElement iq = after == null ? query(BOB, "big", nextId(), new String[0], rsm("max", "250"))
                        : query(BOB, "big", nextId(), new String[0], rsm("max", "250"), rsm("after", after));
                List<String> got = ask(engine, out, BOB, iq);
                String fin = reply(got);
                if (pages++ == 0) {
                    assertThat(fin).contains("<count>" + n + "</count>");
                }
                String last = null;
                for (String m : got.subList(0, got.size() - 1)) {
                    Matcher r = RESULT.matcher(m);
                    assertThat(r.find()).as(m).isTrue();
                    assertThat(ids.add(r.group(1))).as("duplicate id").isTrue();
                    forward.add(r.group(2));
                    last = r.group(1);
                }
                if (fin.contains("complete=\"true\"")) {
                    break;
                }
                assertThat(fin).contains("<last>" + last + "</last>");
                after = last;
            }
            assertThat(forward).isEqualTo(expected);
            assertThat(pages).isEqualTo(40);

            List<String> backward = new ArrayList<>();
            String before = "";
            while (true) {
                List<String> got = ask(engine, out, BOB, query(BOB, "big", nextId(), new String[0], rsm("max", "333"),
                        rsm("before", before)));
                List<String> page = new ArrayList<>();
                String first = null;
                for (String m : got.subList(0, got.size() - 1)) {
                    Matcher r = RESULT.matcher(m);
                    assertThat(r.find()).isTrue();
                    page.add(r.group(2));
                    if (first == null) {
                        first = r.group(1);
                    }
                }
                backward.addAll(0, page);
                if (reply(got).contains("complete=\"true\"")) {
                    break;
                }
                before = first;
            }
            assertThat(backward).isEqualTo(expected);
        }
    }

    @Test
    void resultMessages_carryDelayStanzaIdOccupantIdAndQueryId_andFormAndMetadataAnswer() throws Exception {
        Out out = new Out();
        try (MucScaleEngine engine = start(out)) {
            openRoom(engine, out, "r");
            engine.process(groupchat(ALICE, "r", "first"));
            engine.process(groupchat(ALICE, "r", "second"));
            await(() -> out.count(ALICE, "<body>second") == 1);
            String live = out.to(ALICE).stream().filter(x -> x.contains("<body>first")).findFirst().orElseThrow();
            String liveId = between(live, "<stanza-id xmlns=\"urn:xmpp:sid:0\" id=\"", "\"");
            String liveOccupantId = between(live, "<occupant-id xmlns=\"urn:xmpp:occupant-id:0\" id=\"", "\"");

            List<String> got = ask(engine, out, ALICE, query(ALICE, "r", "one", new String[0], rsm("max", "1")));
            assertThat(got).hasSize(2);
            assertThat(got.get(0)).contains("from=\"r@" + SERVICE + "\"", "queryid=\"q-one\"", "id=\"" + liveId + "\"",
                    "<forwarded xmlns=\"urn:xmpp:forward:0\"><delay xmlns=\"urn:xmpp:delay\" stamp=\"",
                    "<message xmlns=\"jabber:client\" from=\"r@" + SERVICE + "/alice\" type=\"groupchat\">",
                    "<body>first</body>", "<occupant-id xmlns=\"urn:xmpp:occupant-id:0\" id=\"" + liveOccupantId,
                    "<stanza-id xmlns=\"urn:xmpp:sid:0\" id=\"" + liveId + "\" by=\"r@" + SERVICE + "\"");
            assertThat(reply(got)).contains("type=\"result\"", "<fin xmlns=\"urn:xmpp:mam:2\"><set",
                    "<first>" + liveId + "</first>", "<count>2</count>").doesNotContain("complete");

            XmlElement formGet = XmlElement.builder("iq").attribute("type", "get").attribute("id", "form")
                    .attribute("from", ALICE).attribute("to", "r@" + SERVICE)
                    .child(XmlElement.builder("query", MAM).build()).build();
            assertThat(reply(ask(engine, out, ALICE, formGet))).contains("type=\"result\"", "var=\"FORM_TYPE\"",
                    "var=\"with\"", "var=\"start\"", "var=\"end\"", "var=\"before-id\"", "var=\"after-id\"",
                    "var=\"ids\"");

            XmlElement meta = XmlElement.builder("iq").attribute("type", "get").attribute("id", "meta")
                    .attribute("from", ALICE).attribute("to", "r@" + SERVICE)
                    .child(XmlElement.builder("metadata", MAM).build()).build();
            assertThat(reply(ask(engine, out, ALICE, meta))).contains("<metadata xmlns=\"urn:xmpp:mam:2\"><start id=\""
                    + liveId + "\" timestamp=\"", "<end id=\"");

            // a stored stanza (a moderation tombstone) is served as stored, not rebuilt from the columns
            String tomb = "<message xmlns=\"jabber:client\" from=\"r@" + SERVICE + "/alice\" type=\"groupchat\">"
                    + "<retracted xmlns=\"urn:xmpp:message-retract:1\" stamp=\"2026-01-01T00:00:00Z\"/>"
                    + "<stanza-id xmlns=\"urn:xmpp:sid:0\" id=\"tomb-1\" by=\"r@" + SERVICE + "\"/></message>";
            engine.store().offer(new RoomLogRecord("tomb-1", "r@" + SERVICE, System.currentTimeMillis(), "alice",
                    ALICE, null, null, "RETRACTED", tomb));
            got = ask(engine, out, ALICE, query(ALICE, "r", nextId(), new String[] {"ids", "tomb-1"}));
            assertThat(got).hasSize(2);
            assertThat(got.get(0)).contains("<retracted xmlns=\"urn:xmpp:message-retract:1\"").doesNotContain("<body>");
            // flip-page: the same page, newest first
            XmlElement flip = query(ALICE, "r", "flip", new String[0]);
            flip = flip.toBuilder().removeChildren("query").child(flip.child("query", MAM).toBuilder()
                    .child(XmlElement.builder("flip-page").build()).build()).build();
            got = ask(engine, out, ALICE, flip);
            assertThat(got.get(0)).contains("tomb-1");
            assertThat(got.get(2)).contains("<body>first</body>");
        }
    }

    @Test
    void refusals_areTheErrorsTheXepsName() throws Exception {
        Out out = new Out();
        try (MucScaleEngine engine = start(out, "mucscale.muc.archive-max-page", "3")) {
            openRoom(engine, out, "open");
            for (int i = 0; i < 5; i++) {
                engine.process(groupchat(ALICE, "open", "o" + i));
            }
            await(() -> out.count(ALICE, "<body>o4") == 1);
            // an open room without a password: anyone who could join may read, without joining
            assertThat(reply(ask(engine, out, EVE, query(EVE, "open", nextId(), new String[0])))).contains("<fin");
            // max beyond the setting is clamped to it
            List<String> got = ask(engine, out, EVE, query(EVE, "open", nextId(), new String[0], rsm("max", "1000")));
            assertThat(got).hasSize(4);
            assertError(engine, out, EVE, query(EVE, "open", nextId(), new String[] {"start", "yesterday"}),
                    "bad-request");
            assertError(engine, out, EVE, query(EVE, "open", nextId(), new String[] {"start", "2026-02-01T00:00:00Z",
                "end", "2026-01-01T00:00:00Z"}), "bad-request");
            assertError(engine, out, EVE, query(EVE, "open", nextId(), new String[] {"with", "other@" + SERVICE
                    + "/alice"}), "bad-request");
            assertError(engine, out, EVE, query(EVE, "open", nextId(), new String[] {"fulltext", "x"}), "bad-request");
            assertError(engine, out, EVE, query(EVE, "open", nextId(), new String[0], rsm("max", "-1")),
                    "bad-request");
            assertError(engine, out, EVE, query(EVE, "open", nextId(), new String[0], rsm("max", "ten")),
                    "bad-request");
            assertError(engine, out, EVE, query(EVE, "open", nextId(), new String[0], rsm("index", "2")),
                    "feature-not-implemented");
            assertError(engine, out, EVE, query(EVE, "open", nextId(), new String[] {"after-id", "no-such-id"}),
                    "item-not-found");
            assertError(engine, out, EVE, query(EVE, "open", nextId(), new String[] {"ids", "no-such-id"}),
                    "item-not-found");
            assertError(engine, out, EVE, query(EVE, "open", nextId(), new String[0], rsm("after", "no-such-id")),
                    "item-not-found");
            // with: one sender, as room@service/nick
            got = ask(engine, out, EVE, query(EVE, "open", nextId(), new String[] {"with", "open@" + SERVICE
                    + "/nobody"}));
            assertThat(reply(got)).contains("<count>0</count>", "complete=\"true\"");

            // members-only: a non-member gets forbidden even as it could see the room; a member need not join
            openRoom(engine, out, "club");
            engine.process(ownerSet(ALICE, "club", "muc#roomconfig_membersonly", "1"));
            engine.process(groupchat(ALICE, "club", "members only"));
            await(() -> out.count(ALICE, "<body>members only") == 1);
            assertError(engine, out, EVE, query(EVE, "club", nextId(), new String[0]), "forbidden");
            engine.process(XmlElement.builder("iq").attribute("type", "set").attribute("id", "aff")
                    .attribute("from", ALICE).attribute("to", "club@" + SERVICE)
                    .child(XmlElement.builder("query", "http://jabber.org/protocol/muc#admin")
                            .child(XmlElement.builder("item").attribute("jid", "bob@example.org")
                                    .attribute("affiliation", "member").build()).build()).build());
            await(() -> out.to(ALICE).stream().anyMatch(x -> x.contains("id=\"aff\"")));
            assertThat(reply(ask(engine, out, BOB, query(BOB, "club", nextId(), new String[0]))))
                    .contains("<count>1</count>");

            // password-protected: only occupants (who gave the password) and members
            openRoom(engine, out, "secret");
            engine.process(ownerSet(ALICE, "secret", "muc#roomconfig_passwordprotectedroom", "1",
                    "muc#roomconfig_roomsecret", "pw"));
            await(() -> out.to(ALICE).stream().filter(x -> x.contains("id=\"owner-secret\"")).count() == 1);
            assertError(engine, out, EVE, query(EVE, "secret", nextId(), new String[0]), "forbidden");
            assertThat(reply(ask(engine, out, ALICE, query(ALICE, "secret", nextId(), new String[0])))).contains("<fin");

            // an outcast is refused whatever the room
            engine.process(XmlElement.builder("iq").attribute("type", "set").attribute("id", "ban")
                    .attribute("from", ALICE).attribute("to", "open@" + SERVICE)
                    .child(XmlElement.builder("query", "http://jabber.org/protocol/muc#admin")
                            .child(XmlElement.builder("item").attribute("jid", "eve@example.org")
                                    .attribute("affiliation", "outcast").build()).build()).build());
            await(() -> out.to(ALICE).stream().anyMatch(x -> x.contains("id=\"ban\"")));
            assertError(engine, out, EVE, query(EVE, "open", nextId(), new String[0]), "forbidden");
        }
    }

    @Test
    void enableArchiving_decidesDiscoAndQueries_andPersistsAcrossARestart() throws Exception {
        Out out = new Out();
        try (MucScaleEngine engine = start(out, "mucscale.muc.default-persistent", "true")) {
            openRoom(engine, out, "quiet");
            assertThat(disco(engine, out, "quiet")).contains("var=\"urn:xmpp:mam:2\"",
                    "var=\"urn:xmpp:mam:2#extended\"");
            engine.process(ownerSet(ALICE, "quiet", "muc#roomconfig_enablearchiving", "0"));
            await(() -> out.to(ALICE).stream().anyMatch(x -> x.contains("id=\"owner-quiet\"")));
            assertThat(disco(engine, out, "quiet")).doesNotContain("urn:xmpp:mam:2");
            assertError(engine, out, ALICE, query(ALICE, "quiet", nextId(), new String[0]), "service-unavailable");
            await(() -> "false".equals(engine.store().rooms().loadRoom("quiet@" + SERVICE).orElseThrow().config()
                    .get("archiving")));
        }
        Out after = new Out();
        try (MucScaleEngine engine = start(after)) {
            assertThat(disco(engine, after, "quiet")).doesNotContain("urn:xmpp:mam:2");
        }
        Out off = new Out();
        try (MucScaleEngine engine = start(off, "mucscale.muc.archive-by-default", "false")) {
            openRoom(engine, off, "plain");
            assertThat(disco(engine, off, "plain")).doesNotContain("urn:xmpp:mam:2");
        }
    }

    private static String disco(MucScaleEngine engine, Out out, String room) throws Exception {
        XmlElement iq = XmlElement.builder("iq").attribute("type", "get").attribute("id", nextId())
                .attribute("from", ALICE).attribute("to", room + "@" + SERVICE)
                .child(XmlElement.builder("query", "http://jabber.org/protocol/disco#info").build()).build();
        return reply(ask(engine, out, ALICE, iq));
    }

    static XmlElement ownerSet(String owner, String room, String... fields) {
        XmlElement.Builder x = XmlElement.builder("x", "jabber:x:data").attribute("type", "submit")
                .child(field("FORM_TYPE", "http://jabber.org/protocol/muc#roomconfig"));
        for (int i = 0; i < fields.length; i += 2) {
            x.child(field(fields[i], fields[i + 1]));
        }
        return XmlElement.builder("iq").attribute("type", "set").attribute("id", "owner-" + room)
                .attribute("from", owner).attribute("to", room + "@" + SERVICE)
                .child(XmlElement.builder("query", "http://jabber.org/protocol/muc#owner").child(x.build()).build())
                .build();
    }

    private static void assertError(MucScaleEngine engine, Out out, String from, XmlElement iq, String condition)
            throws Exception {
        List<String> got = ask(engine, out, from, iq);
        assertThat(got).as("no result messages before an error").hasSize(1);
        assertThat(reply(got)).contains("type=\"error\"", "<" + condition + " ");
    }

    private static String between(String s, String start, String end) {
        int i = s.indexOf(start);
        assertThat(i).as(start + " in " + s).isNotNegative();
        int from = i + start.length();
        return s.substring(from, s.indexOf(end, from));
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static void await(Check check) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!check.ok()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 60 s");
            }
            Thread.sleep(5);
        }
    }
}
