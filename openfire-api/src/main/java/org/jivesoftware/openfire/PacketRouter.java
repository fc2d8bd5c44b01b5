package org.jivesoftware.openfire;

import org.xmpp.packet.IQ;
import org.xmpp.packet.Message;
import org.xmpp.packet.Packet;
import org.xmpp.packet.Presence;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.PacketRouter}. */
public interface PacketRouter {
    void route(Packet packet);

    void route(IQ packet);

    void route(Message packet);

    void route(Presence packet);
}
