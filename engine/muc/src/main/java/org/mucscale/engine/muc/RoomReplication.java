package org.mucscale.engine.muc;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.mucscale.engine.stanza.Jid;

/**
 * Keeps a copy of room state off this node, so another node can take a room over (implemented by the cluster module).
 * A room thread calls {@link #replicate} when it flushes, before it flushes that run's deliveries; the implementation
 * holds those deliveries back until the write is confirmed (whatever an occupant has received is replicated first),
 * without making the room thread wait. Nothing is tracked while {@link #active()} is false.
 */
public interface RoomReplication {

    /** Whether rooms should record their changes now (false on a single node). Read per change; must be cheap. */
    boolean active();

    /**
     * Starts writing the images of rooms that changed, forgetting removed rooms, and appending accepted messages to
     * their rooms' replicated tails; the future completes when the writes are confirmed (or failed, or timed out).
     * The calling room thread's deliveries up to its next flush are released only after that.
     */
    CompletableFuture<Void> replicate(List<RoomImage> changed, List<Jid> removed, List<TailRecord> tail);

    /** As {@link #replicate(List, List, List)}, with the rooms' changed {@link AcceptedMark}s, written with the tail. */
    default CompletableFuture<Void> replicate(List<RoomImage> changed, List<Jid> removed, List<TailRecord> tail,
                                              List<AcceptedMark> marks) {
        return replicate(changed, removed, tail);
    }

    /**
     * A future that completes once every write the calling room thread started before this call has been confirmed
     * or given up on (writes complete in the order they were started). Used to confirm forwarded stanzas to the
     * node they entered at only when what they changed is on another node.
     */
    default CompletableFuture<Void> barrier() {
        return CompletableFuture.completedFuture(null);
    }

    RoomReplication NONE = new RoomReplication() {
        @Override
        public boolean active() {
            return false;
        }

        @Override
        public CompletableFuture<Void> replicate(List<RoomImage> changed, List<Jid> removed, List<TailRecord> tail) {
            return CompletableFuture.completedFuture(null);
        }
    };
}
