package org.mucscale.engine.muc;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/** XEP-0045 7.10 registration with a room, 7.12 reserved nickname discovery, and muc#roomconfig_getmemberlist. */
class MucRegistrationTest extends MucTestBase {
    static final String NS_REGISTER = "jabber:iq:register";
    static final String NS_INFO = "http://jabber.org/protocol/disco#info";
    static final String OPEN = "x-muc#roomconfig_registration";

    static XmlElement registerQuery() {
        return XmlElement.builder("query", NS_REGISTER).build();
    }

    static XmlElement registerForm(String nick) {
        XmlElement.Builder x = XmlElement.builder("x", NS_DATA).attribute("type", "submit")
                .child(field("FORM_TYPE", "http://jabber.org/protocol/muc#register"));
        if (nick != null) {
            x.child(field("muc#register_roomnick", nick));
        }
        return XmlElement.builder("query", NS_REGISTER).child(x.build()).build();
    }

    private XmlElement register(Jid user, String room, String nick) {
        return iq(user, room(room), "set", registerForm(nick));
    }

    private String reservedNick(Jid user, String room) {
        XmlElement r = iq(user, room(room), "get", XmlElement.builder("query", NS_INFO)
                .attribute("node", "x-roomuser-item").build());
        assertThat(r.attribute("type")).as(r.toXml()).isEqualTo("result");
        XmlElement identity = r.child("query", NS_INFO).child("identity");
        return identity == null ? null : identity.attribute("name");
    }

    private List<String> features(Jid user, String room) {
        return iq(user, room(room), "get", XmlElement.builder("query", NS_INFO).build()).child("query", NS_INFO)
                .elements("feature").stream().map(f -> f.attribute("var")).toList();
    }

    private List<String> members(Jid asker, String room) {
        XmlElement r = iq(asker, room(room), "get", admin("affiliation", "member"));
        assertThat(r.attribute("type")).as(r.toXml()).isEqualTo("result");
        return r.child("query", NS_ADMIN).elements("item").stream().map(i -> i.attribute("jid")).toList();
    }

    @Test
    void closedByDefault_notAllowed_andNotAdvertised() {
        createInstant(alice, "r1", "Alice");
        assertThat(errorCondition(iq(bob, room("r1"), "get", registerQuery()))).isEqualTo("not-allowed");
        assertThat(errorCondition(register(bob, "r1", "Bobby"))).isEqualTo("not-allowed");
        assertThat(features(bob, "r1")).doesNotContain(NS_REGISTER);
        assertThat(reservedNick(bob, "r1")).isNull();
    }

    @Test
    void getForm_register_becomesMember_reservedNickDiscoverable() {
        createConfigured(alice, "r1", "Alice", OPEN, "1");
        assertThat(features(bob, "r1")).contains(NS_REGISTER);
        XmlElement form = iq(bob, room("r1"), "get", registerQuery()).child("query", NS_REGISTER).child("x", NS_DATA);
        assertThat(form.attribute("type")).isEqualTo("form");
        assertThat(form.elements("field")).extracting(f -> f.attribute("var"))
                .contains("FORM_TYPE", "muc#register_roomnick");

        assertThat(register(bob, "r1", "Bobby").attribute("type")).isEqualTo("result");
        assertThat(members(alice, "r1")).containsExactly("bob@example.org");
        assertThat(reservedNick(bob, "r1")).isEqualTo("Bobby");
        assertThat(reservedNick(Jid.parse("bob@example.org/other"), "r1")).as("any session of the user")
                .isEqualTo("Bobby");
        assertThat(reservedNick(carol, "r1")).isNull();
        XmlElement again = iq(bob, room("r1"), "get", registerQuery()).child("query", NS_REGISTER);
        assertThat(again.child("registered")).isNotNull();
        assertThat(again.childText("username")).isEqualTo("Bobby");
        // the owner's config form shows the setting
        XmlElement config = iq(alice, room("r1"), "get", XmlElement.builder("query", NS_OWNER).build());
        assertThat(config.toXml()).contains(OPEN);
    }

