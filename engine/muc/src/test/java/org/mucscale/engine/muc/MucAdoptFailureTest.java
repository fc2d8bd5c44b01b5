package org.mucscale.engine.muc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * A room whose stanzas wait for it to arrive from another node ({@link RoomPlacement#arriving}) and whose restore then
 * fails on its room thread: the stanzas that waited still run, as for a room that is not here, instead of waiting for
 * good (nothing else would ever let them go).
 */
class MucAdoptFailureTest extends MucTestBase {

    /** Captures what the room threads replicate. */
    private static final class Capture implements RoomReplication {
        final List<RoomImage> written = new CopyOnWriteArrayList<>();

        @Override
        public boolean active() {
            return true;
        }

        @Override
        public CompletableFuture<Void> replicate(List<RoomImage> changed, List<Jid> removed, List<TailRecord> tail) {
            written.addAll(changed);
            return CompletableFuture.completedFuture(null);
        }
    }

    /** Serves every room here; says r1 is on its way; fails while a restored room records its occupants' nodes. */
    private static final class Arriving implements RoomPlacement {
        volatile boolean r1Arriving;
        volatile boolean failRestore;

        @Override
        public boolean servesHere(Jid room) {
            return true;
        }

        @Override
        public void forward(Jid room, XmlElement stanza, String entryNode, int hops) {
            throw new AssertionError("nothing is forwarded here");
        }

        @Override
        public void sessionSeen(Jid sender, String entryNode) {
            if (failRestore) {
                throw new IllegalStateException("injected: restoring the room failed");
            }
        }

        @Override
        public String sessionNode(Jid user) {
            return null;
        }

        @Override
        public boolean arriving(Jid room) {
            return r1Arriving && room.equals(room("r1"));
        }
    }

    @Test
    void adopt_restoreFailsOnTheRoomThread_theStanzasThatWaitedStillRun() throws Exception {
        Capture capture = new Capture();
        Arriving placement = new Arriving();
        start(Map.of(), b -> b.cluster(placement, capture));
        createInstant(alice, "r1", "alice");
        join(bob, "r1", "bob");
        muc.awaitIdle();
        capture.written.clear();
        muc.replicateAll(); // the room's whole image, as a node copies it before others may take it over
        RoomImage image = capture.written.get(capture.written.size() - 1);
        assertThat(image.occupants()).hasSize(2);
        muc.release(List.of(room("r1"))).get(10, TimeUnit.SECONDS); // the room left for another node
        out.take(bob);

        placement.r1Arriving = true;
        send(groupchat(bob, "r1", "while it moves back"));
        assertThat(out.take(bob)).as("held, not answered yet").isEmpty();

        placement.r1Arriving = false; // its hand-off came
        placement.failRestore = true;
        int ran = muc.adopt(image, List.of(), false, null).get(10, TimeUnit.SECONDS);
        muc.awaitIdle();

        assertThat(ran).as("stanzas that waited and ran").isEqualTo(1);
        // the room could not be restored, so the message meets no room: an error, not silence
        assertThat(out.take(bob)).singleElement().satisfies(m -> {
            assertThat(m.attribute("type")).isEqualTo("error");
            assertThat(m.toXml()).contains("item-not-found");
        });
    }
}
