package org.jivesoftware.openfire;

import java.util.concurrent.locks.Lock;
import org.jivesoftware.openfire.session.ClientSession;
import org.jivesoftware.openfire.session.LocalClientSession;
import org.xmpp.packet.JID;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.RoutingTable} (members mucscale uses). */
public interface RoutingTable {
    boolean hasClientRoute(JID jid);

    ClientSession getClientRoute(JID jid);

    void addClientRoute(JID route, LocalClientSession destination);

    Lock getClientRouteLock(JID jid);
}
