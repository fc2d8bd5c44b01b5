package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

class MucMessageTest extends MucTestBase {

    @Test
    void groupchat_isReflectedToEveryoneWithStanzaId() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        send(groupchat(bob, "r1", "hi <all> & welcome"));
        XmlElement toBob = only(out.take(bob));
        XmlElement toAlice = only(out.take(alice));
        for (XmlElement m : List.of(toBob, toAlice)) {
            assertThat(m.attribute("from")).isEqualTo(occ("r1", "Bob").toString());
            assertThat(m.attribute("type")).isEqualTo("groupchat");
            assertThat(m.childText("body")).isEqualTo("hi <all> & welcome");
            XmlElement sid = m.child("stanza-id", "urn:xmpp:sid:0");
            assertThat(sid.attribute("by")).isEqualTo(room("r1").toString());
            assertThat(sid.attribute("id")).isNotBlank();
        }
        assertThat(toBob.attribute("to")).isEqualTo(bob.toString());
        assertThat(toAlice.attribute("to")).isEqualTo(alice.toString());
        assertThat(toBob.attribute("id")).isNotNull();
    }

    @Test
    void groupchat_spoofedStanzaIdOfTheRoomIsStripped_idsUnique() {
        createInstant(alice, "r1", "Alice");
        XmlElement spoof = groupchat(alice, "r1", "x").toBuilder().child(XmlElement.builder("stanza-id",
                "urn:xmpp:sid:0").attribute("by", room("r1").toString()).attribute("id", "fake").build()).build();
        send(spoof);
        send(groupchat(alice, "r1", "y"));
        List<XmlElement> got = out.take(alice);
        assertThat(got).hasSize(2);
        assertThat(got.get(0).elements("stanza-id")).hasSize(1);
        String id0 = got.get(0).child("stanza-id", "urn:xmpp:sid:0").attribute("id");
        assertThat(id0).isNotEqualTo("fake");
        assertThat(got.get(1).child("stanza-id", "urn:xmpp:sid:0").attribute("id")).isNotEqualTo(id0);
    }

    @Test
    void groupchat_fromNonOccupant_notAcceptable_andNotDistributed() {
        createInstant(alice, "r1", "Alice");
        send(groupchat(bob, "r1", "let me in"));
        XmlElement err = only(out.take(bob));
        assertThat(errorCondition(err)).isEqualTo("not-acceptable");
        assertThat(out.take(alice)).isEmpty();
    }

    @Test
    void groupchat_toMissingRoom_itemNotFound() {
        send(groupchat(bob, "nowhere", "hello"));
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("item-not-found");
    }

    @Test
    void groupchat_byVisitorInModeratedRoom_forbidden() {
        createConfigured(alice, "r1", "Alice", "muc#roomconfig_moderatedroom", "1");
        XmlElement self = selfPresence(join(bob, "r1", "Bob"));
        assertThat(item(self).attribute("role")).isEqualTo("visitor");
        out.clear();
        send(groupchat(bob, "r1", "may I?"));
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("forbidden");
        assertThat(out.take(alice)).isEmpty();
    }

    @Test
    void subject_changeByParticipant_forbiddenUnlessAllowed_moderatorMay() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        XmlElement subject = XmlElement.builder("message").attribute("from", bob.toString())
                .attribute("to", room("r1").toString()).attribute("type", "groupchat")
                .textChild("subject", "mine").build();
        send(subject);
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("forbidden");
        send(subject.withAttribute("from", alice.toString()));
        assertThat(only(out.take(bob)).childText("subject")).isEqualTo("mine");
        configure(alice, "r1", "muc#roomconfig_changesubject", "1");
        out.clear();
        send(subject.toBuilder().removeChildren("subject").textChild("subject", "ours").build());
        assertThat(only(out.take(alice)).childText("subject")).isEqualTo("ours");
        XmlElement info = iq(carol, room("r1"), "get", XmlElement.builder("query",
                "http://jabber.org/protocol/disco#info").build());
        assertThat(info.toXml()).contains("ours");
    }

    @Test
    void subjectWithABody_fromAParticipantWhoMayNotChangeIt_isAMessage_theSubjectStays() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        send(XmlElement.builder("message").attribute("from", alice.toString()).attribute("to", room("r1").toString())
                .attribute("type", "groupchat").textChild("subject", "official").build());
        out.clear();
        send(XmlElement.builder("message").attribute("from", bob.toString()).attribute("to", room("r1").toString())
                .attribute("type", "groupchat").textChild("subject", "hijacked").textChild("body", "hi").build());
        assertThat(only(out.take(alice)).childText("body")).isEqualTo("hi");
        XmlElement info = iq(carol, room("r1"), "get", XmlElement.builder("query",
                "http://jabber.org/protocol/disco#info").build());
        assertThat(info.toXml()).contains("official").doesNotContain("hijacked");
        List<XmlElement> joined = join(carol, "r1", "Carol");
        assertThat(joined.get(joined.size() - 1).childText("subject")).isEqualTo("official");
    }

    @Test
    void privateMessage_deliveredFromOccupantAddress_withMucUserX() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        send(message(bob, occ("r1", "Alice"), "chat", "psst"));
        XmlElement pm = only(out.take(alice));
        assertThat(pm.attribute("from")).isEqualTo(occ("r1", "Bob").toString());
        assertThat(pm.attribute("to")).isEqualTo(alice.toString());
        assertThat(pm.childText("body")).isEqualTo("psst");
        assertThat(pm.child("x", NS_USER)).isNotNull();
        assertThat(out.take(bob)).isEmpty();
    }

    @Test
    void privateMessage_errors() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        send(message(carol, occ("r1", "Alice"), "chat", "not joined"));
        assertThat(errorCondition(only(out.take(carol)))).isEqualTo("not-acceptable");
        send(message(bob, occ("r1", "Nobody"), "chat", "?"));
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("item-not-found");
        send(message(bob, occ("r1", "Alice"), "groupchat", "wrong type"));
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("bad-request");
        configure(alice, "r1", "muc#roomconfig_allowpm", "none");
        out.clear();
        send(message(bob, occ("r1", "Alice"), "chat", "blocked"));
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("not-allowed");
        assertThat(out.take(alice)).isEmpty();
    }

    @Test
    void privateMessage_disabledByService_notAllowed() {
        start(Map.of("mucscale.muc.private-messages", "false"), b -> { });
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        send(message(bob, occ("r1", "Alice"), "chat", "psst"));
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("not-allowed");
    }

    @Test
    void invitation_isForwardedFromTheRoom() {
        createInstant(alice, "r1", "Alice");
        out.clear();
        send(XmlElement.builder("message").attribute("from", alice.toString()).attribute("to", room("r1").toString())
                .child(XmlElement.builder("x", NS_USER).child(XmlElement.builder("invite")
                        .attribute("to", "carol@example.org").textChild("reason", "join us").build()).build())
                .build());
        XmlElement inv = only(out.take(Jid.parse("carol@example.org")));
        assertThat(inv.attribute("from")).isEqualTo(room("r1").toString());
        assertThat(mucUser(inv).child("invite").attribute("from")).isEqualTo(alice.toString());
        assertThat(mucUser(inv).child("invite").childText("reason")).isEqualTo("join us");
    }

    @Test
    void normalMessageToRoom_notAcceptable() {
        createInstant(alice, "r1", "Alice");
        send(message(alice, room("r1"), "chat", "hello room"));
        assertThat(errorCondition(only(out.take(alice)))).isEqualTo("not-acceptable");
    }

    @Test
    void filter_maskRejectDropFlag_areApplied() {
        List<String> logged = new CopyOnWriteArrayList<>();
        start(Map.of(), b -> b.inspector((room, nick, jid, body, subject) -> {
            if (body == null) {
                return MessageInspector.Verdict.PASS;
            }
            if (body.contains("darn")) {
                return MessageInspector.Verdict.mask(body.replace("darn", "****"), null);
            }
            if (body.contains("spam")) {
                return MessageInspector.Verdict.reject("links to spam are not allowed here");
            }
            if (body.contains("shadow")) {
                return MessageInspector.Verdict.DROP;
            }
            if (body.contains("hmm")) {
                return MessageInspector.Verdict.FLAG;
            }
            return MessageInspector.Verdict.PASS;
        }).logSink((id, room, nick, jid, ts, body, subject, action) -> logged.add(action + ":" + body)));
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        send(groupchat(bob, "r1", "oh darn it"));
        assertThat(only(out.take(alice)).childText("body")).isEqualTo("oh **** it");
        out.clear();
        send(groupchat(bob, "r1", "buy spam"));
        XmlElement err = only(out.take(bob));
        assertThat(errorCondition(err)).isEqualTo("not-acceptable");
        assertThat(err.child("error").childText("text")).isEqualTo("links to spam are not allowed here");
        assertThat(out.take(alice)).isEmpty();
        send(groupchat(bob, "r1", "shadow"));
        assertThat(out.take(alice)).isEmpty();
        assertThat(out.take(bob)).isEmpty();
        send(groupchat(bob, "r1", "hmm"));
        assertThat(only(out.take(alice)).childText("body")).isEqualTo("hmm");
        assertThat(logged).containsExactly("MASK:oh **** it", "FLAG:hmm");
    }

    @Test
    void logSink_refusal_resourceConstraint_andNothingBroadcast() {
        AtomicBoolean full = new AtomicBoolean(true);
        List<String> ids = new ArrayList<>();
        start(Map.of(), b -> b.logSink((id, room, nick, jid, ts, body, subject, action) -> {
            if (full.get()) {
                return false;
            }
            synchronized (ids) {
                ids.add(id);
            }
            return true;
        }));
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        send(groupchat(bob, "r1", "lost?"));
        XmlElement err = only(out.take(bob));
        assertThat(errorCondition(err)).isEqualTo("resource-constraint");
        assertThat(errorType(err)).isEqualTo("wait");
        assertThat(out.take(alice)).isEmpty();
        full.set(false);
        send(groupchat(bob, "r1", "kept"));
        XmlElement m = only(out.take(alice));
        assertThat(ids).containsExactly(m.child("stanza-id", "urn:xmpp:sid:0").attribute("id"));
    }

    @Test
    void logAllRoomsOff_onlyLoggingRoomsAreLogged() {
        List<String> logged = new CopyOnWriteArrayList<>();
        start(Map.of("mucscale.muc.log-all-rooms", "false", "mucscale.muc.archive-by-default", "false"),
                b -> b.logSink((id, room, nick, jid, ts, body, subject, action) -> logged.add(room.local() + body)));
        createInstant(alice, "quiet", "Alice");
        createConfigured(alice, "logged", "Alice", "muc#roomconfig_enablelogging", "1");
        // the archive is the room log: an archived room is logged too
        createConfigured(alice, "archived", "Alice", "muc#roomconfig_enablearchiving", "1");
        send(groupchat(alice, "quiet", "a"));
        send(groupchat(alice, "logged", "b"));
        send(groupchat(alice, "archived", "c"));
        assertThat(logged).containsExactly("loggedb", "archivedc");
    }

    @Test
    void chatState_withoutBody_isBroadcastButNotKeptInHistory() {
        createInstant(alice, "r1", "Alice");
        send(XmlElement.builder("message").attribute("from", alice.toString()).attribute("to", room("r1").toString())
                .attribute("type", "groupchat").child(XmlElement.builder("composing",
                        "http://jabber.org/protocol/chatstates").build()).build());
        assertThat(only(out.take(alice)).child("composing", "http://jabber.org/protocol/chatstates")).isNotNull();
        List<XmlElement> got = named(join(bob, "r1", "Bob"), "message");
        assertThat(got).hasSize(1); // only the subject
    }

    @Test
    void listener_seesDeliveriesJoinsLeavesAndPopulation() {
        List<String> events = new CopyOnWriteArrayList<>();
        start(Map.of(), b -> b.listener(new MucListener() {
            @Override
            public void messageDelivered(Jid room, long arrivalNs, long deliveredNs, int fanOut) {
                events.add("delivered " + room.local() + " " + fanOut + " " + (deliveredNs >= arrivalNs));
            }

            @Override
            public void occupantJoined(Jid room, long joinNs) {
                events.add("joined " + room.local());
            }

            @Override
            public void occupantLeft(Jid room) {
                events.add("left " + room.local());
            }

            @Override
            public void population(int rooms, int occupants) {
                events.add("population " + rooms + "/" + occupants);
            }
        }));
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        send(groupchat(bob, "r1", "counted"));
        leave(bob, "r1", "Bob");
        assertThat(events).containsExactly("population 1/0", "population 1/1", "joined r1", "population 1/2",
                "joined r1", "delivered r1 2 true", "population 1/1", "left r1");
    }
}
