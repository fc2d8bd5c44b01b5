package org.jivesoftware.openfire;

import org.jivesoftware.openfire.cluster.NodeID;
import org.jivesoftware.openfire.container.PluginManager;
import org.jivesoftware.openfire.muc.MultiUserChatManager;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.XMPPServer} (members mucscale uses). */
public class XMPPServer {

    public static XMPPServer getInstance() { return null; }

    public XMPPServerInfo getServerInfo() { return null; }

    public boolean isShuttingDown() { return false; }

    public RoutingTable getRoutingTable() { return null; }

    public PacketRouter getPacketRouter() { return null; }

    public PluginManager getPluginManager() { return null; }

    public MultiUserChatManager getMultiUserChatManager() { return null; }

    public boolean isStarted() { return false; }

    public NodeID getNodeID() { return null; }
}
