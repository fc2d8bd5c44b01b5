package org.mucscale.engine.muc;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.muc.MucListener.FloodLimit;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 18.2, one test per hole an abuser used: rejoining to refill budgets, join/leave churn, nickname spam,
 * invitation spam, forged declines reflected by the room, and unbounded room creation. Each refusal must carry the
 * right error and text and be counted; the clock is manual, so nothing here depends on timing.
 */
class MucAbuseTest extends MucTestBase {
    private final List<FloodLimit> refused = new CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger withheld = new java.util.concurrent.atomic.AtomicInteger();
    private final Jid mallory = Jid.parse("mallory@evil.example/bot");
    private final Jid victim = Jid.parse("victim@elsewhere.example");

    private void startWith(Map<String, String> settings) {
        start(settings, b -> b.listener(new MucListener() {
            @Override
            public void floodRejected(Jid room, FloodLimit limit) {
                refused.add(limit);
            }

            @Override
            public void errorWithheld(Jid room) {
                withheld.incrementAndGet();
            }
        }));
    }

    private XmlElement presence(Jid from, String room, String nick) {
        return XmlElement.builder("presence").attribute("from", from.toString())
                .attribute("to", occ(room, nick).toString()).build();
    }

    private XmlElement invite(Jid from, String room, String to) {
        return XmlElement.builder("message").attribute("from", from.toString()).attribute("to", room(room).toString())
                .child(XmlElement.builder("x", NS_USER).child(XmlElement.builder("invite").attribute("to", to)
                        .build()).build()).build();
    }

    private XmlElement decline(Jid from, String room, String to) {
        XmlElement.Builder d = XmlElement.builder("decline");
        if (to != null) {
            d.attribute("to", to);
        }
        return XmlElement.builder("message").attribute("from", from.toString()).attribute("to", room(room).toString())
                .child(XmlElement.builder("x", NS_USER).child(d.textChild("reason", "no").build()).build()).build();
    }

    private static String text(XmlElement error) {
        return error.child("error").childText("text");
    }

    // ------------------------------------------------------------------------------------- budgets across rejoin

    @Test
    void rejoin_doesNotRefillTheMessageBudget() {
        startWith(Map.of("mucscale.muc.occupant-burst", "3", "mucscale.muc.occupant-messages-per-second", "1"));
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        for (int i = 0; i < 3; i++) {
            send(groupchat(bob, "r1", "m" + i));
        }
        leave(bob, "r1", "Bob");
        join(bob, "r1", "Bob");
        out.clear();
        send(groupchat(bob, "r1", "after rejoin"));
        XmlElement err = only(out.take(bob));
        assertThat(errorCondition(err)).isEqualTo("resource-constraint");
        assertThat(text(err)).contains("too fast");
        assertThat(out.take(alice)).isEmpty();
        assertThat(refused).containsExactly(FloodLimit.OCCUPANT_RATE);
    }

    @Test
    void rejoinFromAnotherResource_sharesTheBudgetOfTheBareJid() {
        startWith(Map.of("mucscale.muc.occupant-burst", "2", "mucscale.muc.occupant-messages-per-second", "1"));
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        send(groupchat(bob, "r1", "a"));
        send(groupchat(bob, "r1", "b"));
        Jid bobTablet = Jid.parse("Bob@example.org/tablet"); // same user, another session, other case
        join(bobTablet, "r1", "Bob2");
        out.clear();
        send(groupchat(bobTablet, "r1", "c"));
        assertThat(errorCondition(only(out.take(bobTablet)))).isEqualTo("resource-constraint");
    }

    @Test
    void rateMemory_idleBudgetsAreForgotten_soMemoryStaysBounded() {
        startWith(Map.of("mucscale.muc.rate-memory-seconds", "10"));
        createInstant(alice, "r1", "Alice");
        for (int i = 0; i < 50; i++) {
            Jid u = Jid.parse("u" + i + "@example.org/x");
            join(u, "r1", "U" + i);
            leave(u, "r1", "U" + i);
        }
        assertThat(remembered("r1")).isEqualTo(51);
        clock.advanceMillis(5_000);
        join(carol, "r1", "Carol"); // before the memory period: nothing is forgotten
        assertThat(remembered("r1")).isEqualTo(52);
        clock.advanceMillis(11_000);
        join(dave, "r1", "Dave"); // a sweep: left users idle over 10 s go; present ones (Alice, Carol) stay
        assertThat(remembered("r1")).isEqualTo(3);
    }

