package org.mucscale.engine.muc;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

class MucJoinTest extends MucTestBase {

    @Test
    void join_newRoom_createsLockedRoomWithStatus201AndOwner() {
        List<XmlElement> got = join(alice, "r1", "Alice");
        XmlElement self = selfPresence(got);
        assertThat(self.attribute("from")).isEqualTo(occ("r1", "Alice").toString());
        assertThat(statusCodes(self)).containsExactly(110, 201);
        assertThat(item(self).attribute("affiliation")).isEqualTo("owner");
        assertThat(item(self).attribute("role")).isEqualTo("moderator");
        // locked: others get item-not-found until the owner configures it
        XmlElement err = only(join(bob, "r1", "Bob"));
        assertThat(errorCondition(err)).isEqualTo("item-not-found");
        assertThat(err.attribute("from")).isEqualTo(occ("r1", "Bob").toString());
        assertThat(err.child("x", NS_MUC)).isNotNull();
    }

    @Test
    void join_instantRoomAccepted_othersMayJoin() {
        createInstant(alice, "r1", "Alice");
        List<XmlElement> got = join(bob, "r1", "Bob");
        // order: the owner's presence, self-presence, subject (XEP-0045 7.2.2 / 7.2.16)
        assertThat(got).hasSize(3);
        assertThat(got.get(0).attribute("from")).isEqualTo(occ("r1", "Alice").toString());
        assertThat(item(got.get(0)).attribute("jid")).isNull(); // semi-anonymous by default
        assertThat(statusCodes(got.get(1))).containsExactly(110);
        assertThat(item(got.get(1)).attribute("jid")).isEqualTo(bob.toString());
        assertThat(got.get(2).name()).isEqualTo("message");
        assertThat(got.get(2).child("subject")).isNotNull();
        assertThat(got.get(2).child("body")).isNull();
        // the owner (a moderator) sees Bob's real JID
        XmlElement seenByAlice = only(out.take(alice));
        assertThat(seenByAlice.attribute("from")).isEqualTo(occ("r1", "Bob").toString());
        assertThat(item(seenByAlice).attribute("jid")).isEqualTo(bob.toString());
        assertThat(item(seenByAlice).attribute("role")).isEqualTo("participant");
    }

    @Test
    void join_withoutNickname_isJidMalformed() {
        send(XmlElement.builder("presence").attribute("from", bob.toString()).attribute("to", room("r1").toString())
                .child(XmlElement.builder("x", NS_MUC).build()).build());
        XmlElement err = only(out.take(bob));
        assertThat(errorCondition(err)).isEqualTo("jid-malformed");
        assertThat(errorType(err)).isEqualTo("modify");
    }

    @Test
    void join_invalidNickname_isJidMalformed() {
        createInstant(alice, "r1", "Alice");
        for (String nick : new String[] {"a\u202Eb", "zero\u200Bwidth", " lead", "x".repeat(65), "tab\tnick"}) {
            send(XmlElement.builder("presence").attribute("from", bob.toString())
                    .attribute("to", "r1@" + SERVICE + "/" + nick).build());
            assertThat(errorCondition(only(out.take(bob)))).as(nick).isEqualTo("jid-malformed");
        }
    }

    @Test
    void join_nicknameNormalizedByNfkc_status210() {
        createInstant(alice, "r1", "Alice");
        // U+FF22 FULLWIDTH B normalises to B
        List<XmlElement> got = join(bob, "r1", "\uFF22ob");
        XmlElement self = selfPresence(got);
        assertThat(statusCodes(self)).contains(210);
        assertThat(self.attribute("from")).isEqualTo(occ("r1", "Bob").toString());
    }

    @Test
    void join_nicknameInUse_isConflict_caseInsensitive() {
        createInstant(alice, "r1", "Alice");
        XmlElement err = only(join(bob, "r1", "alice"));
        assertThat(errorCondition(err)).isEqualTo("conflict");
        assertThat(errorType(err)).isEqualTo("cancel");
    }

    @Test
    void join_passwordProtected_withoutOrWrongPassword_notAuthorized_correctPassword_joins() {
        createConfigured(alice, "r1", "Alice", "muc#roomconfig_passwordprotectedroom", "1",
                "muc#roomconfig_roomsecret", "s3cret");
        XmlElement err = only(join(bob, "r1", "Bob"));
        assertThat(errorCondition(err)).isEqualTo("not-authorized");
        assertThat(errorType(err)).isEqualTo("auth");
        err = only(join(bob, "r1", "Bob", XmlElement.builder("password").text("wrong").build()));
        assertThat(errorCondition(err)).isEqualTo("not-authorized");
        List<XmlElement> ok = join(bob, "r1", "Bob", XmlElement.builder("password").text("s3cret").build());
        assertThat(statusCodes(selfPresence(ok))).contains(110);
    }

