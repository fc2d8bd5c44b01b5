package org.jivesoftware.openfire.streammanagement;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.streammanagement.StreamManager} (members mucscale uses). */
public class StreamManager {

    public static final String NAMESPACE_V2 = "urn:xmpp:sm:2";
    public static final String NAMESPACE_V3 = "urn:xmpp:sm:3";

    /** Compile-only declaration of {@code StreamManager.UnackedPacket}. */
    public static class UnackedPacket {
        public final long x;
        public final org.xmpp.packet.Packet packet;

        public UnackedPacket(long x, org.xmpp.packet.Packet p) {
            this.x = x;
            this.packet = p;
        }
    }

    private StreamManager() {
    }

    public boolean isEnabled() { return false; }

    public void sentStanza(org.xmpp.packet.Packet packet) { }
}