    private int remembered(String room) {
        return muc.onRoomThread(room(room), s -> s.rooms.get(room(room)).guard.rememberedUsers());
    }

    // --------------------------------------------------------------------------------------------- churn

    @Test
    void joinLeaveChurn_refusedPerUserAndRoom_leavesAlwaysWork() {
        startWith(Map.of("mucscale.muc.occupant-join-burst", "3", "mucscale.muc.occupant-joins-per-minute", "6"));
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob"); // token 1
        leave(bob, "r1", "Bob"); // token 2
        join(bob, "r1", "Bob"); // token 3
        leave(bob, "r1", "Bob"); // no token left; the leave still happens
        assertThat(statusCodes(selfPresence(out.take(bob)))).contains(110);
        out.clear();
        send(joinStanza(bob, "r1", "Bob"));
        XmlElement err = only(out.take(bob));
        assertThat(err.name()).isEqualTo("presence");
        assertThat(errorCondition(err)).isEqualTo("resource-constraint");
        assertThat(text(err)).contains("too often").contains("6 joins or nickname changes per minute");
        assertThat(out.take(alice)).as("the room saw nothing of the refused join").isEmpty();
        assertThat(refused).containsExactly(FloodLimit.OCCUPANT_JOIN_RATE);
        clock.advanceMillis(10_000); // one token at 6 per minute
        assertThat(statusCodes(selfPresence(join(bob, "r1", "Bob")))).contains(110);
    }

    @Test
    void nickChangeSpam_refused_occupantKeepsItsNick() {
        startWith(Map.of("mucscale.muc.occupant-join-burst", "2"));
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        send(presence(bob, "r1", "Bobby"));
        out.clear();
        send(presence(bob, "r1", "Robert"));
        XmlElement err = only(out.take(bob));
        assertThat(errorCondition(err)).isEqualTo("resource-constraint");
        assertThat(text(err)).contains("nickname").contains("keep your current nickname");
        assertThat(out.take(alice)).isEmpty();
        assertThat(refused).containsExactly(FloodLimit.NICK_CHANGE_RATE);
        Occupant renamed = muc.onRoomThread(room("r1"), s -> s.rooms.get(room("r1")).occupant("Bobby"));
        assertThat(renamed).isNotNull();
    }

    @Test
    void roomJoinRate_limitsAllUsersTogether() {
        startWith(Map.of("mucscale.muc.room-join-burst", "2", "mucscale.muc.room-joins-per-minute", "1"));
        createInstant(alice, "r1", "Alice"); // the creator's first join is not counted
        join(bob, "r1", "Bob");
        join(carol, "r1", "Carol");
        XmlElement err = only(join(dave, "r1", "Dave"));
        assertThat(errorCondition(err)).isEqualTo("resource-constraint");
        assertThat(text(err)).contains("too many people are joining this room");
        assertThat(refused).containsExactly(FloodLimit.ROOM_JOIN_RATE);
    }

    @Test
    void userJoinRate_spansRooms() {
        startWith(Map.of("mucscale.muc.user-join-burst", "3", "mucscale.muc.user-joins-per-minute", "1",
                "mucscale.muc.service-admins", "alice@example.org"));
        for (int i = 1; i <= 4; i++) {
            createInstant(alice, "r" + i, "Alice");
        }
        for (int i = 1; i <= 3; i++) {
            assertThat(statusCodes(selfPresence(join(bob, "r" + i, "Bob")))).contains(110);
        }
        XmlElement err = only(join(bob, "r4", "Bob"));
        assertThat(errorCondition(err)).isEqualTo("resource-constraint");
        assertThat(text(err)).contains("joining rooms too fast").contains("across all rooms");
        assertThat(refused).containsExactly(FloodLimit.USER_JOIN_RATE);
    }

