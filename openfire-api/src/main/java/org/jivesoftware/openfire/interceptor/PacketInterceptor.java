package org.jivesoftware.openfire.interceptor;

import org.jivesoftware.openfire.session.Session;
import org.xmpp.packet.Packet;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.interceptor.PacketInterceptor}. */
public interface PacketInterceptor {
    void interceptPacket(Packet packet, Session session, boolean incoming, boolean processed)
            throws PacketRejectedException;
}
