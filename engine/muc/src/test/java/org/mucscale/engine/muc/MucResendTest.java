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
 * it had accepted. The first resend of such a message hands it, as the departed owner broadcast it, to the placement
 * for re-delivery to the current occupants (the cluster writes it only where it was not delivered).
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

    /** What the service handed to the placement for re-delivery: room, message body, recipients. */
    private final List<String> redelivered = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final RoomPlacement recording = new RoomPlacement() {
        @Override
        public boolean servesHere(Jid room) {
            return true;
        }

        @Override
        public void forward(Jid room, XmlElement stanza, String entryNode, int hops) {
            throw new AssertionError("one node");
        }

        @Override
        public void sessionSeen(Jid sender, String entryNode) {
        }

        @Override
        public String sessionNode(Jid user) {
            return null;
        }

        @Override
        public void redeliver(Jid room, XmlElement message, List<Jid> recipients) {
            redelivered.add(room.local() + " " + message.childText("body") + " "
                    + message.child("stanza-id", Stanzas.NS_SID).attribute("id") + " " + recipients);
        }
    };

    /** The room as another node would have replicated it, with alice's message m1 in its tail. */
    private RoomImage takeOverFromPrevious(String room) {
        createInstant(alice, room, "alice");
        join(bob, room, "bob");
        RoomImage image = muc.onRoomThread(room(room), shard -> shard.rooms.get(room(room)).replica.image());
        start(Map.of(), b -> b.cluster(recording, RoomReplication.NONE));
        XmlElement accepted = groupchat(alice, room, "m1", "first").toBuilder()
                .child(XmlElement.builder("stanza-id", Stanzas.NS_SID).attribute("id", "sid-1")
                        .attribute("by", room(room).toString()).build()).build();
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
        assertThat(redelivered).containsExactly("r1 first sid-1 [" + alice + ", " + bob + "]");
    }

    @Test
    void resentTwice_redeliveredOnce_acceptedHereMeanwhile_neverRedelivered() {
        takeOverFromPrevious("r5");
        muc.processForwarded(groupchat(alice, "r5", "m1", "first"), "node-a", 1, true);
        muc.processForwarded(groupchat(alice, "r5", "m1", "first"), "node-b", 1, true);
        muc.processForwarded(groupchat(alice, "r5", "m2", "second"), "node-a", 1, true);
        muc.processForwarded(groupchat(alice, "r5", "m2", "second"), "node-b", 1, true);
        muc.awaitIdle();
        assertThat(redelivered).as("m1 once; m2 was accepted here, so delivered here")
                .containsExactly("r5 first sid-1 [" + alice + ", " + bob + "]");
        assertThat(bodies(out.take(bob))).containsExactly("second");
    }

    @Test
    void sameIdNotResent_accepted_theCheckIsOnlyForResends() {
        takeOverFromPrevious("r2");
        muc.processForwarded(groupchat(alice, "r2", "m1", "again"), "node-a", 1, false);
        muc.awaitIdle();
        assertThat(bodies(out.take(bob))).containsExactly("again");
        assertThat(redelivered).isEmpty();
    }

    @Test
    void resent_sameIdFromAnotherSender_accepted() {
        takeOverFromPrevious("r3");
        muc.processForwarded(groupchat(bob, "r3", "m1", "bob's"), "node-a", 1, true);
        muc.awaitIdle();
        assertThat(bodies(out.take(alice))).containsExactly("bob's");
    }

    /** The room taken over with {@code mark}: the previous owner handled node-a's forwards up to seq 40 of run 7. */
    private void takeOverWithMark(String room, long markSeq) {
        createInstant(alice, room, "alice");
        join(bob, room, "bob");
        RoomImage image = muc.onRoomThread(room(room), shard -> shard.rooms.get(room(room)).replica.image());
        start(Map.of(), b -> b.cluster(recording, RoomReplication.NONE));
        AcceptedMark mark = new AcceptedMark(room(room), image.tailSeq(),
                List.of(new Forwarded("node-o", "node-a", 7, markSeq)));
        muc.adopt(image, List.of(), mark, true, null);
        muc.awaitIdle();
    }

    @Test
    void resent_atOrBelowTheAdoptedMark_skippedThoughNotInTheTail_aboveAccepted() {
        takeOverWithMark("r6", 40);
        // the tail is empty: only the mark says the previous owner handled 39 and 40 (finding F4)
        muc.processForwarded(groupchat(alice, "r6", "m39", "thirty-nine"), "node-a", 1, true,
                new Forwarded("node-n", "node-a", 7, 3), new Forwarded("node-o", "node-a", 7, 39));
        muc.processForwarded(groupchat(alice, "r6", "m40", "forty"), "node-a", 1, true,
                new Forwarded("node-n", "node-a", 7, 4), new Forwarded("node-o", "node-a", 7, 40));
        muc.processForwarded(groupchat(alice, "r6", "m41", "forty-one"), "node-a", 1, true,
                new Forwarded("node-n", "node-a", 7, 5), new Forwarded("node-o", "node-a", 7, 41));
        // another run of the sender, or another owner's link: the mark says nothing about them
        muc.processForwarded(groupchat(alice, "r6", "m2", "other run"), "node-a", 1, true,
                new Forwarded("node-n", "node-a", 8, 6), new Forwarded("node-o", "node-a", 8, 2));
        muc.processForwarded(groupchat(alice, "r6", "m3", "other owner"), "node-a", 1, true,
                new Forwarded("node-n", "node-a", 7, 7), new Forwarded("node-x", "node-a", 7, 3));
        muc.awaitIdle();
        assertThat(bodies(out.take(bob))).containsExactly("forty-one", "other run", "other owner");
        assertThat(redelivered).as("not in the tail: nothing to re-deliver from").isEmpty();
    }

    @Test
    void resentTwice_secondCoveredByTheMarkTheFirstMoved() {
        takeOverWithMark("r7", 40);
        Forwarded original = new Forwarded("node-o", "node-a", 7, 41);
        muc.processForwarded(groupchat(alice, "r7", "m41", "forty-one"), "node-a", 1, true,
                new Forwarded("node-n", "node-a", 7, 1), original);
        muc.processForwarded(groupchat(alice, "r7", "m41", "forty-one"), "node-b", 1, true,
                new Forwarded("node-n", "node-b", 3, 1), original);
        muc.awaitIdle();
        assertThat(bodies(out.take(bob))).containsExactly("forty-one");
    }

    @Test
    void forwardedOnAfterItsRoomMoved_carriesResentAndWhatItContinues() {
        List<String> onward = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean here = new java.util.concurrent.atomic.AtomicBoolean(false);
        start(Map.of(), b -> b.cluster(new RoomPlacement() {
            @Override
            public boolean servesHere(Jid room) {
                return here.get();
            }

            @Override
            public void forward(Jid room, XmlElement stanza, String entryNode, int hops) {
                throw new AssertionError("the flag and the origin must go with it (F3)");
            }

            @Override
            public void forward(Jid room, XmlElement stanza, String entryNode, int hops, boolean resent,
                                Forwarded origin) {
                onward.add(stanza.attribute("id") + " " + hops + " " + resent + " " + origin);
            }

            @Override
            public void sessionSeen(Jid sender, String entryNode) {
            }

            @Override
            public String sessionNode(Jid user) {
                return null;
            }
        }, RoomReplication.NONE));
        Forwarded link = new Forwarded("node-x", "node-a", 7, 12);
        Forwarded origin = new Forwarded("node-o", "node-a", 7, 41);
        muc.processForwarded(groupchat(alice, "r8", "m1", "resent"), "node-a", 1, true, link, origin);
        muc.processForwarded(groupchat(alice, "r8", "m2", "straggler"), "node-a", 1, false, link, null);
        muc.awaitIdle();
        assertThat(onward).containsExactly("m1 2 true " + origin, "m2 2 false " + link);
    }

    @Test
    void resent_toARoomNotTakenOver_accepted() {
        createInstant(alice, "r4", "alice");
        join(bob, "r4", "bob");
        muc.processForwarded(groupchat(alice, "r4", "m1", "hello"), "node-a", 1, true);
        muc.awaitIdle();
        assertThat(bodies(out.take(bob))).containsExactly("hello");
        assertThat(redelivered).isEmpty();
    }
}