    // --------------------------------------------------------------------------------------------- invitations

    @Test
    void invitationSpam_refusedPerUserAcrossRooms() {
        startWith(Map.of("mucscale.muc.user-invite-burst", "2", "mucscale.muc.user-invites-per-minute", "1"));
        createInstant(alice, "r1", "Alice");
        createInstant(bob, "r2", "Bob");
        join(alice, "r2", "Alice");
        send(invite(alice, "r1", "v1@elsewhere.example"));
        send(invite(alice, "r2", "v2@elsewhere.example"));
        out.clear();
        send(invite(alice, "r1", "v3@elsewhere.example"));
        XmlElement err = only(out.take(alice));
        assertThat(errorCondition(err)).isEqualTo("resource-constraint");
        assertThat(text(err)).contains("too many invitations").contains("1 per minute");
        assertThat(out.take(Jid.parse("v3@elsewhere.example"))).isEmpty();
        assertThat(refused).containsExactly(FloodLimit.USER_INVITE_RATE);
    }

    @Test
    void invitationSpam_refusedPerRoom() {
        startWith(Map.of("mucscale.muc.room-invite-burst", "2", "mucscale.muc.room-invites-per-minute", "1"));
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        send(invite(alice, "r1", "v1@elsewhere.example"));
        send(invite(bob, "r1", "v2@elsewhere.example"));
        out.clear();
        send(invite(bob, "r1", "v3@elsewhere.example"));
        XmlElement err = only(out.take(bob));
        assertThat(errorCondition(err)).isEqualTo("resource-constraint");
        assertThat(text(err)).contains("this room is sending too many invitations");
        assertThat(refused).containsExactly(FloodLimit.ROOM_INVITE_RATE);
    }

    @Test
    void forgedDecline_fromNonInvitee_isRefused_nothingReachesTheTarget() {
        startWith(Map.of());
        createInstant(alice, "r1", "Alice");
        send(decline(mallory, "r1", victim.toString()));
        XmlElement err = only(out.take(mallory));
        assertThat(errorCondition(err)).isEqualTo("not-acceptable");
        assertThat(text(err)).contains("no pending invitation");
        assertThat(out.take(victim)).as("the room reflected nothing").isEmpty();
        assertThat(refused).containsExactly(FloodLimit.UNSOLICITED_DECLINE);
    }

    @Test
    void decline_ofARealInvitation_isRelayedOnceToTheInviter_andExpires() {
        startWith(Map.of("mucscale.muc.invitation-ttl-seconds", "60"));
        createInstant(alice, "r1", "Alice");
        Jid daveBare = dave.bare();
        send(invite(alice, "r1", daveBare.toString()));
        assertThat(out.take(daveBare)).hasSize(1);
        send(decline(dave, "r1", "alice@example.org"));
        XmlElement relayed = only(out.take(alice));
        assertThat(relayed.attribute("from")).isEqualTo(room("r1").toString());
        assertThat(mucUser(relayed).child("decline").attribute("from")).isEqualTo(daveBare.toString());
        // a second decline of the same invitation is not relayed again
        send(decline(dave, "r1", "alice@example.org"));
        assertThat(errorCondition(only(out.take(dave)))).isEqualTo("not-acceptable");
        assertThat(out.take(alice)).isEmpty();
        // an invitation expires; a decline without 'to' answers the newest pending one
        send(invite(alice, "r1", daveBare.toString()));
        clock.advanceMillis(61_000);
        send(decline(dave, "r1", null));
        assertThat(errorCondition(only(out.take(dave)))).isEqualTo("not-acceptable");
        send(invite(alice, "r1", daveBare.toString()));
        send(decline(dave, "r1", null));
        assertThat(named(out.take(alice), "message")).hasSize(1);
    }

