package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/** XEP-0425 message moderation: retraction by a moderator, in both forms, as occupants, history and the log see it. */
class MucMessageModerationTest extends MucTestBase {
    static final String NS_MODERATE = "urn:xmpp:message-moderate:1";
    static final String NS_RETRACT = "urn:xmpp:message-retract:1";
    static final String NS_MODERATE_0 = "urn:xmpp:message-moderate:0";
    static final String NS_RETRACT_0 = "urn:xmpp:message-retract:0";
    static final String NS_FASTEN = "urn:xmpp:fasten:0";

    /** The room log as the MUC engine sees it (the store's own behaviour is tested against real databases). */
    static final class LogSink implements RoomLogSink {
        final Map<String, String> bodies = new ConcurrentHashMap<>();
        final Map<String, String> nicks = new ConcurrentHashMap<>();
        final Map<String, XmlElement> tombstones = new ConcurrentHashMap<>();

        @Override
        public boolean offer(String stanzaId, Jid room, String nick, Jid realJid, long timestampMillis, String body,
                             String subject, MessageInspector.Action filterAction) {
            if (body != null) {
                bodies.put(stanzaId, body);
            }
            nicks.put(stanzaId, nick);
            return true;
        }

        @Override
        public Retraction retract(Jid room, String stanzaId, Function<LoggedMessage, XmlElement> tombstone) {
            if (tombstones.containsKey(stanzaId)) {
                return Retraction.ALREADY_RETRACTED;
            }
            if (!nicks.containsKey(stanzaId)) {
                return Retraction.NOT_FOUND;
            }
            bodies.remove(stanzaId);
            tombstones.put(stanzaId, tombstone.apply(new LoggedMessage(stanzaId, nicks.get(stanzaId), null, 1L)));
            return Retraction.RETRACTED;
        }
    }

    LogSink log;

    void startWith(Map<String, String> settings) {
        log = new LogSink();
        start(settings, b -> b.logSink(log));
    }

    /** alice (owner, moderator) "al", bob "bob", carol "carol" in room r; returns the stanza id of bob's message. */
    String roomWithAbusiveMessage() {
        createInstant(alice, "r", "al");
        join(bob, "r", "bob");
        join(carol, "r", "carol");
        out.clear();
        send(groupchat(bob, "r", "abusive words"));
        XmlElement reflected = only(out.take(bob));
        out.clear();
        return reflected.child("stanza-id", "urn:xmpp:sid:0").attribute("id");
    }

    static XmlElement moderate(String id, String reason) {
        XmlElement.Builder m = XmlElement.builder("moderate", NS_MODERATE).attribute("id", id)
                .child(XmlElement.builder("retract", NS_RETRACT).build());
        if (reason != null) {
            m.textChild("reason", reason);
        }
        return m.build();
    }

    static XmlElement moderate0(String id, String reason) {
        XmlElement.Builder m = XmlElement.builder("moderate", NS_MODERATE_0)
                .child(XmlElement.builder("retract", NS_RETRACT_0).build());
        if (reason != null) {
            m.textChild("reason", reason);
        }
        return XmlElement.builder("apply-to", NS_FASTEN).attribute("id", id).child(m.build()).build();
    }

    void assertEveryOccupantToldOfRetraction(String id, String reason) {
        for (Jid who : List.of(alice, bob, carol)) {
            XmlElement m = only(named(out.take(who), "message"));
            assertThat(m.attribute("from")).isEqualTo("r@" + SERVICE);
            assertThat(m.attribute("type")).isEqualTo("groupchat");
            XmlElement retract = m.child("retract", NS_RETRACT);
            assertThat(retract.attribute("id")).isEqualTo(id);
            XmlElement moderated = retract.child("moderated", NS_MODERATE);
            assertThat(moderated.attribute("by")).isEqualTo("r@" + SERVICE + "/al");
            assertThat(moderated.child("occupant-id", "urn:xmpp:occupant-id:0").attribute("id")).isNotBlank();
            assertThat(retract.childText("reason")).isEqualTo(reason);
            XmlElement applyTo = m.child("apply-to", NS_FASTEN);
            assertThat(applyTo.attribute("id")).isEqualTo(id);
            XmlElement moderated0 = applyTo.child("moderated", NS_MODERATE_0);
            assertThat(moderated0.attribute("by")).isEqualTo("r@" + SERVICE + "/al");
            assertThat(moderated0.child("retract", NS_RETRACT_0)).isNotNull();
            assertThat(moderated0.childText("reason")).isEqualTo(reason);
            assertThat(m.toXml()).doesNotContain("abusive words");
        }
    }

