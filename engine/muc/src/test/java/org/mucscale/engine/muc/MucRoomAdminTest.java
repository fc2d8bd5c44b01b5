package org.mucscale.engine.muc;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.muc.admin.AdminException;
import org.mucscale.engine.muc.admin.Page;
import org.mucscale.engine.muc.admin.RoomAdmin;
import org.mucscale.engine.muc.admin.RoomDetails;
import org.mucscale.engine.muc.admin.RoomSettings;
import org.mucscale.engine.muc.admin.RoomSummary;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Room administration (issue 37) through {@link RoomAdmin} against a real service: each change is checked by what the
 * occupants receive (as XEP-0045 prescribes for the same change by an owner or moderator) and by what the room holds
 * after; refused requests change nothing.
 */
class MucRoomAdminTest extends MucTestBase {
    RoomAdmin admin;

    @BeforeEach
    void admin() {
        start(Map.of("mucscale.muc.service-admins", "root@example.org"), b -> { });
        admin = new RoomAdmin(muc);
    }

    private static RoomSettings owners(String... jids) {
        RoomSettings s = new RoomSettings();
        s.owners = List.of(jids);
        return s;
    }

    private AdminException.Problem problemOf(Runnable r) {
        try {
            r.run();
        } catch (AdminException e) {
            return e.problem();
        }
        throw new AssertionError("not refused");
    }

    @Test
    void create_whenAbsent_makesUnlockedPersistentRoomThatUsersJoin() {
        RoomSettings s = owners("alice@example.org");
        s.naturalName = "Lobby";
        s.description = "game lobby";
        s.members = List.of("bob@example.org");
        s.maxUsers = 30;
        RoomDetails d = admin.create("Lobby", s, false);
        assertThat(d.roomName()).isEqualTo("lobby");
        assertThat(d.naturalName()).isEqualTo("Lobby");
        assertThat(d.persistent()).isTrue();
        assertThat(d.locked()).isFalse();
        assertThat(d.maxUsers()).isEqualTo(30);
        assertThat(d.owners()).containsExactly("alice@example.org");
        assertThat(d.members()).containsExactly("bob@example.org");
        assertThat(d.occupants()).isEmpty();
        // nothing the room said to the administration actor reached the host
        assertThat(out.sequence()).noneMatch(line -> line.contains(RoomAdminBridge.ACTOR_DOMAIN));
        List<XmlElement> got = join(alice, "lobby", "al");
        assertThat(statusCodes(selfPresence(got))).doesNotContain(201); // created already, not by this join
        assertThat(item(selfPresence(got)).attribute("affiliation")).isEqualTo("owner");
    }

    @Test
    void create_whenRoomExists_isConflictUnlessUpsert() {
        createInstant(alice, "r1", "al");
        assertThat(problemOf(() -> admin.create("r1", owners("alice@example.org"), false)))
                .isEqualTo(AdminException.Problem.CONFLICT);
        RoomSettings s = new RoomSettings();
        s.description = "upserted";
        assertThat(admin.create("r1", s, true).description()).isEqualTo("upserted");
    }

    @Test
    void create_withoutOwners_defaultsToServiceAdmins_andBadInputIsRefused() {
        // the service's administrators own every room (as Openfire's sysadmins do): no explicit owner is stored
        assertThat(admin.create("r2", new RoomSettings(), false).owners()).isEmpty();
        XmlElement rootJoined = selfPresence(join(org.mucscale.engine.stanza.Jid.parse("root@example.org/x"), "r2",
                "root"));
        assertThat(item(rootJoined).attribute("affiliation")).isEqualTo("owner");
        RoomSettings both = owners("alice@example.org");
        both.outcasts = List.of("alice@example.org");
        assertThat(problemOf(() -> admin.create("r3", both, false))).isEqualTo(AdminException.Problem.CONFLICT);
        RoomSettings bad = owners("alice@example.org");
        bad.allowPM = "everybody";
        assertThat(problemOf(() -> admin.create("r3", bad, false))).isEqualTo(AdminException.Problem.BAD_REQUEST);
        assertThat(problemOf(() -> admin.create("a b", new RoomSettings(), false)))
                .isEqualTo(AdminException.Problem.BAD_REQUEST);
        assertThat(problemOf(() -> admin.room("r3"))).isEqualTo(AdminException.Problem.NOT_FOUND);
    }