    @Test
    void pendingInvitations_areBounded_oldestForgotten() {
        startWith(Map.of("mucscale.muc.max-pending-invitations", "3", "mucscale.muc.room-invite-burst", "100",
                "mucscale.muc.user-invite-burst", "100"));
        createInstant(alice, "r1", "Alice");
        for (int i = 0; i < 5; i++) {
            send(invite(alice, "r1", "v" + i + "@elsewhere.example"));
        }
        int pending = muc.onRoomThread(room("r1"), s -> s.rooms.get(room("r1")).invitations.size());
        assertThat(pending).isEqualTo(3);
        out.clear();
        send(decline(Jid.parse("v0@elsewhere.example/c"), "r1", null));
        assertThat(out.take(alice)).isEmpty();
        send(decline(Jid.parse("v4@elsewhere.example/c"), "r1", null));
        assertThat(out.take(alice)).hasSize(1);
    }

    // --------------------------------------------------------------------------------------------- creation

    @Test
    void roomsPerUser_capped_notAllowed_untilOneGoes() {
        startWith(Map.of("mucscale.muc.max-rooms-per-user", "2"));
        join(bob, "b1", "Bob");
        join(bob, "b2", "Bob");
        XmlElement err = only(join(bob, "b3", "Bob"));
        assertThat(errorCondition(err)).isEqualTo("not-allowed");
        assertThat(text(err)).contains("already have 2 rooms");
        assertThat(muc.roomCount()).isEqualTo(2);
        assertThat(refused).containsExactly(FloodLimit.ROOMS_PER_USER);
        leave(bob, "b1", "Bob"); // a non-persistent room goes with its last occupant, and no longer counts
        out.clear();
        assertThat(statusCodes(selfPresence(join(bob, "b3", "Bob")))).contains(201);
        // another user is not affected by Bob's cap
        assertThat(statusCodes(selfPresence(join(carol, "c1", "Carol")))).contains(201);
    }

    @Test
    void roomsPerService_capped_resourceConstraint_adminsExempt() {
        startWith(Map.of("mucscale.muc.max-rooms", "2", "mucscale.muc.service-admins", "alice@example.org"));
        join(bob, "b1", "Bob");
        join(carol, "c1", "Carol");
        XmlElement err = only(join(dave, "d1", "Dave"));
        assertThat(errorCondition(err)).isEqualTo("resource-constraint");
        assertThat(text(err)).contains("maximum of 2 rooms");
        assertThat(refused).containsExactly(FloodLimit.ROOMS_PER_SERVICE);
        assertThat(statusCodes(selfPresence(join(alice, "a1", "Alice")))).contains(201);
    }

    @Test
    void roomCreationSpam_isAJoin_andSpendsTheUserJoinRate() {
        startWith(Map.of("mucscale.muc.user-join-burst", "2", "mucscale.muc.user-joins-per-minute", "1"));
        join(bob, "b1", "Bob");
        leave(bob, "b1", "Bob");
        join(bob, "b2", "Bob");
        leave(bob, "b2", "Bob");
        out.clear();
        XmlElement err = only(join(bob, "b3", "Bob"));
        assertThat(errorCondition(err)).isEqualTo("resource-constraint");
        assertThat(text(err)).contains("creating rooms too fast");
        assertThat(muc.roomCount()).isZero();
        assertThat(refused).containsExactly(FloodLimit.USER_JOIN_RATE);
    }

    // ------------------------------------------------------------------------------------- defaults against a flood

    @Test
    void joinBurst_byDefault_threeJoinsOrNickChangesAtOnce_thenTheRate() {
        startWith(Map.of()); // the defaults: each admitted join in a room of n costs the server about 2n stanzas
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob"); // token 1
        leave(bob, "r1", "Bob"); // token 2 (a leave spends one if left)
        join(bob, "r1", "Bob"); // token 3
        send(presence(bob, "r1", "Bobby")); // none left: the nickname change is refused
        out.clear();
        send(joinStanza(carol, "r1", "Carol")); // another user has a budget of its own
        assertThat(statusCodes(selfPresence(out.take(carol)))).contains(110);
        assertThat(refused).containsExactly(FloodLimit.NICK_CHANGE_RATE);
        clock.advanceMillis(3_000); // one token at 20 per minute
        send(presence(bob, "r1", "Bobby"));
        assertThat(refused).hasSize(1);
    }

