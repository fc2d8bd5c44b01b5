package org.jivesoftware.openfire;

import org.jivesoftware.openfire.session.ClientSession;
import org.xmpp.packet.JID;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.RoutingTable} (members mucscale uses). */
public interface RoutingTable {
    boolean hasClientRoute(JID jid);

    ClientSession getClientRoute(JID jid);
}