    @Test
    void reservedNick_conflictsForOthers_inRegistrationJoinAndNickChange() {
        createConfigured(alice, "r1", "Alice", OPEN, "1");
        register(bob, "r1", "Bobby");
        assertThat(errorCondition(register(carol, "r1", "bobby"))).isEqualTo("conflict");
        assertThat(errorCondition(only(join(carol, "r1", "BOBBY")))).isEqualTo("conflict");
        join(carol, "r1", "Carol");
        send(XmlElement.builder("presence").attribute("from", carol.toString())
                .attribute("to", occ("r1", "Bobby").toString()).build());
        assertThat(errorCondition(only(out.take(carol)))).isEqualTo("conflict");
        // a nickname in use by an occupant cannot be registered by someone else either
        assertThat(errorCondition(register(dave, "r1", "Carol"))).isEqualTo("conflict");
        // the holder joins with it, and may register again under another nickname
        assertThat(selfPresence(join(bob, "r1", "Bobby"))).isNotNull();
        assertThat(register(bob, "r1", "Robert").attribute("type")).isEqualTo("result");
        leave(bob, "r1", "Bobby");
        assertThat(register(dave, "r1", "Bobby").attribute("type")).as("the old reservation was released")
                .isEqualTo("result");
    }

    @Test
    void membersOnlyRoom_registrationRequiredUntilRegistered() {
        createConfigured(alice, "r1", "Alice", OPEN, "1", "muc#roomconfig_membersonly", "1");
        assertThat(errorCondition(only(join(dave, "r1", "Dave")))).isEqualTo("registration-required");
        assertThat(register(dave, "r1", "Dave").attribute("type")).isEqualTo("result");
        XmlElement self = selfPresence(join(dave, "r1", "Dave"));
        assertThat(item(self).attribute("affiliation")).isEqualTo("member");
    }

    @Test
    void visitorWhoRegisters_getsVoice_asAMember() {
        createConfigured(alice, "r1", "Alice", OPEN, "1", "muc#roomconfig_moderatedroom", "1");
        join(bob, "r1", "Bob");
        out.clear();
        register(bob, "r1", "Bob");
        XmlElement toAlice = only(out.take(alice));
        assertThat(item(toAlice).attribute("affiliation")).isEqualTo("member");
        assertThat(item(toAlice).attribute("role")).isEqualTo("participant");
    }

    @Test
    void badForms_badRequest_unacceptableNick_outcastForbidden() {
        createConfigured(alice, "r1", "Alice", OPEN, "1");
        assertThat(errorCondition(register(bob, "r1", null))).isEqualTo("bad-request");
        assertThat(errorCondition(iq(bob, room("r1"), "set", registerQuery()))).isEqualTo("bad-request");
        XmlElement wrongType = XmlElement.builder("query", NS_REGISTER).child(XmlElement.builder("x", NS_DATA)
                .attribute("type", "submit").child(field("FORM_TYPE", "urn:other"))
                .child(field("muc#register_roomnick", "Bob")).build()).build();
        assertThat(errorCondition(iq(bob, room("r1"), "set", wrongType))).isEqualTo("bad-request");
        assertThat(errorCondition(register(bob, "r1", "n".repeat(65)))).isEqualTo("not-acceptable");
        iq(alice, room("r1"), "set", admin("jid", "carol@example.org", "affiliation", "outcast"));
        assertThat(errorCondition(register(carol, "r1", "Carol"))).isEqualTo("forbidden");
        assertThat(members(alice, "r1")).isEmpty();
    }