    @Test
    void refusalFlood_errorsUpToTheUsersBudget_thenWithheldAndCounted_iqsStillAnswered() {
        startWith(Map.of()); // the defaults: burst 20, 60 per minute
        createInstant(alice, "r1", "Alice");
        out.clear();
        for (int i = 0; i < 50; i++) { // not an occupant: every one is refused
            send(groupchat(mallory, "r1", "spam " + i));
        }
        List<XmlElement> errors = out.take(mallory);
        assertThat(errors).hasSize(20).allMatch(e -> "not-acceptable".equals(errorCondition(e)));
        assertThat(withheld).hasValue(30);
        assertThat(out.take(alice)).isEmpty();
        // the same budget across rooms and kinds of refusal: a forged decline in another room gets no error either
        createInstant(alice, "r2", "Alice");
        out.clear();
        send(decline(mallory, "r2", victim.toString()));
        assertThat(out.take(mallory)).isEmpty();
        assertThat(out.take(victim)).isEmpty();
        assertThat(refused).containsExactly(FloodLimit.UNSOLICITED_DECLINE); // still refused and counted as such
        assertThat(withheld).hasValue(31);
        // an IQ is always answered: its sender waits for the reply
        assertThat(iq(mallory, room("r1"), "get", admin("affiliation", "owner")).attribute("type")).isEqualTo("error");
        // other users are not touched, and the budget refills
        send(groupchat(bob, "r1", "not in it"));
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("not-acceptable");
        clock.advanceMillis(1_000); // one token at 60 per minute
        send(groupchat(mallory, "r1", "again"));
        send(groupchat(mallory, "r1", "and again"));
        assertThat(out.take(mallory)).hasSize(1);
    }

    @Test
    void defaults_letRealPlayersIn_aRoomFillingAfterARestart_andBookmarksAtLogin() {
        startWith(Map.of());
        createInstant(alice, "hall", "Alice");
        for (int i = 0; i < 427; i++) { // joinstorm's room: everyone rejoins at once after a server restart
            Jid u = Jid.parse("player" + i + "@example.org/game");
            assertThat(statusCodes(selfPresence(join(u, "hall", "P" + i)))).contains(110);
        }
        for (int r = 0; r < 20; r++) { // the guild rooms of one player's bookmarks
            createInstant(alice, "guild" + r, "Alice");
        }
        // its bookmarks at login: 20 rooms at once, from a second session of someone already in the hall
        Jid player = Jid.parse("player0@example.org/phone");
        for (int r = 0; r < 20; r++) {
            assertThat(statusCodes(selfPresence(join(player, "guild" + r, "P0")))).contains(110);
        }
        // a reconnect: leave and rejoin at once, twice in a row, is still within the per-room burst
        leave(player, "guild0", "P0");
        assertThat(statusCodes(selfPresence(join(player, "guild0", "P0")))).contains(110);
        assertThat(refused).isEmpty();
        assertThat(withheld).hasValue(0);
    }

    @Test
    void refusalFlood_beforeAnyRoom_sameErrorBudget() {
        startWith(Map.of("mucscale.muc.max-stanza-chars", "256"));
        createInstant(alice, "r1", "Alice");
        out.clear();
        String big = "x".repeat(300);
        for (int i = 0; i < 25; i++) { // too large: refused by the service before the room sees it
            send(groupchat(mallory, "r1", big));
        }
        for (int i = 0; i < 5; i++) { // to the service's own address, not a room
            send(message(mallory, Jid.parse(SERVICE), "chat", "hello"));
        }
        List<XmlElement> errors = out.take(mallory);
        assertThat(errors).hasSize(20).allMatch(e -> "policy-violation".equals(errorCondition(e)));
        assertThat(withheld).hasValue(10);
        assertThat(out.take(alice)).isEmpty();
    }
}
