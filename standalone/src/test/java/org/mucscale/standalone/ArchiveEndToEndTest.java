package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jivesoftware.smack.packet.Message;
import org.jivesoftware.smack.tcp.XMPPTCPConnection;
import org.jivesoftware.smackx.mam.MamManager;
import org.jivesoftware.smackx.muc.MultiUserChatManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.jxmpp.jid.impl.JidCreate;
import org.mucscale.engine.stanza.XmlElement;
import org.mucscale.testkit.SmackQuirks;

/**
 * The room archive (XEP-0313) through a real Prosody with real clients: 10,000 messages sent by raw clients, paged
 * forwards and backwards by Smack's MamManager (as a client app would) and by raw queries, with no gap or duplicate;
 * queries that must be refused get the XEPs' errors on the wire.
 */
class ArchiveEndToEndTest {
    static {
        SmackQuirks.disableSmackParserAssertions();
    }

    static final int MESSAGES = 10_000;
    static final Duration WAIT = Duration.ofSeconds(120);
    private static E2eFixture fx;

    @BeforeAll
    static void start() throws Exception {
        // the flood limits are not what this test is about: 10,000 messages at full speed
        fx = new E2eFixture(3, Map.of("mucscale.muc.occupant-burst", "1000000", "mucscale.muc.room-burst",
                "10000000"));
    }

    @AfterAll
    static void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private static void join(RawXmppClient c, String room, String nick) throws Exception {
        c.write("<presence to='" + room + "/" + nick + "'><x xmlns='http://jabber.org/protocol/muc'>"
                + "<history maxstanzas='0'/></x></presence>");
        c.expect(e -> e.name().equals("presence") && (room + "/" + nick).equals(e.attribute("from"))
                && e.attribute("type") == null, nick + " joined " + room);
    }

    private static void unlock(RawXmppClient owner, String room, String fields) throws Exception {
        owner.write("<iq type='set' to='" + room + "' id='unlock'><query xmlns='http://jabber.org/protocol/muc#owner'>"
                + "<x xmlns='jabber:x:data' type='submit'>" + fields + "</x></query></iq>");
        XmlElement r = owner.expect(e -> "unlock".equals(e.attribute("id")), "room configured");
        assertThat(r.attribute("type")).isEqualTo("result");
    }

    /** An archive query IQ's answer: the result messages, then the IQ reply (last). */
    private static List<XmlElement> ask(RawXmppClient c, String room, String id, String queryChildren)
            throws Exception {
        c.write("<iq type='set' to='" + room + "' id='" + id + "'><query xmlns='urn:xmpp:mam:2' queryid='" + id + "'>"
                + queryChildren + "</query></iq>");
        List<XmlElement> got = new ArrayList<>();
        while (true) {
            XmlElement e = c.expect(x -> (x.name().equals("message") && x.child("result", "urn:xmpp:mam:2") != null
                    && id.equals(x.child("result", "urn:xmpp:mam:2").attribute("queryid")))
                    || (x.name().equals("iq") && id.equals(x.attribute("id"))), "archive answer " + id, WAIT);
            got.add(e);
            if (e.name().equals("iq")) {
                return got;
            }
        }
    }

    private static String body(XmlElement resultMessage) {
        return resultMessage.child("result", "urn:xmpp:mam:2").child("forwarded", "urn:xmpp:forward:0")
                .child("message").childText("body");
    }

    private static String condition(XmlElement iq) {
        assertThat(iq.attribute("type")).isEqualTo("error");
        XmlElement error = iq.child("error");
        for (XmlElement e : error.elements()) {
            if ("urn:ietf:params:xml:ns:xmpp-stanzas".equals(e.namespace()) && !e.name().equals("text")) {
                return e.name();
            }
        }
        throw new AssertionError("no condition in " + iq);
    }

