package org.mucscale.engine.muc;

import org.mucscale.engine.stanza.Jid;

/**
 * Metrics port. Called on room threads (and on transport threads for {@link #commandQueueFull} and
 * {@link #stanzaRefused}), so implementations must be cheap and thread-safe. All methods default to no-ops.
 */
public interface MucListener {

    /** A groupchat message was broadcast: arrival at {@link MucService#process}, and after the last delivery. */
    default void messageDelivered(Jid room, long arrivalNs, long deliveredNs, int fanOut) {
    }

    /** A message was refused by flood control. */
    default void floodRejected(Jid room, FloodLimit limit) {
    }

    /**
     * A refused presence or message got no error reply: its sender is over {@code user-errors-per-minute}. {@code room}
     * is null when the service refused the stanza before any room (bad address, too large, overloaded).
     */
    default void errorWithheld(Jid room) {
    }

    /** The content filter returned a non-PASS action. */
    default void filtered(Jid room, MessageInspector.Action action) {
    }

    /** The log sink refused a message. */
    default void logRefused(Jid room) {
    }

    /** A room thread's queue was full; the sender got resource-constraint. */
    default void commandQueueFull(int shard) {
    }

    /** A stanza could not be handled (malformed, no sender, internal error); {@code reason} is a constant. */
    default void stanzaRefused(String reason) {
    }

    /** An occupant joined; {@code arrivalNs} is when its join presence reached {@link MucService#process}. */
    default void occupantJoined(Jid room, long arrivalNs) {
    }

    default void occupantLeft(Jid room) {
    }

    /** Totals after each change (eventually consistent across shards). */
    default void population(int rooms, int occupants) {
    }

    /** The database has not confirmed a persistent room's write within {@code mucscale.muc.room-store-timeout}. */
    default void roomStoreOverdue(Jid room) {
    }

    /** A persistent room's write failed (it is retried unless its data was refused). */
    default void roomStoreFailed(Jid room) {
    }

    /** A moderator retracted a message (XEP-0425); counted once, when the occupants were told. */
    default void messageModerated(Jid room) {
    }

    /** Which flood limit was hit. */
    enum FloodLimit {
        OCCUPANT_RATE, ROOM_RATE, MESSAGE_SIZE, MESSAGE_LINES, STANZA_SIZE,
        /** One user's joins (and nickname changes) in one room. */
        OCCUPANT_JOIN_RATE,
        /** One user's nickname changes in one room (the same budget as joins). */
        NICK_CHANGE_RATE,
        /** All users' joins in one room. */
        ROOM_JOIN_RATE,
        /** One user's joins across rooms, room creations included. */
        USER_JOIN_RATE,
        /** One user's invitations across rooms. */
        USER_INVITE_RATE,
        /** All invitations relayed by one room. */
        ROOM_INVITE_RATE,
        /** A decline with no pending invitation behind it (would reflect a message from the room to anyone). */
        UNSOLICITED_DECLINE,
        /** A user already created {@code max-rooms-per-user} rooms that still exist. */
        ROOMS_PER_USER,
        /** The node holds {@code max-rooms} rooms. */
        ROOMS_PER_SERVICE
    }

    MucListener NONE = new MucListener() {
    };
}
