package org.mucscale.engine.muc;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/** Several sessions of one user under one nickname (XEP-0045 multi-session nicknames). */
class MucMultiSessionTest extends MucTestBase {
    final Jid bobLaptop = Jid.parse("bob@example.org/laptop");

    /** Alice owns r1; Bob is in it from his phone, then from his laptop under the same nickname. */
    private List<XmlElement> twoSessions(String... config) {
        if (config.length == 0) {
            createInstant(alice, "r1", "Alice");
        } else {
            createConfigured(alice, "r1", "Alice", config);
        }
        join(bob, "r1", "Bob");
        out.clear();
        return join(bobLaptop, "r1", "Bob");
    }

    @Test
    void secondSession_joinsWithoutConflict_andIsNotBroadcastAsANewOccupant() {
        List<XmlElement> laptopGot = twoSessions();
        List<XmlElement> presences = named(laptopGot, "presence");
        assertThat(presences).extracting(p -> p.attribute("from"))
                .containsExactly(occ("r1", "Alice").toString(), occ("r1", "Bob").toString());
        assertThat(statusCodes(presences.get(1))).contains(110);
        assertThat(out.peek(alice)).as("the others see no new occupant").isEmpty();
        assertThat(out.peek(bob)).isEmpty();
        XmlElement items = iq(carol, room("r1"), "get",
                XmlElement.builder("query", "http://jabber.org/protocol/disco#items").build());
        assertThat(items.child("query", "http://jabber.org/protocol/disco#items").elements("item")).hasSize(2);
        XmlElement info = iq(carol, room("r1"), "get",
                XmlElement.builder("query", "http://jabber.org/protocol/disco#info").build());
        XmlElement count = info.child("query", "http://jabber.org/protocol/disco#info").child("x", NS_DATA)
                .elements("field").stream().filter(f -> "muc#roominfo_occupants".equals(f.attribute("var")))
                .findFirst().orElseThrow();
        assertThat(count.childText("value")).as("nicknames, not sessions").isEqualTo("2");
    }

    @Test
    void everySessionReceivesTheRoomsTraffic_andPrivateMessages() {
        twoSessions();
        send(groupchat(alice, "r1", "hello Bob"));
        assertThat(only(out.take(bob)).childText("body")).isEqualTo("hello Bob");
        assertThat(only(out.take(bobLaptop)).childText("body")).isEqualTo("hello Bob");
        out.clear();
        send(groupchat(bobLaptop, "r1", "from the laptop"));
        assertThat(only(out.take(alice)).attribute("from")).isEqualTo(occ("r1", "Bob").toString());
        assertThat(only(out.take(bob)).childText("body")).isEqualTo("from the laptop");
        assertThat(only(out.take(bobLaptop)).childText("body")).isEqualTo("from the laptop");
        send(message(alice, occ("r1", "Bob"), "chat", "psst"));
        assertThat(only(out.take(bob)).childText("body")).isEqualTo("psst");
        assertThat(only(out.take(bobLaptop)).childText("body")).isEqualTo("psst");
    }

    @Test
    void oneSessionLeaving_keepsTheOther_theLastOneLeavesTheRoom() {
        twoSessions();
        leave(bobLaptop, "r1", "Bob");
        XmlElement self = only(out.take(bobLaptop));
        assertThat(self.attribute("type")).isEqualTo("unavailable");
        assertThat(statusCodes(self)).contains(110);
        assertThat(out.peek(alice)).as("Bob is still there").isEmpty();
        assertThat(out.peek(bob)).isEmpty();
        send(groupchat(alice, "r1", "still there?"));
        assertThat(only(out.take(bob)).childText("body")).isEqualTo("still there?");
        assertThat(out.take(bobLaptop)).isEmpty();
        out.clear();
        leave(bob, "r1", "Bob");
        XmlElement gone = only(out.take(alice));
        assertThat(gone.attribute("type")).isEqualTo("unavailable");
        assertThat(gone.attribute("from")).isEqualTo(occ("r1", "Bob").toString());
        assertThat(muc.occupantCount()).isEqualTo(1);
    }

