package org.jivesoftware.openfire.session;

import org.jivesoftware.openfire.Connection;
import org.jivesoftware.openfire.streammanagement.StreamManager;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.session.LocalSession}. */
public abstract class LocalSession implements Session {

    LocalSession() {
        // the real constructors take a server name, connection and stream id; the adapter never constructs sessions
    }

    public StreamManager getStreamManager() { return null; }

    public void deliverRawText(String text) { }

    public Connection getConnection() { return null; }

    public boolean isClosed() { return false; }
}
