package org.mucscale.engine.port;

import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Where the engine's outbound stanzas go: one adapter per host (the standalone component's socket, Openfire's
 * sessions and router). Implementations must not block the caller for long and must be safe to call from any room
 * thread; a full outbound queue is the adapter's to handle and report (never a silent drop).
 */
public interface Delivery {

    /** Sends a stanza rendered once for many recipients, with {@code recipient} spliced in as its {@code to}. */
    void deliver(RenderedStanza stanza, Jid recipient);

    /** Sends one complete stanza (its {@code to} attribute already set). */
    void send(XmlElement stanza);

    /**
     * The calling thread has finished a run of {@link #deliver}/{@link #send} calls (a room thread calls this when its
     * queue is empty and after every few commands). An adapter may gather the deliveries of a thread that calls
     * {@code flush} and hand them to its transport here, in call order per recipient; a thread that has never called
     * {@code flush} must never have a delivery deferred. The default delivers immediately and does nothing here.
     */
    default void flush() {
    }
}
