package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.XmlElement;
import org.mucscale.engine.store.RoomLogRecord;

/**
 * XEP-0425 moderation end to end through a real Prosody with real client connections: a moderator retracts a message,
 * every occupant receives the retraction, a non-moderator is refused, and a later joiner's history, the archive
 * (XEP-0313) and the room log hold the tombstone, not the text.
 */
class ModerationEndToEndTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String ROOM = "moderated@" + E2eFixture.MUC;
    private static final String ABUSE = "everyone here is a zorblax cheater";

    private static void join(RawXmppClient c, String nick, boolean unlock) throws Exception {
        c.write("<presence to='" + ROOM + "/" + nick + "'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
        c.expect(e -> e.name().equals("presence") && (ROOM + "/" + nick).equals(e.attribute("from")), "joined");
        if (unlock) {
            c.write("<iq type='set' to='" + ROOM + "' id='unlock'><query xmlns='http://jabber.org/protocol/muc#owner'>"
                    + "<x xmlns='jabber:x:data' type='submit'/></query></iq>");
            c.expect(e -> "unlock".equals(e.attribute("id")), "instant room");
        }
    }

    private static String moderate(String id, String stanzaId, String reason) {
        return "<iq type='set' to='" + ROOM + "' id='" + id + "'><moderate id='" + stanzaId
                + "' xmlns='urn:xmpp:message-moderate:1'><retract xmlns='urn:xmpp:message-retract:1'/><reason>"
                + reason + "</reason></moderate></iq>";
    }

    @Test
    void retraction_everyOccupantSeesIt_laterJoinerHistoryAndRoomLogHaveNoBody() throws Exception {
        try (E2eFixture fx = new E2eFixture(4, Map.of())) {
            RawXmppClient mod = fx.raw(0);
            RawXmppClient sender = fx.raw(1);
            RawXmppClient other = fx.raw(2);
            join(mod, "mod", true);
            join(sender, "sender", false);
            join(other, "other", false);
            sender.write("<message to='" + ROOM + "' type='groupchat' id='abuse'><body>" + ABUSE
                    + "</body></message>");
            XmlElement reflected = sender.expect(e -> "abuse".equals(e.attribute("id")) && e.childText("body") != null,
                    "reflection", WAIT);
            String stanzaId = reflected.child("stanza-id", "urn:xmpp:sid:0").attribute("id");
            for (RawXmppClient c : new RawXmppClient[] {mod, other}) {
                c.expect(e -> ABUSE.equals(e.childText("body")), "the message", WAIT);
            }

            other.write(moderate("not-a-moderator", stanzaId, "x"));
            XmlElement refused = other.expect(e -> "not-a-moderator".equals(e.attribute("id")), "refusal", WAIT);
            assertThat(refused.attribute("type")).isEqualTo("error");
            assertThat(refused.child("error").child("forbidden")).isNotNull();

            mod.write(moderate("retract-1", stanzaId, "cheating accusations"));
            // the moderator gets the answer and the retraction, in no order the XEP prescribes
            List<XmlElement> modGot = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                modGot.add(mod.expect(e -> "retract-1".equals(e.attribute("id"))
                        || e.child("retract", "urn:xmpp:message-retract:1") != null, "answer and retraction", WAIT));
            }
            XmlElement result = modGot.stream().filter(e -> e.name().equals("iq")).findFirst().orElseThrow();
            assertThat(result.attribute("type")).as(result.toXml()).isEqualTo("result");
            for (RawXmppClient c : new RawXmppClient[] {mod, sender, other}) {
                XmlElement retraction = c == mod
                        ? modGot.stream().filter(e -> e.name().equals("message")).findFirst().orElseThrow()
                        : c.expect(e -> e.name().equals("message")
                        && e.child("retract", "urn:xmpp:message-retract:1") != null, "retraction", WAIT);
                XmlElement retract = retraction.child("retract", "urn:xmpp:message-retract:1");
                assertThat(retraction.attribute("from")).isEqualTo(ROOM);
                assertThat(retract.attribute("id")).isEqualTo(stanzaId);
                assertThat(retract.child("moderated", "urn:xmpp:message-moderate:1").attribute("by"))
                        .isEqualTo(ROOM + "/mod");
                assertThat(retract.childText("reason")).isEqualTo("cheating accusations");
                assertThat(retraction.child("apply-to", "urn:xmpp:fasten:0").attribute("id")).isEqualTo(stanzaId);
            }

            RawXmppClient late = fx.raw(3);
            late.write("<presence to='" + ROOM + "/late'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
            late.expect(e -> e.name().equals("presence") && (ROOM + "/late").equals(e.attribute("from")), "joined",
                    WAIT);
            // history comes before the subject (XEP-0045 7.2.15), so everything up to it is the history
            List<XmlElement> history = new ArrayList<>();
            while (true) {
                XmlElement e = late.expect(x -> x.name().equals("message"), "history or subject", WAIT);
                if (e.child("subject") != null) {
                    break;
                }
                history.add(e);
            }
            assertThat(history).hasSize(1);
            XmlElement tombstone = history.get(0);
            assertThat(tombstone.child("body")).isNull();
            assertThat(tombstone.toXml()).doesNotContain("zorblax");
            assertThat(tombstone.child("retracted", "urn:xmpp:message-retract:1").childText("reason"))
                    .isEqualTo("cheating accusations");
            assertThat(tombstone.child("stanza-id", "urn:xmpp:sid:0").attribute("id")).isEqualTo(stanzaId);

            RoomLogRecord logged = awaitRetractedRow(fx, stanzaId);
            assertThat(logged.body()).isNull();
            assertThat(logged.stanza()).contains("retracted").doesNotContain("zorblax");
            assertThat(fx.server.engine().metrics().moderations()).isEqualTo(1);

            // and the archive (XEP-0313), read through the server by the late joiner, holds the tombstone in its place
            late.write("<iq type='set' to='" + ROOM + "' id='mam-1'><query xmlns='urn:xmpp:mam:2' queryid='after'/>"
                    + "</iq>");
            List<XmlElement> page = new ArrayList<>();
            while (true) {
                XmlElement e = late.expect(x -> "mam-1".equals(x.attribute("id"))
                        || x.child("result", "urn:xmpp:mam:2") != null, "archive page", WAIT);
                if (e.name().equals("iq")) {
                    assertThat(e.attribute("type")).as(e.toXml()).isEqualTo("result");
                    assertThat(e.child("fin", "urn:xmpp:mam:2")).isNotNull();
                    break;
                }
                page.add(e);
            }
            assertThat(page).hasSize(1);
            XmlElement archived = page.get(0).child("result", "urn:xmpp:mam:2");
            assertThat(archived.attribute("id")).isEqualTo(stanzaId);
            assertThat(archived.toXml()).doesNotContain("zorblax").contains("urn:xmpp:message-retract:1");
        }
    }

    /** The room log's record of the message once the store wrote the retraction (waits, asserts no time). */
    private static RoomLogRecord awaitRetractedRow(E2eFixture fx, String stanzaId) throws Exception {
        for (int i = 0; i < 3000; i++) {
            for (RoomLogRecord r : fx.server.engine().store().history(ROOM, 50, 0)) {
                if (r.stanzaId().equals(stanzaId) && "RETRACTED".equals(r.filterAction())) {
                    return r;
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the room log never showed message " + stanzaId + " as retracted");
    }
}