    @Test
    void moderatorRetracts_everyOccupantIsTold_historyOnJoinShowsTheTombstone_logLosesTheBody() {
        startWith(Map.of());
        String id = roomWithAbusiveMessage();
        assertThat(log.bodies).containsValue("abusive words");
        XmlElement result = iq(alice, room("r"), "set", moderate(id, "spam"));
        assertThat(result.attribute("type")).as(result.toXml()).isEqualTo("result");
        assertEveryOccupantToldOfRetraction(id, "spam");

        List<XmlElement> got = join(dave, "r", "dave");
        List<XmlElement> history = new ArrayList<>();
        for (XmlElement m : named(got, "message")) {
            if (m.child("delay", "urn:xmpp:delay") != null) {
                history.add(m);
            }
        }
        XmlElement tombstone = only(history);
        assertThat(tombstone.attribute("from")).isEqualTo("r@" + SERVICE + "/bob");
        assertThat(tombstone.child("body")).isNull();
        assertThat(tombstone.child("stanza-id", "urn:xmpp:sid:0").attribute("id")).isEqualTo(id);
        XmlElement retracted = tombstone.child("retracted", NS_RETRACT);
        assertThat(retracted.attribute("stamp")).isNotBlank();
        assertThat(retracted.child("moderated", NS_MODERATE).attribute("by")).isEqualTo("r@" + SERVICE + "/al");
        assertThat(retracted.childText("reason")).isEqualTo("spam");
        assertThat(tombstone.child("moderated", NS_MODERATE_0).child("retracted", NS_RETRACT_0)).isNotNull();
        assertThat(tombstone.toXml()).doesNotContain("abusive words");

        awaitLog(() -> log.tombstones.containsKey(id));
        assertThat(log.bodies).doesNotContainKey(id);
        assertThat(log.tombstones.get(id).child("retracted", NS_RETRACT)).isNotNull();
    }

    @Test
    void olderForm_fastenApplyToModerate0_isAcceptedAndAnsweredInBothForms() {
        startWith(Map.of());
        String id = roomWithAbusiveMessage();
        XmlElement result = iq(alice, room("r"), "set", moderate0(id, "off topic"));
        assertThat(result.attribute("type")).as(result.toXml()).isEqualTo("result");
        assertEveryOccupantToldOfRetraction(id, "off topic");
    }

    @Test
    void retractingTwice_answersResultAndTellsNobodyAgain() {
        startWith(Map.of());
        String id = roomWithAbusiveMessage();
        iq(alice, room("r"), "set", moderate(id, null));
        out.clear();
        XmlElement again = iq(alice, room("r"), "set", moderate(id, null));
        assertThat(again.attribute("type")).isEqualTo("result");
        assertThat(out.take(bob)).isEmpty();
    }

    @Test
    void refused_nonModerator_nonOccupant_unknownId_badForms() {
        startWith(Map.of());
        String id = roomWithAbusiveMessage();
        assertThat(errorCondition(iq(carol, room("r"), "set", moderate(id, null)))).isEqualTo("forbidden");
        assertThat(errorCondition(iq(dave, room("r"), "set", moderate(id, null)))).isEqualTo("forbidden");
        assertThat(errorCondition(iq(bob, room("r"), "set", moderate0(id, null)))).isEqualTo("forbidden");
        send(iqStanza(alice, "set", moderate("no-such-id", null), "unknown")); // looked up in the log
        assertThat(errorCondition(awaitIq(alice, "unknown"))).isEqualTo("item-not-found");
        XmlElement noRetract = XmlElement.builder("moderate", NS_MODERATE).attribute("id", id).build();
        assertThat(errorCondition(iq(alice, room("r"), "set", noRetract))).isEqualTo("bad-request");
        XmlElement noId = XmlElement.builder("moderate", NS_MODERATE)
                .child(XmlElement.builder("retract", NS_RETRACT).build()).build();
        assertThat(errorCondition(iq(alice, room("r"), "set", noId))).isEqualTo("bad-request");
        XmlElement applyToWithoutModerate = XmlElement.builder("apply-to", NS_FASTEN).attribute("id", id).build();
        assertThat(errorCondition(iq(alice, room("r"), "set", applyToWithoutModerate))).isEqualTo("bad-request");
        assertThat(errorCondition(iq(alice, room("r"), "get", moderate(id, null)))).isEqualTo("bad-request");
        // nothing was retracted: every occupant still has only what it had, and the log keeps the message
        assertThat(named(out.take(bob), "message")).isEmpty();
        assertThat(log.bodies).containsValue("abusive words");
    }

