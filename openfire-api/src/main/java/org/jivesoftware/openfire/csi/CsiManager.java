package org.jivesoftware.openfire.csi;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.csi.CsiManager} (members mucscale uses). */
public class CsiManager {

    private CsiManager() {
    }

    public boolean isActive() { return true; }

    public synchronized int getDelayQueueSize() { return 0; }
}
