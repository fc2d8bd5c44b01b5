package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Flood control and bad client input end to end (raw c2s clients through real Prosody): violations are refused
 * with an error carrying a clear text, other occupants see nothing of them, moderators are exempt from the rate, and
 * other rooms are unaffected.
 */
class FloodAndClientInputEndToEndTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static E2eFixture fx;

    @BeforeAll
    static void start() throws Exception {
        fx = new E2eFixture(6, Map.of(
                "mucscale.muc.occupant-messages-per-second", "1",
                "mucscale.muc.occupant-burst", "3",
                "mucscale.muc.max-message-bytes", "200",
                "mucscale.muc.max-message-lines", "3"));
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

    /** Owner creates an instant room; the others join as participants. */
    private static List<RawXmppClient> room(String name, int... users) throws Exception {
        List<RawXmppClient> cs = new ArrayList<>();
        for (int i = 0; i < users.length; i++) {
            RawXmppClient c = fx.raw(users[i]);
            join(c, E2eFixture.room(name), "u" + users[i]);
            if (i == 0) {
                c.write("<iq type='set' to='" + E2eFixture.room(name) + "' id='unlock'><query "
                        + "xmlns='http://jabber.org/protocol/muc#owner'><x xmlns='jabber:x:data' type='submit'/>"
                        + "</query></iq>");
                c.expect(e -> "unlock".equals(e.attribute("id")), "instant room");
            }
            cs.add(c);
        }
        return cs;
    }

    private static XmlElement errorOf(XmlElement stanza) {
        return stanza.child("error");
    }

    private static String condition(XmlElement stanza) {
        for (XmlElement c : errorOf(stanza).elements()) {
            if (!c.name().equals("text")) {
                return c.name();
            }
        }
        return null;
    }

    @Test
    void rejoin_rightAfterLastOccupantLeft_everyJoinAnswered() throws Exception {
        RawXmppClient c = fx.raw(3);
        for (int i = 0; i < 30; i++) {
            String id = "rj" + i;
            c.write("<presence id='" + id + "' to='" + E2eFixture.room("revolving") + "/me'><x xmlns='http://jabber.org/protocol/muc'/>"
                    + "</presence>");
            XmlElement joined = c.expect(e -> e.name().equals("presence") && id.equals(e.attribute("id")),
                    "answer to join " + i, WAIT);
            assertThat(joined.attribute("type")).as("join %d", i).isNull();
            String leaveId = "lv" + i;
            c.write("<presence id='" + leaveId + "' type='unavailable' to='" + E2eFixture.room("revolving") + "/me'/>");
            c.expect(e -> e.name().equals("presence") && leaveId.equals(e.attribute("id")), "answer to leave " + i,
                    WAIT);
        }
    }

    @Test
    void participantFlood_excessRefusedWithResourceConstraintAndText_othersSeeOnlyAccepted() throws Exception {
        List<RawXmppClient> cs = room("floody", 0, 1, 2);
        RawXmppClient sender = cs.get(1);
        for (int i = 0; i < 10; i++) {
            sender.write("<message to='" + E2eFixture.room("floody") + "' type='groupchat' id='fl" + i + "'><body>m" + i
                    + "</body></message>");
        }
        int accepted = 0;
        int refused = 0;
        for (int i = 0; i < 10; i++) {
            String id = "fl" + i;
            XmlElement e = sender.expect(m -> m.name().equals("message") && id.equals(m.attribute("id")), id, WAIT);
            if ("error".equals(e.attribute("type"))) {
                refused++;
                assertThat(condition(e)).isEqualTo("resource-constraint");
                assertThat(errorOf(e).childText("text")).contains("too fast");
            } else {
                accepted++;
            }
        }
        assertThat(refused).as("refused of 10 at burst 3").isGreaterThanOrEqualTo(5);
        // the bystander sees exactly the accepted ones
        int seen = 0;
        XmlElement e;
        while ((e = cs.get(2).poll(Duration.ofSeconds(2))) != null) {
            if (e.name().equals("message") && e.childText("body") != null) {
                assertThat(e.attribute("type")).isEqualTo("groupchat");
                seen++;
            }
        }
        assertThat(seen).isEqualTo(accepted);
    }

    @Test
    void ownerFlood_moderatorsExempt_allDelivered() throws Exception {
        List<RawXmppClient> cs = room("modflood", 3, 4);
        RawXmppClient owner = cs.get(0);
        for (int i = 0; i < 10; i++) {
            owner.write("<message to='" + E2eFixture.room("modflood") + "' type='groupchat' id='mf" + i + "'><body>m" + i
                    + "</body></message>");
        }
        for (int i = 0; i < 10; i++) {
            String body = "m" + i;
            XmlElement got = cs.get(1).expect(m -> m.name().equals("message") && body.equals(m.childText("body")),
                    body, WAIT);
            assertThat(got.attribute("type")).isEqualTo("groupchat");
        }
    }

    @Test
    void oversizedAndManyLineMessages_policyViolationWithText() throws Exception {
        List<RawXmppClient> cs = room("sizes", 5, 1);
        RawXmppClient p = cs.get(1);
        p.write("<message to='" + E2eFixture.room("sizes") + "' type='groupchat' id='big'><body>" + "x".repeat(500)
                + "</body></message>");
        XmlElement big = p.expect(m -> "big".equals(m.attribute("id")), "reply to big", WAIT);
        assertThat(big.attribute("type")).isEqualTo("error");
        assertThat(condition(big)).isEqualTo("policy-violation");
        assertThat(errorOf(big).childText("text")).contains("too long");
        Thread.sleep(1100); // a fresh token, so the next refusal is about lines, not rate
        p.write("<message to='" + E2eFixture.room("sizes") + "' type='groupchat' id='lines'><body>a\nb\nc\nd\ne</body></message>");
        XmlElement lines = p.expect(m -> "lines".equals(m.attribute("id")), "reply to many lines", WAIT);
        assertThat(lines.attribute("type")).isEqualTo("error");
        assertThat(condition(lines)).isEqualTo("policy-violation");
        assertThat(errorOf(lines).childText("text")).contains("lines");
    }

    @Test
    void clientIqFloodAndJunk_answered_otherRoomUnaffected() throws Exception {
        List<RawXmppClient> calm = room("calmroom", 2, 4);
        RawXmppClient flooder = fx.raw(0);
        int flood = 1000;
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < flood; i++) {
            sb.append("<iq type='get' id='q").append(i).append("' to='").append(E2eFixture.room("nosuchroom"))
                    .append("'><query xmlns='").append(i % 2 == 0 ? "http://jabber.org/protocol/disco#info"
                            : "urn:unknown:" + i).append("'/></iq>");
        }
        flooder.write(sb.toString());
        calm.get(0).write("<message to='" + E2eFixture.room("calmroom") + "' type='groupchat' id='c1'><body>calm</body></message>");
        calm.get(1).expect(m -> "calm".equals(m.childText("body")), "calm message during a flood", Duration.ofSeconds(30));
        int answered = 0;
        XmlElement e;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (answered < flood && System.nanoTime() < deadline
                && (e = flooder.poll(Duration.ofSeconds(5))) != null) {
            if (e.name().equals("iq") && e.attribute("id") != null && e.attribute("id").startsWith("q")) {
                answered++;
                assertThat(e.attribute("type")).isIn("result", "error");
            }
        }
        assertThat(answered).isEqualTo(flood);
        assertThat(fx.server.muc().isRunning()).isTrue();
    }
}
