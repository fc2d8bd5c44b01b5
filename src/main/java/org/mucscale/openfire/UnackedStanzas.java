package org.mucscale.openfire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicLong;
import org.jivesoftware.openfire.streammanagement.StreamManager;
import org.jivesoftware.util.JiveGlobals;
import org.mucscale.engine.stanza.RenderedStanza;
import org.xmpp.packet.Packet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts a stanza with a session's stream manager exactly as Openfire 5.1's {@code StreamManager.sentStanza} does,
 * except that the {@code <r/>} it asks for every {@code stream.management.requestFrequency} stanzas is returned to the
 * caller, which writes it in the same batch as the stanza, instead of being written by Openfire.
 *
 * <p>Why: Openfire's {@code sendServerRequest} formats each request and writes it with its own
 * {@code writeAndFlush} from the counting thread, so every request is a task handed to the connection's event loop,
 * a write-timeout task and a flush (a syscall) of its own. With every client acking every fifth stanza, that was 12 to
 * 13 % of Openfire's CPU under {@code ref-5000-sm} (JFR, 2026-12-02: {@code WriteTask.run} 10.1 %, the format and the
 * hand-off 2.5 %). Written here, the request rides in the stanza's batch and its flush.
 *
 * <p>What it mirrors, under the stream manager's monitor (the caller holds it, as Openfire's own count does): the
 * next number {@code x} is one more than the newest unacknowledged stanza's, or than the client's last {@code h}; the
 * kept copy is {@code packet.createCopy()}; a count that would pass {@code stream.management.max-unacked} goes to
 * Openfire's own {@code sentStanza}, which warns, clears and turns stream management off, as it always did. The
 * request is due when the queue's size is a multiple of the frequency, as in Openfire. The fields are Openfire's
 * private ones, found by name once; when they are not there (another Openfire), {@link #resolve} answers null and the
 * caller counts through {@code sentStanza}, where Openfire writes its own requests: slower, never wrong.
 *
 * <p>Concurrency: immutable; the caller holds the stream manager's monitor for {@link #count}.
 */
final class UnackedStanzas {
    private static final Logger LOG = LoggerFactory.getLogger(UnackedStanzas.class);
    static final String FREQUENCY = "stream.management.requestFrequency";
    static final String MAX_UNACKED = "stream.management.max-unacked";
    /** Openfire's defaults for the two properties. */
    static final long DEFAULT_FREQUENCY = 5;
    static final int DEFAULT_MAX_UNACKED = 10_000;
    /** The requests, one per namespace; written after the stanza that made them due, never spliced. */
    static final RenderedStanza REQUEST_V3 = RenderedStanza.of("<r xmlns='urn:xmpp:sm:3' />", "");
    static final RenderedStanza REQUEST_V2 = RenderedStanza.of("<r xmlns='urn:xmpp:sm:2' />", "");

    private final VarHandle unacked;
    private final VarHandle clientProcessed;
    private final VarHandle namespace;

    private UnackedStanzas(VarHandle unacked, VarHandle clientProcessed, VarHandle namespace) {
        this.unacked = unacked;
        this.clientProcessed = clientProcessed;
        this.namespace = namespace;
    }

    /** The mirror for this Openfire, or null when its stream manager is not laid out as 5.1's (logged once). */
    static UnackedStanzas resolve() {
        try {
            MethodHandles.Lookup l = MethodHandles.privateLookupIn(StreamManager.class, MethodHandles.lookup());
            return new UnackedStanzas(
                    l.findVarHandle(StreamManager.class, "unacknowledgedServerStanzas", Deque.class),
                    l.findVarHandle(StreamManager.class, "clientProcessedStanzas", AtomicLong.class),
                    l.findVarHandle(StreamManager.class, "namespace", String.class));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.info("MUC Scale: this Openfire's stream manager is not laid out as 5.1's ({}); its <r/> requests are "
                    + "written by Openfire, one write each", e.toString());
            return null;
        }
    }

    /** Whether {@code s} is one of the requests (written as it is: no recipient spliced in). */
    static boolean isRequest(RenderedStanza s) {
        return s == REQUEST_V3 || s == REQUEST_V2;
    }

    /** Openfire's request frequency, read as its {@code sentStanza} reads it. */
    static long frequency() {
        return JiveGlobals.getLongProperty(FREQUENCY, DEFAULT_FREQUENCY);
    }

    /** Openfire's bound on kept copies, read as its {@code getMaximumUnacknowledgedStanzas} reads it. */
    static int maxUnacked() {
        return JiveGlobals.getIntProperty(MAX_UNACKED, DEFAULT_MAX_UNACKED);
    }

    /** The newest stanza {@code sm} holds unacknowledged, or null (none; the caller holds {@code sm}'s monitor). */
    Object newest(StreamManager sm) {
        @SuppressWarnings("unchecked")
        Deque<StreamManager.UnackedPacket> queue = (Deque<StreamManager.UnackedPacket>) unacked.get(sm);
        return queue == null ? null : queue.peekLast();
    }

    /**
     * Counts {@code packet} (its copy is kept until acknowledged) and returns the request to write right after it, or
     * null when none is due or Openfire counted it itself. The caller holds {@code sm}'s monitor.
     */
    @SuppressWarnings("unchecked")
    RenderedStanza count(StreamManager sm, Packet packet, long frequency, int maxUnacked) {
        String ns = (String) namespace.get(sm);
        if (ns == null) {
            return null; // not enabled: Openfire counts nothing either
        }
        Deque<StreamManager.UnackedPacket> queue = (Deque<StreamManager.UnackedPacket>) unacked.get(sm);
        if (frequency <= 0 || queue.size() + 1 > maxUnacked) {
            sm.sentStanza(packet); // Openfire's own handling of what it would do then (over the bound: off)
            return null;
        }
        long x = 1 + (queue.isEmpty() ? ((AtomicLong) clientProcessed.get(sm)).get() : queue.getLast().x);
        queue.addLast(new StreamManager.UnackedPacket(x, packet.createCopy()));
        if (queue.size() % frequency != 0) {
            return null;
        }
        return StreamManager.NAMESPACE_V2.equals(ns) ? REQUEST_V2 : REQUEST_V3;
    }
}
