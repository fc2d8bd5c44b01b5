package org.xmpp.packet;

import java.io.Serializable;

/** Compile-only declaration of Tinder 2.1.0 {@code org.xmpp.packet.JID} (members mucscale uses). */
public class JID implements Comparable<JID>, Serializable {

    public JID(String jid) {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public JID(String node, String domain, String resource) {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public JID(String node, String domain, String resource, boolean skipStringprep) {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public String getNode() { return null; }
    public String getDomain() { return null; }
    public String getResource() { return null; }
    public String toBareJID() { return null; }
    public JID asBareJID() { return null; }
    public String toFullJID() { return null; }

    @Override
    public int compareTo(JID jid) { return 0; }
}
