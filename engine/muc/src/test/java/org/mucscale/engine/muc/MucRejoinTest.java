package org.mucscale.engine.muc;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A join presence from a full JID that already is an occupant: what a new session sends after it took the full JID
 * over from the session that joined (a resource conflict; Openfire sends no unavailable presence for the replaced
 * session once the new one owns the address). The order the room sees is exactly the race of RealOpenfireIT's
 * resource-conflict test, made deterministic: the old session's join, no leave, then the new session's join.
 */
class MucRejoinTest extends MucTestBase {
    private final Jid daveAgain = Jid.parse("dave@example.org/tab");

    /** alice's room with a subject and one message; dave in it; everything they got is drained. */
    private void roomWithDave() {
        createInstant(alice, "r1", "Alice");
        send(XmlElement.builder("message").attribute("from", alice.toString()).attribute("to", room("r1").toString())
                .attribute("type", "groupchat").textChild("subject", "the topic").build());
        send(groupchat(alice, "r1", "before"));
        join(dave, "r1", "Dave");
        out.clear();
    }

    @Test
    void joinFromAnOccupantsFullJid_getsTheWholeJoinAnswerAgain() {
        roomWithDave();
        List<XmlElement> got = join(daveAgain, "r1", "Dave");
        List<XmlElement> presences = named(got, "presence");
        assertThat(presences).extracting(p -> p.attribute("from"))
                .as("who is in the room, then itself").containsExactly(occ("r1", "Alice").toString(),
                        occ("r1", "Dave").toString());
        assertThat(statusCodes(presences.get(1))).contains(110);
        List<XmlElement> messages = named(got, "message");
        assertThat(messages).extracting(m -> m.childText("body")).as("history, then the subject")
                .containsExactly("before", null);
        assertThat(messages.get(1).childText("subject")).isEqualTo("the topic");
        List<XmlElement> aliceGot = out.take(alice);
        assertThat(aliceGot).as("for the others a presence update, no new occupant").hasSize(1);
        assertThat(aliceGot.get(0).attribute("type")).isNull();
        assertThat(statusCodes(aliceGot.get(0))).doesNotContain(110);

        send(groupchat(alice, "r1", "after"));
        assertThat(only(out.take(daveAgain)).childText("body")).isEqualTo("after");
        out.clear();
        leave(daveAgain, "r1", "Dave");
        assertThat(only(out.take(alice)).attribute("type")).as("one leave ends the occupancy").isEqualTo("unavailable");
    }

    @Test
    void rejoinAsksForNoHistory_getsNone() {
        roomWithDave();
        List<XmlElement> got = join(daveAgain, "r1", "Dave",
                XmlElement.builder("history").attribute("maxstanzas", "0").build());
        assertThat(named(got, "message")).extracting(m -> m.childText("subject")).containsExactly("the topic");
    }

    @Test
    void rejoinOverThePresenceRate_isStillAnswered_butNotBroadcast() {
        start(Map.of("mucscale.muc.occupant-burst", "1", "mucscale.muc.occupant-messages-per-second", "1"), b -> { });
        roomWithDave();
        send(XmlElement.builder("presence").attribute("from", dave.toString())
                .attribute("to", occ("r1", "Dave").toString()).textChild("show", "away").build());
        out.clear(); // that update took the only token
        List<XmlElement> got = join(daveAgain, "r1", "Dave");
        assertThat(statusCodes(selfPresence(got))).contains(110);
        assertThat(named(got, "presence")).hasSize(2);
        assertThat(out.take(alice)).as("over the rate: the update is not broadcast").isEmpty();
    }

    @Test
    void presenceWithoutTheMucElement_staysAPresenceUpdate() {
        roomWithDave();
        send(XmlElement.builder("presence").attribute("from", dave.toString())
                .attribute("to", occ("r1", "Dave").toString()).textChild("show", "dnd").build());
        XmlElement self = only(out.take(dave));
        assertThat(statusCodes(self)).containsExactly(110);
        assertThat(self.childText("show")).isEqualTo("dnd");
    }

    @Test
    void rejoinsBeyondTheJoinBudget_getOnlyASelfPresence() {
        start(Map.of("mucscale.muc.occupant-join-burst", "2", "mucscale.muc.occupant-joins-per-minute", "1"), b -> { });
        roomWithDave(); // dave's join spends the join budget, not the rejoins'
        for (int i = 0; i < 2; i++) {
            assertThat(named(join(daveAgain, "r1", "Dave"), "presence")).as("rejoin %d within the burst: the full answer", i)
                    .hasSize(2);
            out.clear();
        }
        for (int i = 0; i < 5; i++) {
            List<XmlElement> got = join(daveAgain, "r1", "Dave");
            assertThat(named(got, "presence")).as("rejoin %d over the budget: a presence update, no room list", i)
                    .hasSize(1);
            assertThat(named(got, "message")).as("no history or subject again").isEmpty();
            out.clear();
        }
    }
}