    @Test
    void unregister_andLosingTheAffiliation_releaseTheNick() {
        createConfigured(alice, "r1", "Alice", OPEN, "1");
        register(bob, "r1", "Bobby");
        XmlElement remove = XmlElement.builder("query", NS_REGISTER).child(XmlElement.builder("remove").build())
                .build();
        assertThat(iq(bob, room("r1"), "set", remove).attribute("type")).isEqualTo("result");
        assertThat(members(alice, "r1")).isEmpty();
        assertThat(reservedNick(bob, "r1")).isNull();
        assertThat(errorCondition(iq(bob, room("r1"), "set", remove))).isEqualTo("item-not-found");

        register(carol, "r1", "Cee");
        iq(alice, room("r1"), "set", admin("jid", "carol@example.org", "affiliation", "none"));
        assertThat(reservedNick(carol, "r1")).isNull();
        assertThat(selfPresence(join(dave, "r1", "Cee"))).isNotNull();
    }

    @Test
    void registration_persistedWithTheAffiliation_andRestored() {
        MucRoomTest.MemoryRepository repo = new MucRoomTest.MemoryRepository();
        start(Map.of(), b -> b.repository(repo));
        createConfigured(alice, "keep", "Alice", "muc#roomconfig_persistentroom", "1", OPEN, "1",
                "muc#roomconfig_getmemberlist", "participant");
        register(bob, "keep", "Bobby");
        StoredRoom stored = repo.rooms.get(room("keep"));
        assertThat(stored.registrationOpen()).isTrue();
        assertThat(stored.memberListRoles()).containsExactly(Role.PARTICIPANT);
        assertThat(stored.reservedNicks()).containsEntry(Jid.parse("bob@example.org"), "Bobby");

        start(Map.of(), b -> b.repository(repo));
        assertThat(reservedNick(bob, "keep")).isEqualTo("Bobby");
        assertThat(errorCondition(only(join(carol, "keep", "Bobby")))).isEqualTo("conflict");
        assertThat(features(carol, "keep")).contains(NS_REGISTER);
        join(carol, "keep", "Carol");
        assertThat(members(carol, "keep")).as("participants may list members").contains("bob@example.org");
    }

    @Test
    void getMemberList_rolesDecideWhoMayRetrieveIt() {
        createInstant(alice, "r1", "Alice");
        iq(alice, room("r1"), "set", admin("jid", "dave@example.org", "affiliation", "member"));
        join(bob, "r1", "Bob");
        out.clear();
        assertThat(errorCondition(iq(bob, room("r1"), "get", admin("affiliation", "member"))))
                .as("by default only admins and owners").isEqualTo("forbidden");
        XmlElement form = iq(alice, room("r1"), "get", XmlElement.builder("query", NS_OWNER).build());
        assertThat(form.toXml()).contains("muc#roomconfig_getmemberlist");
        configure(alice, "r1", "muc#roomconfig_getmemberlist", "participant");
        out.clear();
        assertThat(members(bob, "r1")).containsExactly("dave@example.org");
        assertThat(errorCondition(iq(carol, room("r1"), "get", admin("affiliation", "member"))))
                .as("not an occupant, so no role").isEqualTo("forbidden");
        assertThat(errorCondition(iq(bob, room("r1"), "get", admin("affiliation", "admin"))))
                .as("only the member list").isEqualTo("forbidden");
        assertThat(errorCondition(configure(alice, "r1", "muc#roomconfig_getmemberlist", "owner")))
                .isEqualTo("not-acceptable");
    }

    @Test
    void whois_decidesWhoSeesRealJids() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        List<XmlElement> carolGot = join(carol, "r1", "Carol");
        XmlElement bobSeen = carolGot.stream().filter(p -> occ("r1", "Bob").toString().equals(p.attribute("from")))
                .findFirst().orElseThrow();
        assertThat(item(bobSeen).attribute("jid")).as("semi-anonymous: participants see no JIDs").isNull();
        XmlElement carolToAlice = only(out.take(alice));
        assertThat(item(carolToAlice).attribute("jid")).as("moderators do").isEqualTo(carol.toString());
        configure(alice, "r1", "muc#roomconfig_whois", "anyone");
        out.clear();
        List<XmlElement> daveGot = join(dave, "r1", "Dave");
        assertThat(named(daveGot, "presence")).allSatisfy(p -> assertThat(item(p).attribute("jid")).isNotNull());
        assertThat(statusCodes(selfPresence(daveGot))).contains(100);
    }
}
