package org.mucscale.standalone;

import org.jivesoftware.smack.tcp.XMPPTCPConnection;
import org.jivesoftware.smack.tcp.XMPPTCPConnectionConfiguration;

/**
 * Smack's TCP connection, except that a disconnect waits at most {@link #CLOSE_WAIT_MS} (not the whole reply timeout)
 * for the server's closing stream tag. Used by {@link MucConformanceTest} for the framework's connections.
 *
 * <p>Why: after the tests the framework deletes each account in-band and then disconnects. Prosody answers a
 * deletion by closing the account's sessions with a stream error and dropping the socket; when Smack 4.5.0-beta5's
 * disconnect has already begun, its reader swallows that end of stream, and the disconnect waits out the full reply
 * timeout (20 s) for a closing tag that cannot come. That cost 40 s of a 65 s run. The wait is only the closing
 * handshake of a connection being torn down: every stanza and answer the tests wait for still has the full reply
 * timeout, and a server that does answer the closing tag answers it in milliseconds.
 *
 * <p>Thread safety: as {@link XMPPTCPConnection}; the reply timeout is swapped only inside shutdown, which Smack
 * runs under the connection's lock.
 */
public final class QuickCloseTcpConnection extends XMPPTCPConnection {
    static final long CLOSE_WAIT_MS = 3_000;

    public QuickCloseTcpConnection(XMPPTCPConnectionConfiguration config) {
        super(config);
    }

    @Override
    protected void shutdown() {
        long replyTimeout = getReplyTimeout();
        setReplyTimeout(Math.min(replyTimeout, CLOSE_WAIT_MS));
        try {
            super.shutdown();
        } finally {
            setReplyTimeout(replyTimeout);
        }
    }
}
