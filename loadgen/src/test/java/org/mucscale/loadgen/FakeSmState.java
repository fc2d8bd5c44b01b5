package org.mucscale.loadgen;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * {@link FakeMucServer}'s side of XEP-0198 for one session: what it sent and the client has not acknowledged (kept
 * while the session is detached, resent on resumption with a {@code <delay/>}, as Openfire and Prosody do), its count
 * of the client's stanzas, and the edge cases the tests switch on. Owned by the fake server's one processor thread.
 */
final class FakeSmState {
    private static final byte[] BODY = Bytes.ascii("<body>");

    final String id;
    /** Stanzas received from the client since enable (the server's h). */
    int inbound;
    /** Stanzas sent to the client since enable; unacked holds the last (sent - acked) of them. */
    int sent;
    int acked;
    final ArrayDeque<byte[]> unacked = new ArrayDeque<>();
    /** The client's connection is gone; the session waits for a resumption. */
    boolean detached;

    FakeSmState(String id) {
        this.id = id;
    }

    /** Counts one stanza sent (or queued while detached); true when it is time to send {@code <r/>}. */
    boolean sent(byte[] stanza, int requestEvery) {
        unacked.addLast(stanza);
        sent++;
        return requestEvery > 0 && sent % requestEvery == 0;
    }

    /** The client acknowledged {@code h} stanzas. */
    void ack(int h) {
        while (acked - h < 0 && !unacked.isEmpty()) {
            unacked.removeFirst();
            acked++;
        }
    }

    /** A message with a {@code <delay/>} before its body, as a server marks what it resends. */
    static byte[] withDelay(byte[] stanza) {
        int at = Bytes.indexOf(stanza, 0, stanza.length, BODY);
        if (at < 0) {
            return stanza;
        }
        byte[] delay = "<delay xmlns='urn:xmpp:delay' stamp='2026-01-01T00:00:00Z'/>".getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[stanza.length + delay.length];
        System.arraycopy(stanza, 0, out, 0, at);
        System.arraycopy(delay, 0, out, at, delay.length);
        System.arraycopy(stanza, at, out, at + delay.length, stanza.length - at);
        return out;
    }
}
