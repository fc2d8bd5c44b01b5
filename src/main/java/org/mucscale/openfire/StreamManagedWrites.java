package org.mucscale.openfire;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import org.jivesoftware.openfire.session.LocalClientSession;
import org.jivesoftware.openfire.streammanagement.StreamManager;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;

/**
 * One room thread's raw deliveries to sessions with stream management (XEP-0198), gathered per session and handed
 * over with the thread's other batches ({@link EventLoopWriteBatches#flush}).
 *
 * <p><b>The rule</b> (XEP-0198 as Openfire implements it): for each session, the order in which its stream manager
 * counts stanzas ({@code sentStanza} numbers them) is the order in which they reach the connection's event loop,
 * mucscale's and Openfire's own alike; otherwise a client's {@code h} would acknowledge other stanzas than the server
 * believes, and a resumption would resend the wrong ones. Openfire keeps it by writing and counting under the stream
 * manager's monitor ({@code LocalClientSession.pushPackets}). So does the hand-over here: for each session, under
 * that monitor, it resolves the session's current connection (a resumption may have replaced it since the stanza was
 * gathered), hands the session's stanzas to its event loop as one task, and then counts each of them, which may queue
 * an {@code <r/>} behind them, as Openfire's own count does after its write.
 *
 * <p>A counted stanza is never dropped by mucscale (see {@link EventLoopWriteBatches}' slow-recipient bound): when it
 * cannot be written (the connection closed, the session detached), the stream manager holds its copy and resends it
 * on resumption or re-routes it when the session ends, as for Openfire's own stanzas.
 *
 * <p>Owner: the one room thread whose gathering state holds it; nothing here is shared.
 */
final class StreamManagedWrites {
    private final IdentityHashMap<LocalClientSession, Pending> bySession = new IdentityHashMap<>();
    private final ArrayList<Pending> order = new ArrayList<>();
    private final StanzaCounter counter;

    StreamManagedWrites(StanzaCounter counter) {
        this.counter = counter;
    }

    void add(LocalClientSession session, StreamManager sm, RenderedStanza stanza, Jid recipient) {
        Pending p = bySession.get(session);
        if (p == null) {
            p = new Pending(session, sm);
            bySession.put(session, p);
            order.add(p);
        }
        p.add(stanza, recipient);
    }

    boolean isEmpty() {
        return order.isEmpty();
    }

    /** Writes and counts what was gathered, session by session, under each one's stream manager (the class rule). */
    void handOver(EventLoopWriteBatches batches) {
        for (int i = 0; i < order.size(); i++) {
            Pending p = order.get(i);
            synchronized (p.sm) {
                boolean counting = p.sm.isEnabled();
                batches.writeNow(p.session, p.stanzas, p.recipients, p.size, counting);
                if (counting) {
                    for (int j = 0; j < p.size; j++) {
                        counter.count(p.sm, p.stanzas[j], p.recipients[j]);
                    }
                }
            }
        }
        order.clear();
        bySession.clear();
    }

    /** One session's stanzas of this flush, in the thread's call order. */
    private static final class Pending {
        final LocalClientSession session;
        final StreamManager sm;
        RenderedStanza[] stanzas = new RenderedStanza[4];
        Jid[] recipients = new Jid[4];
        int size;

        Pending(LocalClientSession session, StreamManager sm) {
            this.session = session;
            this.sm = sm;
        }

        void add(RenderedStanza stanza, Jid recipient) {
            if (size == stanzas.length) {
                stanzas = java.util.Arrays.copyOf(stanzas, size * 2);
                recipients = java.util.Arrays.copyOf(recipients, size * 2);
            }
            stanzas[size] = stanza;
            recipients[size] = recipient;
            size++;
        }
    }
}
