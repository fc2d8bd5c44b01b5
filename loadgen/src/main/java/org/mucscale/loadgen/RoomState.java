package org.mucscale.loadgen;

import java.util.ArrayDeque;

/**
 * One room of the run: its JID, its planned members (slot = index), its creator (the first member to ask to join:
 * it creates the room and, where the server locks new rooms, submits the instant-room form) and whether the room is
 * ready for everyone else. If the creator drops out before the room is ready, the next waiting member takes over.
 *
 * <p>Concurrency: members and jid are fixed at construction. {@code ready}, {@code creator} and {@code waiting}
 * change on the join path only (processor threads, the run thread, the timer) under this object's monitor; never
 * on the message path. Join presences are sent outside the monitor.
 */
final class RoomState {
    final int index;
    final String jid;
    final Client[] members;
    /** Sharded by room owner (accounts.shardOwners): whether this process plays all of this room or none of it. */
    boolean wholeHere;
    private boolean ready;
    private Client creator;
    private final ArrayDeque<Client> waiting = new ArrayDeque<>();

    RoomState(int index, String jid, int size) {
        this.index = index;
        this.jid = jid;
        this.members = new Client[size];
    }

    synchronized boolean isCreator(Client c) {
        return creator == c;
    }

    /** Joins now when the room is ready, makes the client the creator when there is none, else queues it. */
    void requestJoin(Client c) {
        boolean now;
        synchronized (this) {
            if (ready) {
                now = true;
            } else if (creator == null) {
                creator = c;
                now = true;
            } else {
                waiting.add(c);
                now = false;
            }
        }
        if (now) {
            c.sendJoin(false);
        }
    }

    /** The creator's join (and instant-room form) succeeded: release every member waiting to join. */
    void markReady() {
        Client[] release;
        synchronized (this) {
            if (ready) {
                return;
            }
            ready = true;
            release = waiting.toArray(new Client[0]);
            waiting.clear();
        }
        for (Client c : release) {
            c.sendJoin(false);
        }
    }

    /** A member left the run; if it was creating the room, the next waiting member creates it instead. */
    void creatorGone(Client c) {
        Client next;
        synchronized (this) {
            waiting.remove(c);
            if (ready || creator != c) {
                return;
            }
            next = waiting.poll();
            creator = next;
        }
        if (next != null) {
            next.sendJoin(false);
        }
    }

    synchronized boolean isReady() {
        return ready;
    }

    int joinedCount() {
        int n = 0;
        for (Client c : members) {
            if (c != null && c.isJoined()) {
                n++;
            }
        }
        return n;
    }
}
