package org.mucscale.engine.muc;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.muc.MucContentInspectionTest.WordInspector;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 40, item 2: the places a player writes text that the filter did not read: a XEP-0172 {@code <nick>} in a
 * presence or message, a {@code <thread>}, and the address of a room being created. Each test's stanza got through
 * unread before, so each assertion on a refusal or a masked text fails without {@link ContentInspection}'s handling.
 */
class MucWrittenTextPlacesTest extends MucTestBase {
    final WordInspector inspector = new WordInspector();
    final List<String> filtered = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startWithInspector() {
        start(Map.of(), b -> b.inspector(inspector).listener(new MucListener() {
            @Override
            public void filtered(Jid room, MessageInspector.Action action) {
                filtered.add(action.name());
            }
        }));
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
    }

    private static XmlElement userNick(String text) {
        return XmlElement.builder("nick", ContentInspection.NS_NICK).text(text).build();
    }

    private XmlElement presenceWithNick(Jid from, String roomNick, String userNick) {
        return XmlElement.builder("presence").attribute("from", from.toString())
                .attribute("to", occ("r1", roomNick).toString()).child(userNick(userNick)).build();
    }

    private XmlElement.Builder groupchatFrom(Jid from) {
        return XmlElement.builder("message").attribute("from", from.toString())
                .attribute("to", room("r1").toString()).attribute("type", "groupchat").attribute("id", "g1");
    }

    @Test
    void presenceUserNick_isInspected_refusedOrMasked() {
        send(presenceWithNick(carol, "Carol", "buy spam"));
        XmlElement refused = only(out.take(carol));
        assertThat(errorCondition(refused)).isEqualTo("not-acceptable");
        assertThat(refused.child("error").childText("text")).startsWith("the nickname in the presence (XEP-0172)");
        assertThat(out.take(alice)).as("nobody saw it").isEmpty();

        send(presenceWithNick(dave, "Dave", "darn dave"));
        XmlElement seen = only(out.take(alice));
        assertThat(seen.child("nick", ContentInspection.NS_NICK).text()).isEqualTo("**** dave");
    }

    @Test
    void messageUserNick_isInspected_masked() {
        send(groupchatFrom(bob).textChild("body", "hello").child(userNick("darn bob")).build());
        XmlElement got = only(out.take(alice));
        assertThat(got.childText("body")).isEqualTo("hello");
        assertThat(got.child("nick", ContentInspection.NS_NICK).text()).isEqualTo("**** bob");
    }

    @Test
    void thread_isInspected_rejectedOrMasked() {
        send(groupchatFrom(bob).textChild("body", "hello").textChild("thread", "buy spam").build());
        XmlElement err = only(out.take(bob));
        assertThat(errorCondition(err)).isEqualTo("not-acceptable");
        assertThat(out.take(alice)).isEmpty();

        send(groupchatFrom(bob).textChild("body", "hello").child(XmlElement.builder("thread")
                .attribute("parent", "p1").text("darn thread").build()).build());
        XmlElement got = only(out.take(alice));
        assertThat(got.childText("thread")).isEqualTo("**** thread");
        assertThat(got.child("thread").attribute("parent")).isEqualTo("p1");
    }

    @Test
    void threadOnAChatState_isNotContent_broadcastUninspected() {
        int before = inspector.calls.get();
        send(groupchatFrom(bob).textChild("thread", "t-1")
                .child(XmlElement.builder("composing", "http://jabber.org/protocol/chatstates").build()).build());
        assertThat(only(out.take(alice)).childText("thread")).isEqualTo("t-1");
        assertThat(inspector.calls.get()).isEqualTo(before);
    }

    @Test
    void roomAddress_refusedAtCreation_withClearText_andNoRoomLeft() {
        for (String address : new String[]{"spam-r-1", "darn-room", "shadow"}) { // REJECT, MASK, DROP
            List<XmlElement> got = join(carol, address, "Carol");
            XmlElement err = only(got);
            assertThat(errorCondition(err)).as(address).isEqualTo("not-acceptable");
            assertThat(err.child("error").childText("text")).isEqualTo("the room address '" + address
                    + "' contains words that are not allowed on this service; choose another address");
            XmlElement info = iq(dave, room(address), "get", XmlElement.builder("query",
                    "http://jabber.org/protocol/disco#info").build());
            assertThat(errorCondition(info)).as("no room " + address).isEqualTo("item-not-found");
        }
        assertThat(filtered).containsExactly("REJECT", "MASK", "DROP");
        assertThat(statusCodes(selfPresence(join(carol, "hmm-room", "Carol")))).as("FLAG creates it, counted")
                .contains(201);
        assertThat(statusCodes(selfPresence(join(carol, "fine", "Carol")))).contains(201);
    }

    @Test
    void existingRoomAddress_isNotInspectedAgain_atEveryJoin() {
        int before = inspector.calls.get();
        join(carol, "r1", "Carol");
        assertThat(inspector.calls.get() - before).as("the nickname only").isEqualTo(1);
    }
}