    @Test
    void kick_occupantAndEveryoneElseSee307WithReason_ownerCannotBeKicked() {
        createInstant(alice, "r", "al");
        join(bob, "r", "bobby");
        out.clear();
        admin.kick("r", "bobby", "cheating");
        XmlElement self = only(named(out.take(bob), "presence"));
        assertThat(self.attribute("type")).isEqualTo("unavailable");
        assertThat(statusCodes(self)).contains(307, 110);
        assertThat(item(self).childText("reason")).isEqualTo("cheating");
        assertThat(item(self).child("actor")).isNull();
        XmlElement seen = only(named(out.take(alice), "presence"));
        assertThat(statusCodes(seen)).contains(307);
        assertThat(problemOf(() -> admin.kick("r", "al", null))).isEqualTo(AdminException.Problem.NOT_ALLOWED);
        assertThat(problemOf(() -> admin.kick("r", "nobody", null))).isEqualTo(AdminException.Problem.NOT_FOUND);
        assertThat(admin.room("r").occupants()).extracting(RoomAdminBridge.OccupantView::nick).containsExactly("al");
    }

    @Test
    void ban_removesWith301AndRefusesRejoin_voiceAndModeratorChangesAreBroadcast() {
        createInstant(alice, "r", "al");
        join(bob, "r", "bobby");
        join(carol, "r", "caro");
        out.clear();
        admin.setRole("r", "caro", Role.MODERATOR, null);
        assertThat(item(only(named(out.take(bob), "presence"))).attribute("role")).isEqualTo("moderator");
        out.clear();
        admin.ban("r", "bob@example.org", "spam");
        XmlElement self = only(named(out.take(bob), "presence"));
        assertThat(statusCodes(self)).contains(301);
        assertThat(item(self).attribute("affiliation")).isEqualTo("outcast");
        assertThat(statusCodes(only(named(out.take(alice), "presence")))).contains(301);
        assertThat(admin.room("r").outcasts()).containsExactly("bob@example.org");
        assertThat(errorCondition(selfOrError(join(bob, "r", "bobby")))).isEqualTo("forbidden");
    }

    private static XmlElement selfOrError(List<XmlElement> got) {
        return got.get(got.size() - 1);
    }

    @Test
    void setAffiliation_membersOnlyRemovalIs321_lastOwnerIsConflict_nothingChanges() {
        createConfigured(alice, "r", "al", "muc#roomconfig_membersonly", "1");
        admin.setAffiliation("r", "bob@example.org", Affiliation.MEMBER, null);
        join(bob, "r", "bobby");
        out.clear();
        admin.setAffiliation("r", "bob@example.org", Affiliation.NONE, null);
        assertThat(statusCodes(only(named(out.take(bob), "presence")))).contains(321);
        assertThat(problemOf(() -> admin.setAffiliation("r", "alice@example.org", Affiliation.MEMBER, null)))
                .isEqualTo(AdminException.Problem.CONFLICT);
        RoomSettings noOwners = new RoomSettings();
        noOwners.owners = List.of();
        assertThat(problemOf(() -> admin.update("r", noOwners, false))).isEqualTo(AdminException.Problem.CONFLICT);
        RoomSettings twice = new RoomSettings();
        twice.members = List.of("dave@example.org");
        twice.outcasts = List.of("dave@example.org");
        assertThat(problemOf(() -> admin.update("r", twice, false))).isEqualTo(AdminException.Problem.CONFLICT);
        RoomDetails d = admin.room("r");
        assertThat(d.owners()).containsExactly("alice@example.org");
        assertThat(d.members()).isEmpty();
        assertThat(d.outcasts()).isEmpty();
    }

