package org.jivesoftware.openfire.session;

import org.xmpp.packet.JID;
import org.xmpp.packet.Packet;

/**
 * Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.session.Session} (members mucscale
 * uses; the real interface extends {@code RoutableChannelHandler} and has many more methods).
 */
public interface Session {
    JID getAddress();

    void process(Packet packet);

    boolean isDetached();
}