    @Test
    void firstSessionLeaving_keepsTheSecond() {
        twoSessions();
        leave(bob, "r1", "Bob");
        assertThat(out.peek(alice)).isEmpty();
        out.clear();
        send(groupchat(alice, "r1", "hi"));
        assertThat(only(out.take(bobLaptop)).childText("body")).isEqualTo("hi");
        out.clear();
        send(groupchat(bobLaptop, "r1", "laptop still in"));
        assertThat(only(out.take(alice)).childText("body")).isEqualTo("laptop still in");
    }

    @Test
    void anotherUser_stillGetsConflict() {
        twoSessions();
        assertThat(errorCondition(only(join(carol, "r1", "Bob")))).isEqualTo("conflict");
        assertThat(errorCondition(only(join(carol, "r1", "bob")))).isEqualTo("conflict");
    }

    @Test
    void kick_removesEverySession_othersSeeItOnce() {
        twoSessions();
        join(carol, "r1", "Carol");
        out.clear();
        assertThat(iq(alice, room("r1"), "set", admin("nick", "Bob", "role", "none")).attribute("type"))
                .isEqualTo("result");
        assertThat(statusCodes(only(out.take(bob)))).contains(110, 307);
        assertThat(statusCodes(only(out.take(bobLaptop)))).contains(110, 307);
        assertThat(statusCodes(only(out.take(carol)))).containsExactly(307);
        assertThat(muc.occupantCount()).isEqualTo(2);
    }

    @Test
    void roleChange_appliesToEverySession() {
        twoSessions("muc#roomconfig_moderatedroom", "1");
        out.clear();
        iq(alice, room("r1"), "set", admin("nick", "Bob", "role", "participant"));
        out.clear();
        send(groupchat(bobLaptop, "r1", "voice on the laptop"));
        assertThat(only(out.take(alice)).childText("body")).isEqualTo("voice on the laptop");
        send(groupchat(bob, "r1", "and on the phone"));
        assertThat(only(out.take(alice)).childText("body")).isEqualTo("and on the phone");
        // a session that joins later gets the nickname's role, not the default
        Jid bobTablet = Jid.parse("bob@example.org/tablet");
        assertThat(item(selfPresence(join(bobTablet, "r1", "Bob"))).attribute("role")).isEqualTo("participant");
    }

    @Test
    void roomTakenOverByAnotherNode_keepsBothSessionsAndTheReservation() {
        twoSessions("x-muc#roomconfig_registration", "1");
        iq(bob, room("r1"), "set", MucRegistrationTest.registerForm("Bob"));
        RoomImage image = muc.onRoomThread(room("r1"), shard -> shard.rooms.get(room("r1")).replica.image());
        start(Map.of(), b -> { });
        muc.adopt(image, List.of(), false, null);
        muc.awaitIdle();
        send(groupchat(alice, "r1", "after the takeover"));
        assertThat(only(out.take(bob)).childText("body")).isEqualTo("after the takeover");
        assertThat(only(out.take(bobLaptop)).childText("body")).isEqualTo("after the takeover");
        out.clear();
        leave(bobLaptop, "r1", "Bob");
        assertThat(out.peek(alice)).as("Bob is still there from his phone").isEmpty();
        assertThat(errorCondition(only(join(carol, "r1", "Bob")))).isEqualTo("conflict");
        XmlElement nick = iq(bob, room("r1"), "get", XmlElement.builder("query",
                "http://jabber.org/protocol/disco#info").attribute("node", "x-roomuser-item").build());
        assertThat(nick.child("query", "http://jabber.org/protocol/disco#info").child("identity").attribute("name"))
                .isEqualTo("Bob");
    }

    @Test
    void nickChange_byOneOfSeveralSessions_refused() {
        twoSessions();
        send(XmlElement.builder("presence").attribute("from", bobLaptop.toString())
                .attribute("to", occ("r1", "Robert").toString()).build());
        assertThat(errorCondition(only(out.take(bobLaptop)))).isEqualTo("not-acceptable");
        assertThat(out.peek(alice)).isEmpty();
    }
}
