package org.jivesoftware.openfire;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.XMPPServerInfo} (members mucscale uses). */
public interface XMPPServerInfo {
    String getHostname();

    String getXMPPDomain();
}
