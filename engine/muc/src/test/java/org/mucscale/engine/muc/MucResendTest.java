package org.mucscale.engine.muc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * A room taken over from a departed owner skips a resent message its tail already holds (same sender, same stanza id),
 * and only then: the cluster's entry nodes resend what the departed owner never confirmed, which may include messages
 * it had accepted.
 */
class MucResendTest extends MucTestBase {

    private static XmlElement groupchat(Jid from, String room, String id, String body) {
        return XmlElement.builder("message").attribute("type", "groupchat").attribute("id", id)
                .attribute("from", from.toString()).attribute("to", room(room).toString()).textChild("body", body)
                .build();
    }

    private static List<String> bodies(List<XmlElement> stanzas) {
        return stanzas.stream().filter(s -> s.name().equals("message")).map(s -> s.childText("body")).toList();
    }

    /** The room as another node would have replicated it, with alice's message m1 in its tail. */
    private RoomImage takeOverFromPrevious(String room) {
        createInstant(alice, room, "alice");
        join(bob, room, "bob");
        RoomImage image = muc.onRoomThread(room(room), shard -> shard.rooms.get(room(room)).image());
        start(Map.of(), b -> { });
        XmlElement accepted = groupchat(alice, room, "m1", "first");
        TailRecord tail = new TailRecord(room(room), image.tailSeq() + 1, "sid-1", "alice", alice,
                clock.currentTimeMillis(), "first", null, MessageInspector.Action.PASS, accepted);
        muc.adopt(image, List.of(tail), true, null);
        muc.awaitIdle();
        return image;
    }

    @Test
    void resent_alreadyInTheTail_skipped_othersAccepted() {
        takeOverFromPrevious("r1");
        muc.processForwarded(groupchat(alice, "r1", "m1", "first"), "node-a", 1, true);
        muc.processForwarded(groupchat(alice, "r1", "m2", "second"), "node-a", 1, true);
        muc.awaitIdle();
        assertThat(bodies(out.take(bob))).containsExactly("second");
        assertThat(bodies(out.take(alice))).as("the sender's echo too").containsExactly("second");
    }

    @Test
    void sameIdNotResent_accepted_theCheckIsOnlyForResends() {
        takeOverFromPrevious("r2");
        muc.processForwarded(groupchat(alice, "r2", "m1", "again"), "node-a", 1, false);
        muc.awaitIdle();
        assertThat(bodies(out.take(bob))).containsExactly("again");
    }

    @Test
    void resent_sameIdFromAnotherSender_accepted() {
        takeOverFromPrevious("r3");
        muc.processForwarded(groupchat(bob, "r3", "m1", "bob's"), "node-a", 1, true);
        muc.awaitIdle();
        assertThat(bodies(out.take(alice))).containsExactly("bob's");
    }

    @Test
    void resent_toARoomNotTakenOver_accepted() {
        createInstant(alice, "r4", "alice");
        join(bob, "r4", "bob");
        muc.processForwarded(groupchat(alice, "r4", "m1", "hello"), "node-a", 1, true);
        muc.awaitIdle();
        assertThat(bodies(out.take(bob))).containsExactly("hello");
    }
}