    @Test
    void tenThousandMessages_pagedBothWaysBySmackAndRawClients_noGapNoDuplicate() throws Exception {
        String room = E2eFixture.room("archive");
        RawXmppClient owner = fx.raw(0);
        join(owner, room, "owner");
        unlock(owner, room, "");
        RawXmppClient other = fx.raw(1);
        join(other, room, "other");
        List<String> expected = new ArrayList<>();
        StringBuilder batch = new StringBuilder();
        for (int i = 0; i < MESSAGES; i++) {
            expected.add("m" + i);
            batch.append("<message to='").append(room).append("' type='groupchat'><body>m").append(i)
                    .append("</body></message>");
            if (batch.length() > 32_000 || i == MESSAGES - 1) {
                owner.write(batch.toString()); // one stream: the room accepts them in send order
                batch.setLength(0);
            }
        }
        String lastBody = "m" + (MESSAGES - 1);
        other.expect(e -> e.name().equals("message") && lastBody.equals(e.childText("body")), "last message", WAIT);

        // Smack's MamManager on the room, by a user who never joined (an open room: anyone who could join may read)
        XMPPTCPConnection smack = fx.smack(2);
        MamManager mam = MamManager.getInstanceFor(MultiUserChatManager.getInstanceFor(smack)
                .getMultiUserChat(JidCreate.entityBareFrom(room)));
        assertThat(mam.isSupported()).isTrue();
        MamManager.MamQuery q = mam.queryArchive(MamManager.MamQueryArgs.builder().setResultPageSizeTo(250).build());
        List<String> forward = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        q.getMessages().forEach(m -> forward.add(m.getBody()));
        int pages = 1;
        while (!q.isComplete()) {
            List<Message> page = q.pageNext(250);
            page.forEach(m -> forward.add(m.getBody()));
            pages++;
        }
        assertSame("Smack forward", forward, expected);
        assertThat(pages).isEqualTo(MESSAGES / 250);

        MamManager.MamQuery back = mam.queryArchive(MamManager.MamQueryArgs.builder().setResultPageSizeTo(250)
                .queryLastPage().build());
        List<String> backward = new ArrayList<>();
        back.getMessages().forEach(m -> backward.add(m.getBody()));
        while (!back.isComplete()) {
            List<String> page = new ArrayList<>();
            back.pagePrevious(250).forEach(m -> page.add(m.getBody()));
            backward.addAll(0, page);
        }
        assertSame("Smack backward", backward, expected);

        // a raw client pages forwards with RSM after, checking ids and the count on the wire
        List<String> raw = new ArrayList<>();
        String after = null;
        int n = 0;
        while (true) {
            List<XmlElement> got = ask(other, room, "raw" + n, "<set xmlns='http://jabber.org/protocol/rsm'>"
                    + "<max>1000</max>" + (after == null ? "" : "<after>" + after + "</after>") + "</set>");
            XmlElement fin = got.get(got.size() - 1).child("fin", "urn:xmpp:mam:2");
            if (n++ == 0) {
                assertThat(fin.child("set", "http://jabber.org/protocol/rsm").childText("count"))
                        .isEqualTo(Integer.toString(MESSAGES));
            }
            for (XmlElement m : got.subList(0, got.size() - 1)) {
                String id = m.child("result", "urn:xmpp:mam:2").attribute("id");
                assertThat(ids.add(id)).as("duplicate id " + id).isTrue();
                XmlElement forwarded = m.child("result", "urn:xmpp:mam:2").child("forwarded", "urn:xmpp:forward:0");
                assertThat(forwarded.child("delay", "urn:xmpp:delay").attribute("stamp")).isNotNull();
                assertThat(forwarded.child("message").child("stanza-id", "urn:xmpp:sid:0").attribute("id"))
                        .isEqualTo(id);
                assertThat(forwarded.child("message").child("occupant-id", "urn:xmpp:occupant-id:0")).isNotNull();
                raw.add(body(m));
                after = id;
            }
            if ("true".equals(fin.attribute("complete"))) {
                break;
            }
        }
        assertSame("raw forward with max clamped to 250", raw, expected);
        assertThat(n).isEqualTo(MESSAGES / 250);
    }

    /** Equal lists, or the first difference named (a 10,000-element diff is unreadable). */
    private static void assertSame(String what, List<String> actual, List<String> expected) {
        for (int i = 0; i < Math.min(actual.size(), expected.size()); i++) {
            if (!actual.get(i).equals(expected.get(i))) {
                throw new AssertionError(what + ": at " + i + " expected " + expected.get(i) + " but got "
                        + actual.subList(i, Math.min(actual.size(), i + 5)) + " (sizes " + actual.size() + " and "
                        + expected.size() + ")");
            }
        }
        assertThat(actual.size()).as(what + ": size").isEqualTo(expected.size());
    }

    @Test
    void refusedQueries_getTheErrorsTheXepsName() throws Exception {
        String club = E2eFixture.room("club");
        RawXmppClient owner = fx.raw(0);
        join(owner, club, "owner");
        unlock(owner, club, "<field var='muc#roomconfig_membersonly'><value>1</value></field>");
        owner.write("<message to='" + club + "' type='groupchat'><body>members only</body></message>");
        owner.expect(e -> "members only".equals(e.childText("body")), "own message");
        RawXmppClient outsider = fx.raw(1);
        assertThat(condition(ask(outsider, club, "nm", "").get(0))).isEqualTo("forbidden");
        assertThat(ask(owner, club, "ok", "")).hasSize(2);
        String form = "<x xmlns='jabber:x:data' type='submit'><field var='FORM_TYPE'><value>urn:xmpp:mam:2</value>"
                + "</field>";
        assertThat(condition(ask(owner, club, "bad", form + "<field var='start'><value>last week</value></field></x>")
                .get(0))).isEqualTo("bad-request");
        assertThat(condition(ask(owner, club, "unk", form + "<field var='after-id'><value>nope</value></field></x>")
                .get(0))).isEqualTo("item-not-found");
        assertThat(condition(ask(owner, club, "idx", "<set xmlns='http://jabber.org/protocol/rsm'><index>3</index>"
                + "</set>").get(0))).isEqualTo("feature-not-implemented");
    }
}
