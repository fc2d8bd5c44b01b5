package org.mucscale.engine.muc;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

class MucModerationTest extends MucTestBase {

    private void aliceBobCarol() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        join(carol, "r1", "Carol");
        out.clear();
    }

    @Test
    void kick_byModerator_307ToVictimAndOthers() {
        aliceBobCarol();
        XmlElement kick = XmlElement.builder("query", NS_ADMIN).child(XmlElement.builder("item")
                .attribute("nick", "Bob").attribute("role", "none").textChild("reason", "be nice").build()).build();
        assertThat(iq(alice, room("r1"), "set", kick).attribute("type")).isEqualTo("result");
        XmlElement toBob = only(out.take(bob));
        assertThat(toBob.attribute("type")).isEqualTo("unavailable");
        assertThat(statusCodes(toBob)).contains(110, 307);
        assertThat(item(toBob).childText("reason")).isEqualTo("be nice");
        assertThat(item(toBob).child("actor").attribute("nick")).isEqualTo("Alice");
        XmlElement toCarol = only(out.take(carol));
        assertThat(statusCodes(toCarol)).containsExactly(307);
        assertThat(item(toCarol).attribute("role")).isEqualTo("none");
        send(groupchat(bob, "r1", "still here?"));
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("not-acceptable");
    }

    @Test
    void kick_byParticipant_forbidden_ofOwner_notAllowed() {
        aliceBobCarol();
        assertThat(errorCondition(iq(bob, room("r1"), "set", admin("nick", "Carol", "role", "none"))))
                .isEqualTo("forbidden");
        iq(alice, room("r1"), "set", admin("nick", "Bob", "role", "moderator"));
        XmlElement err = iq(bob, room("r1"), "set", admin("nick", "Alice", "role", "none"));
        assertThat(errorCondition(err)).isEqualTo("not-allowed");
        assertThat(errorType(err)).isEqualTo("cancel");
        assertThat(errorCondition(iq(alice, room("r1"), "set", admin("nick", "Nobody", "role", "none"))))
                .isEqualTo("item-not-found");
    }

    @Test
    void ban_removesOccupantWith301_andListsOutcast() {
        aliceBobCarol();
        assertThat(iq(alice, room("r1"), "set", admin("jid", "bob@example.org", "affiliation", "outcast"))
                .attribute("type")).isEqualTo("result");
        XmlElement toBob = only(out.take(bob));
        assertThat(statusCodes(toBob)).contains(110, 301);
        assertThat(item(toBob).attribute("affiliation")).isEqualTo("outcast");
        assertThat(statusCodes(only(out.take(carol)))).containsExactly(301);
        XmlElement list = iq(alice, room("r1"), "get", admin("affiliation", "outcast"));
        XmlElement listed = list.child("query", NS_ADMIN).child("item");
        assertThat(listed.attribute("jid")).isEqualTo("bob@example.org");
        assertThat(errorCondition(iq(carol, room("r1"), "get", admin("affiliation", "outcast"))))
                .isEqualTo("forbidden");
    }

    @Test
    void voice_revokeAndGrant_inModeratedRoom() {
        createConfigured(alice, "r1", "Alice", "muc#roomconfig_moderatedroom", "1");
        join(bob, "r1", "Bob");
        out.clear();
        iq(alice, room("r1"), "set", admin("nick", "Bob", "role", "participant"));
        XmlElement toBob = only(out.take(bob));
        assertThat(item(toBob).attribute("role")).isEqualTo("participant");
        out.clear();
        send(groupchat(bob, "r1", "I can speak"));
        assertThat(only(out.take(alice)).childText("body")).isEqualTo("I can speak");
        out.clear();
        iq(alice, room("r1"), "set", admin("nick", "Bob", "role", "visitor"));
        assertThat(item(only(out.take(alice))).attribute("role")).isEqualTo("visitor");
        out.clear();
        send(groupchat(bob, "r1", "silenced"));
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("forbidden");
    }

    @Test
    void revokeVoiceFromOwner_byModerator_notAllowed() {
        createConfigured(alice, "r1", "Alice", "muc#roomconfig_moderatedroom", "1");
        join(bob, "r1", "Bob");
        iq(alice, room("r1"), "set", admin("nick", "Bob", "role", "moderator"));
        XmlElement err = iq(bob, room("r1"), "set", admin("nick", "Alice", "role", "visitor"));
        assertThat(errorCondition(err)).isEqualTo("not-allowed");
    }

    @Test
    void moderator_grantAndRevoke_onlyByAdmins_notFromHigherAffiliation() {
        aliceBobCarol();
        XmlElement err = iq(bob, room("r1"), "set", admin("nick", "Carol", "role", "moderator"));
        assertThat(errorCondition(err)).isEqualTo("forbidden");
        iq(alice, room("r1"), "set", admin("nick", "Bob", "role", "moderator"));
        assertThat(item(only(out.take(carol))).attribute("role")).isEqualTo("moderator");
        // grant admin to Carol; Bob (unaffiliated moderator) cannot revoke her moderator role
        iq(alice, room("r1"), "set", admin("jid", "carol@example.org", "affiliation", "admin"));
        XmlElement carolSelf = only(out.take(carol));
        assertThat(item(carolSelf).attribute("affiliation")).isEqualTo("admin");
        assertThat(item(carolSelf).attribute("role")).isEqualTo("moderator");
        assertThat(errorCondition(iq(bob, room("r1"), "set", admin("nick", "Carol", "role", "participant"))))
                .isEqualTo("not-allowed");
        // the owner revokes Bob's moderator role
        out.clear();
        iq(alice, room("r1"), "set", admin("nick", "Bob", "role", "participant"));
        assertThat(item(only(out.take(bob))).attribute("role")).isEqualTo("participant");
    }

    @Test
    void affiliations_adminGrantRevoke_roleFollows_andOwnerRules() {
        aliceBobCarol();
        iq(alice, room("r1"), "set", admin("jid", "bob@example.org", "affiliation", "admin"));
        assertThat(item(only(out.take(carol))).attribute("affiliation")).isEqualTo("admin");
        out.clear();
        // an admin cannot make owners or touch other admins
        assertThat(errorCondition(iq(bob, room("r1"), "set", admin("jid", "carol@example.org", "affiliation",
                "owner")))).isEqualTo("forbidden");
        iq(alice, room("r1"), "set", admin("jid", "bob@example.org", "affiliation", "none"));
        XmlElement bobSelf = only(out.take(bob));
        assertThat(item(bobSelf).attribute("affiliation")).isEqualTo("none");
        assertThat(item(bobSelf).attribute("role")).isEqualTo("participant");
        // participant cannot change affiliations
        assertThat(errorCondition(iq(bob, room("r1"), "set", admin("jid", "carol@example.org", "affiliation",
                "member")))).isEqualTo("forbidden");
        // the only owner cannot step down
        assertThat(errorCondition(iq(alice, room("r1"), "set", admin("jid", "alice@example.org", "affiliation",
                "member")))).isEqualTo("conflict");
        XmlElement owners = iq(alice, room("r1"), "get", admin("affiliation", "owner"));
        assertThat(owners.child("query", NS_ADMIN).elements("item")).hasSize(1);
        XmlElement bad = iq(alice, room("r1"), "set", admin("jid", "not a jid@@", "affiliation", "member"));
        assertThat(errorCondition(bad)).isEqualTo("jid-malformed");
        assertThat(errorCondition(iq(alice, room("r1"), "set", admin("jid", "x@example.org", "affiliation",
                "emperor")))).isEqualTo("bad-request");
    }

    @Test
    void membershipRevoked_inMembersOnlyRoom_removesWith321() {
        createConfigured(alice, "r1", "Alice", "muc#roomconfig_membersonly", "1");
        iq(alice, room("r1"), "set", admin("jid", "bob@example.org", "affiliation", "member"));
        join(bob, "r1", "Bob");
        out.clear();
        iq(alice, room("r1"), "set", admin("jid", "bob@example.org", "affiliation", "none"));
        XmlElement toBob = only(out.take(bob));
        assertThat(toBob.attribute("type")).isEqualTo("unavailable");
        assertThat(statusCodes(toBob)).contains(110, 321);
        XmlElement toAlice = only(out.take(alice));
        assertThat(statusCodes(toAlice)).containsExactly(321);
        assertThat(item(toAlice).attribute("affiliation")).isEqualTo("none");
    }

    @Test
    void membershipRevoked_inOpenRoom_broadcastsAffiliationNone() {
        aliceBobCarol();
        iq(alice, room("r1"), "set", admin("jid", "bob@example.org", "affiliation", "member"));
        out.clear();
        iq(alice, room("r1"), "set", admin("jid", "bob@example.org", "affiliation", "none"));
        XmlElement seen = only(out.take(carol));
        assertThat(seen.attribute("type")).isNull();
        assertThat(item(seen).attribute("affiliation")).isEqualTo("none");
    }

    @Test
    void roleList_forModerators() {
        aliceBobCarol();
        XmlElement list = iq(alice, room("r1"), "get", admin("role", "participant"));
        List<XmlElement> items = list.child("query", NS_ADMIN).elements("item");
        assertThat(items).extracting(i -> i.attribute("nick")).containsExactlyInAnyOrder("Bob", "Carol");
        assertThat(errorCondition(iq(bob, room("r1"), "get", admin("role", "moderator")))).isEqualTo("forbidden");
    }

    @Test
    void adminIq_malformed_badRequest() {
        aliceBobCarol();
        assertThat(errorCondition(iq(alice, room("r1"), "set", XmlElement.builder("query", NS_ADMIN).build())))
                .isEqualTo("bad-request");
        assertThat(errorCondition(iq(alice, room("r1"), "set", admin("nick", "Bob"))))
                .isEqualTo("bad-request");
        assertThat(errorCondition(iq(alice, room("r1"), "set", admin("role", "none"))))
                .isEqualTo("bad-request");
    }

    @Test
    void grantMember_byNick_works() {
        aliceBobCarol();
        iq(alice, room("r1"), "set", admin("nick", "Bob", "affiliation", "member"));
        XmlElement list = iq(alice, room("r1"), "get", admin("affiliation", "member"));
        assertThat(list.child("query", NS_ADMIN).child("item").attribute("jid")).isEqualTo("bob@example.org");
    }

    @Test
    void affiliation_jidCaseInsensitive_inLocalPart() {
        createConfigured(alice, "r1", "Alice", "muc#roomconfig_membersonly", "1");
        iq(alice, room("r1"), "set", admin("jid", "BOB@Example.org", "affiliation", "member"));
        XmlElement self = selfPresence(join(bob, "r1", "Bob"));
        assertThat(item(self).attribute("affiliation")).isEqualTo("member");
    }
}