    @Test
    void olderMessageNotInMemory_isLookedUpInTheLogOffTheRoomThread() {
        startWith(Map.of("mucscale.muc.history-size", "1"));
        String id = roomWithAbusiveMessage();
        send(groupchat(carol, "r", "a later message pushes it out of memory"));
        out.clear();
        send(iqStanza(alice, "set", moderate(id, "abuse"), "late-1"));
        XmlElement reply = awaitIq(alice, "late-1");
        assertThat(reply.attribute("type")).as(reply.toXml()).isEqualTo("result");
        assertEveryOccupantToldOfRetraction(id, "abuse");
        XmlElement tombstone = log.tombstones.get(id);
        assertThat(tombstone.attribute("from")).isEqualTo("r@" + SERVICE + "/bob");
        assertThat(tombstone.child("retracted", NS_RETRACT).childText("reason")).isEqualTo("abuse");
        assertThat(log.bodies).doesNotContainKey(id);

        send(iqStanza(alice, "set", moderate("unknown-in-log", null), "late-2"));
        assertThat(errorCondition(awaitIq(alice, "late-2"))).isEqualTo("item-not-found");
        send(iqStanza(alice, "set", moderate(id, null), "late-3"));
        assertThat(awaitIq(alice, "late-3").attribute("type")).isEqualTo("result");
    }

    @Test
    void operatorRetraction_asTheService_everyOccupantToldWithTheRoomAsBy() throws Exception {
        startWith(Map.of());
        String id = roomWithAbusiveMessage();
        assertThat(muc.retractAsService(room("r"), id, "reviewed").get(10, java.util.concurrent.TimeUnit.SECONDS))
                .isEqualTo(RoomLogSink.Retraction.RETRACTED);
        muc.awaitIdle();
        for (Jid who : List.of(alice, bob, carol)) {
            XmlElement m = only(named(out.take(who), "message"));
            XmlElement retract = m.child("retract", NS_RETRACT);
            assertThat(retract.attribute("id")).isEqualTo(id);
            assertThat(retract.child("moderated", NS_MODERATE).attribute("by")).isEqualTo("r@" + SERVICE);
            assertThat(retract.childText("reason")).isEqualTo("reviewed");
        }
        assertThat(muc.retractAsService(room("r"), id, null).get(10, java.util.concurrent.TimeUnit.SECONDS))
                .isEqualTo(RoomLogSink.Retraction.ALREADY_RETRACTED);
        assertThat(muc.retractAsService(room("gone"), id, null).get(10, java.util.concurrent.TimeUnit.SECONDS))
                .isEqualTo(RoomLogSink.Retraction.NOT_FOUND);
        awaitLog(() -> log.tombstones.containsKey(id));
        assertThat(log.bodies).doesNotContainKey(id);
    }

    @Test
    void disco_advertisesBothForms() {
        startWith(Map.of());
        createInstant(alice, "r", "al");
        XmlElement info = iq(alice, room("r"), "get", XmlElement.builder("query",
                "http://jabber.org/protocol/disco#info").build());
        List<String> features = new ArrayList<>();
        for (XmlElement f : info.child("query").elements("feature")) {
            features.add(f.attribute("var"));
        }
        assertThat(features).contains(NS_MODERATE, NS_MODERATE_0);
    }

    private XmlElement iqStanza(Jid from, String type, XmlElement payload, String id) {
        return XmlElement.builder("iq").attribute("from", from.toString()).attribute("to", room("r").toString())
                .attribute("type", type).attribute("id", id).child(payload).build();
    }

    /** Waits for the answer the room sends once the store thread reported back (no time limit is asserted). */
    private XmlElement awaitIq(Jid to, String id) {
        List<XmlElement> others = new ArrayList<>();
        try {
            for (int i = 0; i < 6000; i++) {
                muc.awaitIdle();
                for (XmlElement e : out.take(to)) {
                    if (e.name().equals("iq") && id.equals(e.attribute("id"))) {
                        return e;
                    }
                    others.add(e);
                }
                Thread.sleep(5);
            }
            throw new AssertionError("no answer to " + id);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        } finally {
            others.forEach(out::send);
        }
    }

    private void awaitLog(java.util.function.BooleanSupplier done) {
        for (int i = 0; i < 6000 && !done.getAsBoolean(); i++) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }
}
