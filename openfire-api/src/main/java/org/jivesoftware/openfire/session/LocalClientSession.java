package org.jivesoftware.openfire.session;

import org.jivesoftware.openfire.csi.CsiManager;
import org.jivesoftware.openfire.privacy.PrivacyList;
import org.xmpp.packet.JID;
import org.xmpp.packet.Packet;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.session.LocalClientSession}. */
public class LocalClientSession extends LocalSession implements ClientSession {

    private LocalClientSession() {
    }

    @Override
    public JID getAddress() { return null; }

    @Override
    public void process(Packet packet) { }

    @Override
    public boolean isDetached() { return false; }

    public PrivacyList getActiveList() { return null; }

    public PrivacyList getDefaultList() { return null; }

    public CsiManager getCsiManager() { return null; }
}