    @Test
    void update_partialChangesOnlyGivenFields_occupantsGet104_listsAreReplaced() {
        createConfigured(alice, "r", "al", "muc#roomconfig_roomdesc", "old", "muc#roomconfig_persistentroom", "1");
        join(bob, "r", "bobby");
        out.clear();
        RoomSettings s = new RoomSettings();
        s.moderated = true;
        s.owners = List.of("carol@example.org", "alice@example.org");
        s.members = List.of("bob@example.org");
        RoomDetails d = admin.update("r", s, false);
        assertThat(d.moderated()).isTrue();
        assertThat(d.description()).isEqualTo("old");
        assertThat(d.owners()).containsExactlyInAnyOrder("alice@example.org", "carol@example.org");
        assertThat(d.members()).containsExactly("bob@example.org");
        List<XmlElement> bobGot = out.take(bob);
        assertThat(named(bobGot, "message")).anySatisfy(m -> {
            assertThat(m.attribute("from")).isEqualTo("r@" + SERVICE);
            assertThat(statusCodes(m)).contains(104);
        });
        RoomSettings full = new RoomSettings();
        full.naturalName = "Renamed";
        d = admin.update("r", full, true);
        assertThat(d.description()).isEmpty();
        assertThat(d.moderated()).isFalse();
        assertThat(d.naturalName()).isEqualTo("Renamed");
        assertThat(d.owners()).hasSize(2); // lists not given stay as they are
        assertThat(problemOf(() -> admin.update("nope", s, false))).isEqualTo(AdminException.Problem.NOT_FOUND);
    }

    @Test
    void destroy_occupantsGetDestroyWithReasonAndAlternateVenue() {
        createInstant(alice, "r", "al");
        join(bob, "r", "bobby");
        out.clear();
        admin.destroy("r", "moving", "lobby@" + SERVICE);
        XmlElement p = only(named(out.take(bob), "presence"));
        XmlElement destroy = mucUser(p).child("destroy");
        assertThat(destroy.attribute("jid")).isEqualTo("lobby@" + SERVICE);
        assertThat(destroy.childText("reason")).isEqualTo("moving");
        assertThat(problemOf(() -> admin.room("r"))).isEqualTo(AdminException.Problem.NOT_FOUND);
        assertThat(problemOf(() -> admin.destroy("r", null, null))).isEqualTo(AdminException.Problem.NOT_FOUND);
        assertThat(problemOf(() -> admin.destroy("x", null, "not a jid")))
                .isEqualTo(AdminException.Problem.BAD_REQUEST);
    }

    @Test
    void announce_isGroupchatFromRoomBareAddressMarked_andClearHistoryEmptiesWhatJoinersGet() {
        createInstant(alice, "r", "al");
        send(groupchat(alice, "r", "hello"));
        assertThat(admin.room("r").history()).extracting(RoomAdminBridge.HistoryView::body).containsExactly("hello");
        out.clear();
        admin.announce("r", "server restarts at noon");
        XmlElement m = only(named(out.take(alice), "message"));
        assertThat(m.attribute("from")).isEqualTo("r@" + SERVICE);
        assertThat(m.attribute("type")).isEqualTo("groupchat");
        assertThat(m.childText("body")).isEqualTo("server restarts at noon");
        assertThat(m.child("announcement", RoomAdmin.NS_ANNOUNCEMENT)).isNotNull();
        admin.clearHistory("r");
        assertThat(admin.room("r").history()).isEmpty();
        assertThat(named(join(bob, "r", "bobby"), "message")).noneMatch(x -> "hello".equals(x.childText("body")));
    }

