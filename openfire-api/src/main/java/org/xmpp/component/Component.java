package org.xmpp.component;

import org.xmpp.packet.JID;
import org.xmpp.packet.Packet;

/** Compile-only declaration of Tinder 2.1.0 {@code org.xmpp.component.Component}. */
public interface Component {
    String getName();

    String getDescription();

    void processPacket(Packet packet);

    void initialize(JID jid, ComponentManager componentManager) throws ComponentException;

    void start();

    void shutdown();
}
