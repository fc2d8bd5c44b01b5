package org.mucscale.engine.muc;

import java.util.Map;

import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Where rooms are served, for a service that runs on several nodes (implemented by the cluster module; alone, every
 * room is served here and {@link #LOCAL} does nothing). Called on transport and room threads; every method must be
 * quick and must not block.
 */
public interface RoomPlacement {

    /** Whether stanzas for {@code room} are handled on this node now. */
    boolean servesHere(Jid room);

    /**
     * Takes a stanza for a room served by another node. {@code entryNode} is where it entered the cluster (null: this
     * node); {@code hops} how often it has been forwarded already.
     */
    void forward(Jid room, XmlElement stanza, String entryNode, int hops);

    /**
     * As {@link #forward(Jid, XmlElement, String, int)}, for a stanza forwarded on: {@code resent} and {@code origin}
     * (the forward it repeats or continues, see {@link Forwarded}) travel with it, so its next owner can still tell
     * whether a room handled it already (finding F3 of docs/cluster-protocol.md).
     */
    default void forward(Jid room, XmlElement stanza, String entryNode, int hops, boolean resent, Forwarded origin) {
        forward(room, stanza, entryNode, hops);
    }

    /**
     * Whether {@link #holdEntering} may hold anything now (a cheap check, called for every stanza that enters here).
     */
    default boolean enteringMayWait() {
        return false;
    }

    /**
     * Holds a stanza that entered the cluster at this node for {@code room}, when it must not overtake earlier stanzas
     * of the same sender still on their way through another node (a room that moves here from a leaving node, which
     * passes on what it still receives); {@code goOn} places it again once they are through (or the wait is given
     * up). False: not held, place it now. Called on transport threads; never blocks.
     */
    default boolean holdEntering(Jid room, Runnable goOn) {
        return false;
    }

    /** The sender of a stanza about to be handled here entered the cluster at {@code entryNode} (null: this node). */
    void sessionSeen(Jid sender, String entryNode);

    /** The node {@code user}'s session is on, as last seen (null: this node, or never seen). */
    String sessionNode(Jid user);

    /**
     * Whether a room that is not here may be on its way from another node (the view changed a moment ago and the room's
     * previous owner is still alive and hands it over, or died and the room is being taken over from the replicated
     * state). The room thread then holds the room's stanzas until {@link MucService#adopt}
     * or {@link MucService#stopAwaiting}, which the implementation promises to call. Called on a room thread.
     */
    default boolean arriving(Jid room) {
        return false;
    }

    /**
     * The public rooms of the whole service (room to display name) for disco#items, or null to list this node's own
     * rooms. Called on transport threads; may take a network round trip (disco#items of the service is rare).
     */
    default Map<Jid, String> publicRooms() {
        return null;
    }

    /**
     * A stanza that was sent again after its first owner left ({@link MucService#processForwarded(XmlElement, String,
     * int, boolean)}) turned out to be accepted already: the room's previous owner had replicated it. Counted only.
     */
    default void resentDuplicateSkipped(Jid room) {
    }

    /**
     * Sends again, to {@code recipients}, a groupchat {@code message} (as broadcast, with the room's stanza-id) that the
     * room's previous owner had accepted and may not have delivered before it left: each node writes it only to its
     * sessions if it had not delivered that stanza-id itself. Called on the room thread, just before
     * {@link #resentDuplicateSkipped}.
     */
    default void redeliver(Jid room, XmlElement message, java.util.List<Jid> recipients) {
    }

    RoomPlacement LOCAL = new RoomPlacement() {
        @Override
        public boolean servesHere(Jid room) {
            return true;
        }

        @Override
        public void forward(Jid room, XmlElement stanza, String entryNode, int hops) {
            throw new IllegalStateException("a single node serves every room");
        }

        @Override
        public void sessionSeen(Jid sender, String entryNode) {
        }

        @Override
        public String sessionNode(Jid user) {
            return null;
        }
    };
}
