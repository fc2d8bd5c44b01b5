package org.mucscale.engine.muc;

import java.util.List;

import org.mucscale.engine.stanza.Jid;

/**
 * Keeps a copy of room state off this node, so another node can take a room over (implemented by the cluster module).
 * A room thread calls {@link #replicate} when it flushes, before it releases that run's deliveries: whatever an
 * occupant has received is replicated first. Nothing is tracked while {@link #active()} is false.
 */
public interface RoomReplication {

    /** Whether rooms should record their changes now (false on a single node). Read per change; must be cheap. */
    boolean active();

    /**
     * Writes the images of rooms that changed, forgets removed rooms, and appends accepted messages to their rooms'
     * replicated tails. Blocks the calling room thread until the writes are confirmed (or the replication timeout).
     */
    void replicate(List<RoomImage> changed, List<Jid> removed, List<TailRecord> tail);

    RoomReplication NONE = new RoomReplication() {
        @Override
        public boolean active() {
            return false;
        }

        @Override
        public void replicate(List<RoomImage> changed, List<Jid> removed, List<TailRecord> tail) {
        }
    };
}
