package org.xmpp.component;

import org.xmpp.packet.Packet;

/** Compile-only declaration of Tinder 2.1.0 {@code org.xmpp.component.ComponentManager} (members mucscale uses). */
public interface ComponentManager {
    void addComponent(String subdomain, Component component) throws ComponentException;

    void removeComponent(String subdomain) throws ComponentException;

    void sendPacket(Component component, Packet packet) throws ComponentException;

    String getServerName();
}