    @Test
    void list_pagesByKeyWithSearchAndTotal_readShowsRealJids_roomsOfUser_unused() {
        for (int i = 0; i < 25; i++) {
            RoomSettings s = owners("alice@example.org");
            s.description = i % 5 == 0 ? "tournament" : "casual";
            admin.create(String.format("room%02d", i), s, false);
        }
        Page<RoomSummary> p1 = admin.list(null, null, 10);
        assertThat(p1.total()).isEqualTo(25);
        assertThat(p1.items()).extracting(RoomSummary::roomName).startsWith("room00").endsWith("room09");
        Page<RoomSummary> p3 = admin.list(null, admin.list(null, p1.next(), 10).next(), 10);
        assertThat(p3.items()).extracting(RoomSummary::roomName).containsExactly("room20", "room21", "room22",
                "room23", "room24");
        assertThat(p3.next()).isNull();
        Page<RoomSummary> found = admin.list("TOURN", null, 3);
        assertThat(found.total()).isEqualTo(5);
        assertThat(found.items()).extracting(RoomSummary::roomName).containsExactly("room00", "room05", "room10");
        assertThat(found.next()).isEqualTo("room10");
        assertThat(problemOf(() -> admin.list(null, null, 0))).isEqualTo(AdminException.Problem.BAD_REQUEST);

        join(bob, "room03", "bobby");
        RoomAdminBridge.OccupantView o = only2(admin.room("room03").occupants());
        assertThat(o.realJid()).isEqualTo(bob);
        assertThat(o.role()).isEqualTo(Role.PARTICIPANT);
        assertThat(admin.roomsOf("bob@example.org")).extracting(u -> u.roomName()).containsExactly("room03");
        assertThat(admin.roomsOf("alice@example.org")).hasSize(25);
        List<String> unused = admin.unused(Duration.ofDays(1), clock.currentTimeMillis());
        assertThat(unused).hasSize(24).doesNotContain("room03");
        assertThat(admin.destroyUnused(Duration.ofDays(1), clock.currentTimeMillis(), "clean-up")).hasSize(24);
        assertThat(admin.list(null, null, 100).items()).extracting(RoomSummary::roomName).containsExactly("room03");
    }

    private static <T> T only2(List<T> l) {
        assertThat(l).hasSize(1);
        return l.get(0);
    }

    @Test
    void change_whenAnotherNodeServesTheRoom_isUnavailableAndChangesNothingHere() {
        java.util.Set<org.mucscale.engine.stanza.Jid> elsewhere = java.util.concurrent.ConcurrentHashMap.newKeySet();
        RoomPlacement placement = new RoomPlacement() {
            @Override
            public boolean servesHere(org.mucscale.engine.stanza.Jid room) {
                return !elsewhere.contains(room);
            }

            @Override
            public void forward(org.mucscale.engine.stanza.Jid room, XmlElement stanza, String entryNode, int hops) {
            }

            @Override
            public void sessionSeen(org.mucscale.engine.stanza.Jid sender, String entryNode) {
            }

            @Override
            public String sessionNode(org.mucscale.engine.stanza.Jid user) {
                return null;
            }
        };
        start(Map.of("mucscale.muc.service-admins", "root@example.org"),
                b -> b.cluster(placement, RoomReplication.NONE));
        admin = new RoomAdmin(muc);
        admin.create("moving", owners("alice@example.org"), false);
        elsewhere.add(room("moving"));
        assertThat(problemOf(() -> admin.kick("moving", "x", null))).isEqualTo(AdminException.Problem.ELSEWHERE);
        assertThat(problemOf(() -> admin.room("moving"))).isEqualTo(AdminException.Problem.ELSEWHERE);
        assertThat(problemOf(() -> admin.create("moving", owners("bob@example.org"), true)))
                .isEqualTo(AdminException.Problem.ELSEWHERE);
        elsewhere.clear();
        assertThat(admin.room("moving").owners()).containsExactly("alice@example.org");
    }
}
