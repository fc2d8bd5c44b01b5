package org.mucscale.openfire;

import org.jivesoftware.openfire.streammanagement.StreamManager;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.Xml;
import org.xmpp.packet.Packet;

/**
 * Counts a raw delivery with a session's stream manager as Openfire counts its own: {@code sentStanza} with a packet
 * whose copy (what the stream manager keeps until the client acknowledges it) is a {@link RenderedPackets rendered
 * copy}, built from the shared rendered text only if Openfire ever resends or re-routes it.
 *
 * <p>Owner: one thread (a room thread, or the caller of one inline delivery); its two handles are aimed anew for each
 * count, so counting allocates only the kept copy. The caller holds the stream manager's monitor.
 */
final class StanzaCounter {
    private final RenderedPackets packets;
    private final Packet message;
    private final Packet presence;

    StanzaCounter(RenderedPackets packets) {
        this.packets = packets;
        this.message = packets.newMessageHandle();
        this.presence = packets.newPresenceHandle();
    }

    void count(StreamManager sm, RenderedStanza stanza, Jid recipient) {
        Packet handle = EventLoopWriteBatches.isPresence(stanza) ? presence : message;
        packets.aim(handle, stanza.prefix(), Xml.escapeAttribute(recipient.toString()), stanza.suffix());
        sm.sentStanza(handle);
    }
}
