package org.mucscale.openfire;

import org.jivesoftware.openfire.streammanagement.StreamManager;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.Xml;
import org.xmpp.packet.Packet;

/**
 * Counts a raw delivery with a session's stream manager as Openfire counts its own, with a packet whose copy (what the
 * stream manager keeps until the client acknowledges it) is a {@link RenderedPackets rendered copy}, built from the
 * shared rendered text only if Openfire ever resends or re-routes it. Where Openfire's stream manager is laid out as
 * 5.1's ({@link UnackedStanzas}), the {@code <r/>} a count makes due is returned, for the caller to write right after
 * the stanza in the same batch; otherwise {@code sentStanza} counts and Openfire writes its requests itself.
 *
 * <p>Owner: one thread (a room thread, or the caller of one inline delivery); its two handles are aimed anew for each
 * count, so counting allocates only the kept copy. The caller holds the stream manager's monitor. Openfire's two
 * properties are read at {@link #refresh} (once per hand-over), not per count.
 */
final class StanzaCounter {
    private final RenderedPackets packets;
    private final UnackedStanzas unacked;
    private final Packet message;
    private final Packet presence;
    private long frequency = UnackedStanzas.DEFAULT_FREQUENCY;
    private int maxUnacked = UnackedStanzas.DEFAULT_MAX_UNACKED;

    /** {@code unacked} null: count through Openfire's {@code sentStanza}. */
    StanzaCounter(RenderedPackets packets, UnackedStanzas unacked) {
        this.packets = packets;
        this.unacked = unacked;
        this.message = packets.newMessageHandle();
        this.presence = packets.newPresenceHandle();
    }

    /** Reads Openfire's request frequency and bound on kept copies again (an operator may change them live). */
    StanzaCounter refresh() {
        if (unacked != null) {
            frequency = UnackedStanzas.frequency();
            maxUnacked = UnackedStanzas.maxUnacked();
        }
        return this;
    }

    /**
     * The newest stanza {@code sm} holds unacknowledged, as an identity to compare ({@link EventLoopWriteBatches
     * .ManagedRuns}); null when there is none or this Openfire's queue cannot be read.
     */
    Object newest(StreamManager sm) {
        return unacked == null ? null : unacked.newest(sm);
    }

    /** Counts one stanza; returns the request to write right after it, or null (none due, or Openfire wrote it). */
    RenderedStanza count(StreamManager sm, RenderedStanza stanza, Jid recipient) {
        Packet handle = EventLoopWriteBatches.isPresence(stanza) ? presence : message;
        packets.aim(handle, stanza.prefix(), Xml.escapeAttribute(recipient.toString()), stanza.suffix());
        if (unacked == null) {
            sm.sentStanza(handle);
            return null;
        }
        return unacked.count(sm, handle, frequency, maxUnacked);
    }
}
