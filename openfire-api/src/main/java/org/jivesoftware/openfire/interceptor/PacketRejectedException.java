package org.jivesoftware.openfire.interceptor;

import org.xmpp.packet.PacketError;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.interceptor.PacketRejectedException}. */
public class PacketRejectedException extends Exception {
    private static final long serialVersionUID = 1L;

    public PacketRejectedException() {
    }

    public PacketRejectedException(String msg) {
        super(msg);
    }

    public PacketRejectedException(Throwable nestedThrowable) {
        super(nestedThrowable);
    }

    public PacketRejectedException(String msg, Throwable nestedThrowable) {
        super(msg, nestedThrowable);
    }

    public String getRejectionMessage() { return null; }

    public void setRejectionMessage(String rejectionMessage) { }

    public PacketError getRejectionError() { return null; }

    public void setRejectionError(PacketError rejectionError) { }
}
