package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/** Disco, configuration form, destruction, self-ping, persistence and presence policies. */
class MucRoomTest extends MucTestBase {
    static final String INFO = "http://jabber.org/protocol/disco#info";
    static final String ITEMS = "http://jabber.org/protocol/disco#items";

    private static List<String> features(XmlElement result) {
        List<String> f = new ArrayList<>();
        for (XmlElement e : result.child("query", INFO).elements("feature")) {
            f.add(e.attribute("var"));
        }
        return f;
    }

    @Test
    void serviceDisco_infoAndPublicRoomsOnly() {
        XmlElement info = iq(bob, Jid.parse(SERVICE), "get", XmlElement.builder("query", INFO).build());
        assertThat(info.child("query", INFO).child("identity").attribute("category")).isEqualTo("conference");
        assertThat(features(info)).contains("http://jabber.org/protocol/muc");
        createInstant(alice, "open", "Alice");
        createConfigured(alice, "hidden", "Alice", "muc#roomconfig_publicroom", "0");
        join(alice, "locked", "Alice"); // locked rooms are not listed
        XmlElement items = iq(bob, Jid.parse(SERVICE), "get", XmlElement.builder("query", ITEMS).build());
        assertThat(items.child("query", ITEMS).elements("item")).extracting(i -> i.attribute("jid"))
                .containsExactly(room("open").toString());
        assertThat(iq(bob, Jid.parse(SERVICE), "get", XmlElement.builder("ping", "urn:xmpp:ping").build())
                .attribute("type")).isEqualTo("result");
        assertThat(errorCondition(iq(bob, Jid.parse(SERVICE), "get", XmlElement.builder("query",
                "jabber:iq:version").build()))).isEqualTo("service-unavailable");
    }

    @Test
    void roomDisco_featuresFollowConfiguration_andRoomInfoForm() {
        createInstant(alice, "r1", "Alice");
        List<String> f = features(iq(bob, room("r1"), "get", XmlElement.builder("query", INFO).build()));
        assertThat(f).contains("http://jabber.org/protocol/muc", "muc_open", "muc_unmoderated", "muc_unsecured",
                "muc_temporary", "muc_public", "muc_semianonymous", "urn:xmpp:sid:0",
                "http://jabber.org/protocol/muc#self-ping");
        configure(alice, "r1", "muc#roomconfig_membersonly", "1", "muc#roomconfig_moderatedroom", "1",
                "muc#roomconfig_passwordprotectedroom", "1", "muc#roomconfig_roomsecret", "pw",
                "muc#roomconfig_persistentroom", "1", "muc#roomconfig_publicroom", "0",
                "muc#roomconfig_whois", "anyone", "muc#roomconfig_roomname", "Room One",
                "muc#roomconfig_roomdesc", "about things");
        XmlElement info = iq(bob, room("r1"), "get", XmlElement.builder("query", INFO).build());
        assertThat(features(info)).contains("muc_membersonly", "muc_moderated", "muc_passwordprotected",
                "muc_persistent", "muc_hidden", "muc_nonanonymous");
        assertThat(info.child("query", INFO).child("identity").attribute("name")).isEqualTo("Room One");
        assertThat(info.toXml()).contains("muc#roominfo").contains("about things");
        assertThat(errorCondition(iq(bob, room("nothere"), "get", XmlElement.builder("query", INFO).build())))
                .isEqualTo("item-not-found");
    }

    @Test
    void roomDiscoItems_listsOccupants_andOccupantQueryByNonOccupant_badRequest() {
        createInstant(alice, "r1", "Alice");
        XmlElement items = iq(bob, room("r1"), "get", XmlElement.builder("query", ITEMS).build());
        assertThat(items.child("query", ITEMS).elements("item")).hasSize(1);
        XmlElement err = iq(bob, occ("r1", "Alice"), "get", XmlElement.builder("query", ITEMS).build());
        assertThat(errorCondition(err)).isEqualTo("bad-request");
    }

