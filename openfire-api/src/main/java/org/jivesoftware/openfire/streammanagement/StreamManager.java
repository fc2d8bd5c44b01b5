package org.jivesoftware.openfire.streammanagement;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.streammanagement.StreamManager} (members mucscale uses). */
public class StreamManager {

    private StreamManager() {
    }

    public boolean isEnabled() { return false; }

    public void sentStanza(org.xmpp.packet.Packet packet) { }
}