    @Test
    void join_membersOnly_nonMember_registrationRequired_memberJoins() {
        createConfigured(alice, "r1", "Alice", "muc#roomconfig_membersonly", "1");
        assertThat(errorCondition(only(join(bob, "r1", "Bob")))).isEqualTo("registration-required");
        assertThat(iq(alice, room("r1"), "set", admin("jid", "bob@example.org", "affiliation", "member"))
                .attribute("type")).isEqualTo("result");
        XmlElement self = selfPresence(join(bob, "r1", "Bob"));
        assertThat(item(self).attribute("affiliation")).isEqualTo("member");
    }

    @Test
    void join_banned_forbidden() {
        createInstant(alice, "r1", "Alice");
        iq(alice, room("r1"), "set", admin("jid", "bob@example.org", "affiliation", "outcast"));
        XmlElement err = only(join(bob, "r1", "Bob"));
        assertThat(errorCondition(err)).isEqualTo("forbidden");
        assertThat(errorType(err)).isEqualTo("auth");
    }

    @Test
    void join_roomFull_serviceUnavailable_butAdminsAndOwnersStillJoin() {
        createConfigured(alice, "r1", "Alice", "muc#roomconfig_maxusers", "2");
        join(bob, "r1", "Bob");
        XmlElement err = only(join(carol, "r1", "Carol"));
        assertThat(errorCondition(err)).isEqualTo("service-unavailable");
        assertThat(errorType(err)).isEqualTo("wait");
        iq(alice, room("r1"), "set", admin("jid", "dave@example.org", "affiliation", "admin"));
        assertThat(statusCodes(selfPresence(join(dave, "r1", "Dave")))).contains(110);
    }

    @Test
    void join_creationRestricted_notAllowed() {
        start(Map.of("mucscale.muc.room-creation", "LISTED", "mucscale.muc.room-creators", "alice@example.org"),
                b -> { });
        XmlElement err = only(join(bob, "r1", "Bob"));
        assertThat(errorCondition(err)).isEqualTo("not-allowed");
        assertThat(statusCodes(selfPresence(join(alice, "r1", "Alice")))).contains(201);
    }

    @Test
    void join_nonAnonymousAndLoggedRoom_status100And170() {
        createConfigured(alice, "r1", "Alice", "muc#roomconfig_whois", "anyone", "muc#roomconfig_enablelogging", "1");
        List<XmlElement> got = join(bob, "r1", "Bob");
        assertThat(statusCodes(selfPresence(got))).contains(110, 100, 170);
        // in a non-anonymous room everyone sees real JIDs
        assertThat(item(got.get(0)).attribute("jid")).isEqualTo(alice.toString());
    }