    @Test
    void occupantIq_isRelayedBetweenOccupants_andReplyReturns() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        send(XmlElement.builder("iq").attribute("from", bob.toString()).attribute("to", occ("r1", "Alice").toString())
                .attribute("type", "get").attribute("id", "v1")
                .child(XmlElement.builder("query", "jabber:iq:version").build()).build());
        XmlElement relayed = only(out.take(alice));
        assertThat(relayed.attribute("from")).isEqualTo(occ("r1", "Bob").toString());
        assertThat(relayed.attribute("to")).isEqualTo(alice.toString());
        send(XmlElement.builder("iq").attribute("from", alice.toString()).attribute("to", occ("r1", "Bob").toString())
                .attribute("type", "result").attribute("id", "v1").build());
        XmlElement back = only(out.take(bob));
        assertThat(back.attribute("from")).isEqualTo(occ("r1", "Alice").toString());
        assertThat(back.attribute("id")).isEqualTo("v1");
    }

    @Test
    void selfPing_joinedGetsResult_notJoinedGetsNotAcceptable() {
        createInstant(alice, "r1", "Alice");
        XmlElement ping = XmlElement.builder("ping", "urn:xmpp:ping").build();
        assertThat(iq(alice, occ("r1", "Alice"), "get", ping).attribute("type")).isEqualTo("result");
        assertThat(errorCondition(iq(bob, occ("r1", "Alice"), "get", ping))).isEqualTo("not-acceptable");
        assertThat(errorCondition(iq(bob, occ("gone", "Alice"), "get", ping))).isEqualTo("item-not-found");
    }

    @Test
    void configForm_onlyForOwners_listsFields() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        XmlElement form = iq(alice, room("r1"), "get", XmlElement.builder("query", NS_OWNER).build());
        List<String> vars = new ArrayList<>();
        for (XmlElement f : form.child("query", NS_OWNER).child("x", NS_DATA).elements("field")) {
            vars.add(f.attribute("var"));
        }
        assertThat(vars).contains("FORM_TYPE", "muc#roomconfig_roomname", "muc#roomconfig_roomdesc",
                "muc#roomconfig_persistentroom", "muc#roomconfig_publicroom", "muc#roomconfig_moderatedroom",
                "muc#roomconfig_membersonly", "muc#roomconfig_passwordprotectedroom", "muc#roomconfig_roomsecret",
                "muc#roomconfig_maxusers", "muc#roomconfig_whois", "muc#roomconfig_changesubject",
                "muc#roomconfig_allowpm", "muc#roomconfig_enablelogging", "muc#roomconfig_presencebroadcast",
                "mucscale#roomconfig_presencepolicy", "muc#roomconfig_roomowners", "muc#roomconfig_roomadmins");
        assertThat(errorCondition(iq(bob, room("r1"), "get", XmlElement.builder("query", NS_OWNER).build())))
                .isEqualTo("forbidden");
        assertThat(errorCondition(configure(bob, "r1", "muc#roomconfig_roomname", "mine"))).isEqualTo("forbidden");
        XmlElement bad = configure(alice, "r1", "muc#roomconfig_maxusers", "lots");
        assertThat(errorCondition(bad)).isEqualTo("not-acceptable");
        assertThat(bad.child("error").childText("text")).contains("muc#roomconfig_maxusers");
    }

    @Test
    void configChange_notifiesOccupantsWith104And172() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        configure(alice, "r1", "muc#roomconfig_whois", "anyone");
        XmlElement note = only(out.take(bob));
        assertThat(statusCodes(note)).containsExactly(104, 172);
    }

    @Test
    void configure_membersOnly_removesNonMembersWith322() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        configure(alice, "r1", "muc#roomconfig_membersonly", "1");
        List<XmlElement> toBob = out.take(bob);
        assertThat(statusCodes(toBob.get(0))).contains(110, 322);
    }

    @Test
    void cancelInitialConfiguration_destroysRoom() {
        join(alice, "r1", "Alice");
        XmlElement r = iq(alice, room("r1"), "set", XmlElement.builder("query", NS_OWNER)
                .child(XmlElement.builder("x", NS_DATA).attribute("type", "cancel").build()).build());
        assertThat(r.attribute("type")).isEqualTo("result");
        assertThat(muc.roomCount()).isZero();
    }

    @Test
    void destroy_byOwner_notifiesOccupantsWithReasonAndAlternate_andByOthersForbidden() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        XmlElement destroy = XmlElement.builder("query", NS_OWNER).child(XmlElement.builder("destroy")
                .attribute("jid", "r2@" + SERVICE).textChild("reason", "moved").build()).build();
        assertThat(errorCondition(iq(bob, room("r1"), "set", destroy))).isEqualTo("forbidden");
        String id = "destroy-1";
        out.clear();
        send(XmlElement.builder("iq").attribute("from", alice.toString()).attribute("to", room("r1").toString())
                .attribute("type", "set").attribute("id", id).child(destroy).build());
        // the owner, an occupant too, gets the destroy presence before the IQ result (Smack relies on it)
        List<XmlElement> toAlice = out.take(alice);
        assertThat(toAlice).extracting(XmlElement::name).containsExactly("presence", "iq");
        assertThat(mucUser(toAlice.get(0)).child("destroy")).isNotNull();
        assertThat(toAlice.get(1).attribute("type")).isEqualTo("result");
        // ... and the other occupants after it
        List<String> order = out.sequence();
        assertThat(order.indexOf(alice + " iq result")).isLessThan(order.indexOf(bob + " presence unavailable"));
        assertThat(order.indexOf(alice + " presence unavailable")).isLessThan(order.indexOf(alice + " iq result"));
        XmlElement toBob = only(out.take(bob));
        assertThat(toBob.attribute("type")).isEqualTo("unavailable");
        XmlElement d = mucUser(toBob).child("destroy");
        assertThat(d.attribute("jid")).isEqualTo("r2@" + SERVICE);
        assertThat(d.childText("reason")).isEqualTo("moved");
        assertThat(muc.roomCount()).isZero();
        assertThat(muc.occupantCount()).isZero();
    }

    /** A repository of our own port, in memory. */
    static final class MemoryRepository implements RoomRepository {
        final Map<Jid, StoredRoom> rooms = new ConcurrentHashMap<>();

        @Override
        public Collection<StoredRoom> loadAll() {
            return new ArrayList<>(rooms.values());
        }

        @Override
        public void save(StoredRoom room) {
            rooms.put(room.room(), room);
        }

        @Override
        public void delete(Jid room) {
            rooms.remove(room);
        }
    }

    @Test
    void persistentRoom_savedOnChange_restoredOnStart_deletedOnDestroy() {
        MemoryRepository repo = new MemoryRepository();
        start(Map.of(), b -> b.repository(repo));
        createConfigured(alice, "keep", "Alice", "muc#roomconfig_persistentroom", "1",
                "muc#roomconfig_roomname", "Keeper", "muc#roomconfig_membersonly", "1");
        iq(alice, room("keep"), "set", admin("jid", "bob@example.org", "affiliation", "member"));
        send(XmlElement.builder("message").attribute("from", alice.toString()).attribute("to", room("keep").toString())
                .attribute("type", "groupchat").textChild("subject", "Kept topic").build());
        leave(alice, "keep", "Alice");
        assertThat(muc.roomCount()).isEqualTo(1); // persistent rooms outlive their occupants
        StoredRoom stored = repo.rooms.get(room("keep"));
        assertThat(stored.name()).isEqualTo("Keeper");
        assertThat(stored.affiliations()).containsEntry(Jid.parse("bob@example.org"), Affiliation.MEMBER)
                .containsEntry(Jid.parse("alice@example.org"), Affiliation.OWNER);

        start(Map.of(), b -> b.repository(repo));
        assertThat(muc.roomCount()).isEqualTo(1);
        assertThat(errorCondition(only(join(carol, "keep", "Carol")))).isEqualTo("registration-required");
        List<XmlElement> got = join(bob, "keep", "Bob");
        assertThat(named(got, "message").get(0).childText("subject")).isEqualTo("Kept topic");
        XmlElement items = iq(dave, Jid.parse(SERVICE), "get", XmlElement.builder("query", ITEMS).build());
        assertThat(items.child("query", ITEMS).child("item").attribute("name")).isEqualTo("Keeper");

        join(alice, "keep", "Alice");
        iq(alice, room("keep"), "set", XmlElement.builder("query", NS_OWNER)
                .child(XmlElement.builder("destroy").build()).build());
        assertThat(repo.rooms).isEmpty();
    }

    @Test
    void presencePolicy_moderatorsOnly_hidesParticipantPresence() {
        createConfigured(alice, "big", "Alice", "mucscale#roomconfig_presencepolicy", "moderators_only");
        List<XmlElement> bobGot = join(bob, "big", "Bob");
        // Bob sees Alice (a moderator) and himself; Alice does not see Bob join
        assertThat(named(bobGot, "presence")).extracting(p -> p.attribute("from"))
                .containsExactly(occ("big", "Alice").toString(), occ("big", "Bob").toString());
        assertThat(out.take(alice)).isEmpty();
        List<XmlElement> carolGot = join(carol, "big", "Carol");
        assertThat(named(carolGot, "presence")).hasSize(2);
        leave(bob, "big", "Bob");
        assertThat(out.take(alice)).isEmpty();
        assertThat(out.take(carol)).isEmpty();
        assertThat(only(out.take(bob)).attribute("type")).isEqualTo("unavailable");
        // messages still reach everyone
        send(groupchat(carol, "big", "hello"));
        assertThat(only(out.take(alice)).childText("body")).isEqualTo("hello");
    }

    @Test
    void presencePolicy_noneAboveN_stopsBroadcastAboveLimit() {
        start(Map.of("mucscale.muc.presence-broadcast-limit", "2",
                "mucscale.muc.default-presence-policy", "NONE_ABOVE_N"), b -> { });
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob"); // 2 occupants: still broadcast
        assertThat(only(out.take(alice)).attribute("from")).isEqualTo(occ("r1", "Bob").toString());
        List<XmlElement> carolGot = join(carol, "r1", "Carol"); // 3 > 2
        assertThat(named(carolGot, "presence")).extracting(p -> p.attribute("from"))
                .containsExactly(occ("r1", "Alice").toString(), occ("r1", "Carol").toString());
        assertThat(out.take(alice)).isEmpty();
        assertThat(out.take(bob)).isEmpty();
    }

    @Test
    void presenceBroadcastField_visitorsHidden() {
        createConfigured(alice, "r1", "Alice", "muc#roomconfig_moderatedroom", "1");
        XmlElement x = XmlElement.builder("x", NS_DATA).attribute("type", "submit")
                .child(field("muc#roomconfig_presencebroadcast", "moderator", "participant")).build();
        iq(alice, room("r1"), "set", XmlElement.builder("query", NS_OWNER).child(x).build());
        out.clear();
        join(bob, "r1", "Bob"); // a visitor
        assertThat(out.take(alice)).isEmpty();
    }

    @Test
    void presencePolicy_moderatorsOnly_demotedModeratorDisappearsForOthers() {
        createConfigured(alice, "big", "Alice", "mucscale#roomconfig_presencepolicy", "moderators_only");
        join(bob, "big", "Bob");
        join(carol, "big", "Carol");
        iq(alice, room("big"), "set", admin("nick", "Bob", "role", "moderator"));
        out.clear();
        iq(alice, room("big"), "set", admin("nick", "Bob", "role", "participant"));
        XmlElement seenByCarol = only(out.take(carol));
        assertThat(seenByCarol.attribute("type")).isEqualTo("unavailable");
        XmlElement bobSelf = only(out.take(bob));
        assertThat(bobSelf.attribute("type")).isNull();
        assertThat(item(bobSelf).attribute("role")).isEqualTo("participant");
    }
}