    @Test
    void leave_broadcastsUnavailable_andEmptyTemporaryRoomDisappears() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        leave(bob, "r1", "Bob");
        XmlElement self = only(out.take(bob));
        assertThat(self.attribute("type")).isEqualTo("unavailable");
        assertThat(statusCodes(self)).containsExactly(110);
        XmlElement seen = only(out.take(alice));
        assertThat(seen.attribute("type")).isEqualTo("unavailable");
        assertThat(item(seen).attribute("role")).isEqualTo("none");
        leave(alice, "r1", "Alice");
        assertThat(muc.roomCount()).isZero();
        assertThat(muc.occupantCount()).isZero();
    }

    @Test
    void changeNick_sends303ThenAvailableFromNewNick() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        send(XmlElement.builder("presence").attribute("from", bob.toString())
                .attribute("to", occ("r1", "Robert").toString()).build());
        List<XmlElement> toBob = out.take(bob);
        assertThat(toBob).hasSize(2);
        assertThat(toBob.get(0).attribute("type")).isEqualTo("unavailable");
        assertThat(statusCodes(toBob.get(0))).contains(110, 303);
        assertThat(item(toBob.get(0)).attribute("nick")).isEqualTo("Robert");
        assertThat(toBob.get(1).attribute("from")).isEqualTo(occ("r1", "Robert").toString());
        assertThat(statusCodes(toBob.get(1))).contains(110);
        List<XmlElement> toAlice = out.take(alice);
        assertThat(toAlice).hasSize(2);
        assertThat(statusCodes(toAlice.get(0))).containsExactly(303);
        assertThat(toAlice.get(1).attribute("from")).isEqualTo(occ("r1", "Robert").toString());
        // the old nick is free, the new one taken
        assertThat(errorCondition(only(join(carol, "r1", "robert")))).isEqualTo("conflict");
        assertThat(statusCodes(selfPresence(join(carol, "r1", "Bob")))).contains(110);
    }

    @Test
    void changeNick_toNickInUse_isConflict() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        send(XmlElement.builder("presence").attribute("from", bob.toString())
                .attribute("to", occ("r1", "Alice").toString()).build());
        XmlElement err = only(out.take(bob));
        assertThat(errorCondition(err)).isEqualTo("conflict");
        assertThat(out.take(alice)).isEmpty();
    }

    @Test
    void presenceUpdate_isBroadcastWithShowAndStatus() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        send(XmlElement.builder("presence").attribute("from", bob.toString())
                .attribute("to", occ("r1", "Bob").toString()).textChild("show", "away")
                .textChild("status", "lunch").build());
        XmlElement seen = only(out.take(alice));
        assertThat(seen.childText("show")).isEqualTo("away");
        assertThat(seen.childText("status")).isEqualTo("lunch");
        assertThat(statusCodes(only(out.take(bob)))).contains(110);
    }

    @Test
    void history_isSentOnJoin_withinMaxstanzasMaxcharsSecondsSince() {
        createInstant(alice, "r1", "Alice");
        for (int i = 0; i < 5; i++) {
            send(groupchat(alice, "r1", "m" + i));
            clock.advanceMillis(10_000);
        }
        out.clear();
        // a reader of its own for each join: this is about history, not one user's join budget (3 at once)
        Jid reader = Jid.parse("reader1@example.org/x");
        List<XmlElement> all = named(join(reader, "r1", "Bob"), "message");
        assertThat(all).hasSize(6); // five messages and the subject
        assertThat(all.get(0).childText("body")).isEqualTo("m0");
        assertThat(all.get(0).child("delay", "urn:xmpp:delay").attribute("from")).isEqualTo(room("r1").toString());
        leave(reader, "r1", "Bob");

        reader = Jid.parse("reader2@example.org/x");
        List<XmlElement> two = named(join(reader, "r1", "Bob", XmlElement.builder("history")
                .attribute("maxstanzas", "2").build()), "message");
        assertThat(two).extracting(m -> m.childText("body")).containsExactly("m3", "m4", null);
        leave(reader, "r1", "Bob");

        reader = Jid.parse("reader3@example.org/x");
        List<XmlElement> none = named(join(reader, "r1", "Bob", XmlElement.builder("history")
                .attribute("maxchars", "0").build()), "message");
        assertThat(none).hasSize(1);
        leave(reader, "r1", "Bob");

        reader = Jid.parse("reader4@example.org/x");
        // m4 was sent 10 s ago, m3 20 s ago
        List<XmlElement> recent = named(join(reader, "r1", "Bob", XmlElement.builder("history")
                .attribute("seconds", "15").build()), "message");
        assertThat(recent).extracting(m -> m.childText("body")).containsExactly("m4", null);
        leave(reader, "r1", "Bob");

        reader = Jid.parse("reader5@example.org/x");
        String since = java.time.Instant.ofEpochMilli(clock.currentTimeMillis() - 25_000).toString();
        List<XmlElement> sinceList = named(join(reader, "r1", "Bob", XmlElement.builder("history")
                .attribute("since", since).build()), "message");
        assertThat(sinceList).extracting(m -> m.childText("body")).containsExactly("m3", "m4", null);
    }

    @Test
    void join_subjectIsSentLast() {
        createInstant(alice, "r1", "Alice");
        send(XmlElement.builder("message").attribute("from", alice.toString()).attribute("to", room("r1").toString())
                .attribute("type", "groupchat").textChild("subject", "Topic").build());
        send(groupchat(alice, "r1", "hello"));
        List<XmlElement> got = join(bob, "r1", "Bob");
        assertThat(got).hasSize(4);
        assertThat(got.get(2).childText("body")).isEqualTo("hello");
        assertThat(got.get(3).childText("subject")).isEqualTo("Topic");
        assertThat(got.get(3).attribute("from")).isEqualTo(occ("r1", "Alice").toString());
    }

    @Test
    void roomAddress_isCaseInsensitive() {
        createInstant(alice, "Lobby", "Alice");
        List<XmlElement> got = join(bob, "lobby", "Bob");
        assertThat(got.get(0).attribute("from")).isEqualTo(occ("lobby", "Alice").toString());
        assertThat(muc.roomCount()).isEqualTo(1);
    }

    @Test
    void stableIds_selfPresenceReflectsTheClientsPresenceId() {
        createInstant(alice, "r1", "Alice");
        send(joinStanza(bob, "r1", "Bob").withAttribute("id", "join-1"));
        assertThat(selfPresence(out.take(bob)).attribute("id")).isEqualTo("join-1");
        send(XmlElement.builder("presence").attribute("from", bob.toString()).attribute("id", "leave-1")
                .attribute("to", occ("r1", "Bob").toString()).attribute("type", "unavailable").build());
        assertThat(only(out.take(bob)).attribute("id")).isEqualTo("leave-1");
        XmlElement info = iq(bob, org.mucscale.engine.stanza.Jid.parse(SERVICE), "get",
                XmlElement.builder("query", "http://jabber.org/protocol/disco#info").build());
        assertThat(info.toXml()).contains("http://jabber.org/protocol/muc#stable_id");
    }
}
