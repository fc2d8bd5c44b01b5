package org.mucscale.openfire;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import org.jivesoftware.openfire.csi.CsiManager;
import org.jivesoftware.openfire.session.LocalClientSession;
import org.jivesoftware.openfire.streammanagement.StreamManager;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;

/**
 * One room thread's raw deliveries to sessions whose stream manager (XEP-0198) counts copies or whose client state
 * indication (XEP-0352) may hold them back, gathered per session and handed over with the thread's other batches
 * ({@link EventLoopWriteBatches#flush}), each session's run joining its event loop's open batch
 * ({@link EventLoopWriteBatches.ManagedRuns}).
 *
 * <p><b>Stream management</b> (as Openfire implements it): for each session, the order in which its stream manager
 * counts stanzas ({@code sentStanza} numbers them) is the order in which they reach the connection's event loop,
 * mucscale's and Openfire's own alike; otherwise a client's {@code h} would acknowledge other stanzas than the server
 * believes, and a resumption would resend the wrong ones. Openfire keeps it by writing and counting under the stream
 * manager's monitor ({@code LocalClientSession.pushPackets}). So does the hand-over here: for each session, under
 * that monitor, it resolves the session's current connection (a resumption may have replaced it since the stanza was
 * gathered), counts each stanza and hands them to its event loop (a batch already queued there, or a new one), with each {@code <r/>} request a count
 * made due right after its stanza ({@link UnackedStanzas}; where Openfire's stream manager is not laid out as 5.1's,
 * Openfire writes its requests itself). With the monitor held across both, no count or write of another thread comes
 * between.
 *
 * <p><b>Client state indication</b> (Openfire's {@code CsiManager.queueOrPush}): while a client is inactive, Openfire
 * queues the stanzas it may delay ({@link CsiDelay}) and, when one arrives that it may not, pushes the whole queue and
 * that stanza, in order. The hand-over keeps exactly that, per session, under the CSI manager's monitor (taken before
 * the stream manager's; Openfire never holds a stream manager's monitor while it waits for its CSI manager's): a
 * stanza is written raw only while the CSI queue is empty and the client is active or the stanza may not be delayed;
 * any other goes to the session as a packet ({@link Outlet#asPacket}), so Openfire queues it, or pushes the queue before
 * it, and the session's later stanzas follow it the same way until the queue is empty again. A raw write renews the
 * manager's last-push time as {@code queueOrPush} does when it pushes ({@link CsiLastPush}), so Openfire's
 * {@code xmpp.client.csi.delay.max-duration} runs from the last stanza the client got on either path.
 *
 * <p>Order among this thread's paths: a session gathered here stays here until the hand-over, and plain batches are
 * handed over before this one, so a session that turns inactive within one batch keeps its order too.
 *
 * <p>A counted stanza is never dropped by mucscale (see {@link EventLoopWriteBatches}' slow-recipient bound): when it
 * cannot be written (the connection closed, the session detached), the stream manager holds its copy and resends it
 * on resumption or re-routes it when the session ends, as for Openfire's own stanzas.
 *
 * <p>Owner: the one room thread whose gathering state holds it; nothing here is shared.
 */
final class ManagedSessionWrites {
    /** Where the hand-over's outcomes go. */
    interface Outlet {
        /** Delivers one stanza to a session as a Tinder packet, through the session, as Openfire delivers its own. */
        void asPacket(LocalClientSession session, RenderedStanza stanza, Jid recipient);

        /**
         * Counts stanzas written raw, of which a stream manager counted them ({@code counted}) or not, and the
         * {@code <r/>} requests written in their batch ({@link UnackedStanzas}).
         */
        void wroteRaw(int stanzas, boolean counted, int ackRequests);

        /**
         * Stanzas were just written raw to the session of {@code csi}: its last-push time is renewed as
         * {@code queueOrPush} renews it ({@link CsiLastPush}). The caller holds {@code csi}'s monitor.
         */
        void pushedRaw(CsiManager csi);
    }

    private final IdentityHashMap<LocalClientSession, Pending> bySession = new IdentityHashMap<>();
    private final ArrayList<Pending> order = new ArrayList<>();
    private final StanzaCounter counter;
    private final Outlet outlet;
    /** One counted run with its {@code <r/>} requests in place, reused run after run. */
    private final Pending out = new Pending(null, null, null);

    ManagedSessionWrites(StanzaCounter counter, Outlet outlet) {
        this.counter = counter;
        this.outlet = outlet;
    }

    /**
     * Gathers a stanza; {@code sm} is the session's stream manager (null when it has none). Whether it counts is
     * decided at the hand-over under its monitor, never here: a client may enable stream management in between, and
     * Openfire sets the namespace under that monitor before it writes {@code <enabled/>}.
     */
    void add(LocalClientSession session, StreamManager sm, RenderedStanza stanza, Jid recipient) {
        Pending p = bySession.get(session);
        if (p == null) {
            p = new Pending(session, sm, session.getCsiManager());
            bySession.put(session, p);
            order.add(p);
        }
        p.add(stanza, recipient);
    }

    /** Whether {@code session} has stanzas gathered here (its later ones in this batch must follow them here). */
    boolean holds(LocalClientSession session) {
        return !order.isEmpty() && bySession.containsKey(session);
    }

    boolean isEmpty() {
        return order.isEmpty();
    }

    /** Writes, counts or queues what was gathered, session by session, under each one's monitors (the class rules). */
    void handOver(EventLoopWriteBatches.ManagedRuns runs) {
        counter.refresh();
        for (int i = 0; i < order.size(); i++) {
            Pending p = order.get(i);
            if (p.csi == null) {
                handOver(runs, p);
            } else {
                synchronized (p.csi) {
                    handOver(runs, p);
                }
            }
        }
        order.clear();
        bySession.clear();
    }

    private void handOver(EventLoopWriteBatches.ManagedRuns runs, Pending p) {
        if (p.sm == null) {
            write(runs, p, false);
        } else {
            synchronized (p.sm) {
                write(runs, p, p.sm.isEnabled());
            }
        }
    }

    private void write(EventLoopWriteBatches.ManagedRuns runs, Pending p, boolean counting) {
        int run = 0;
        for (int j = 0; j < p.size; j++) {
            if (p.csi != null && !rawMayPass(p.csi, p.stanzas[j])) {
                writeRun(runs, p, run, j, counting);
                outlet.asPacket(p.session, p.stanzas[j], p.recipients[j]);
                run = j + 1;
            }
        }
        writeRun(runs, p, run, p.size, counting);
    }

    private void writeRun(EventLoopWriteBatches.ManagedRuns runs, Pending p, int from, int to, boolean counting) {
        if (from == to) {
            return;
        }
        if (p.csi != null) {
            outlet.pushedRaw(p.csi); // decided under its monitor, as queueOrPush decides and renews
        }
        if (!counting) {
            runs.write(p.session, p.stanzas, p.recipients, from, to, false, null, null);
            outlet.wroteRaw(to - from, false, 0);
            return;
        }
        // counted first, then handed over: the monitor is held across both, so no other count or write of this
        // session comes between, and each <r/> that a count makes due is written right after its stanza
        Object newestBefore = counter.newest(p.sm);
        for (int j = from; j < to; j++) {
            out.add(p.stanzas[j], p.recipients[j]);
            RenderedStanza request = counter.count(p.sm, p.stanzas[j], p.recipients[j]);
            if (request != null) {
                out.add(request, p.recipients[j]);
            }
        }
        runs.write(p.session, out.stanzas, out.recipients, 0, out.size, true, newestBefore, counter.newest(p.sm));
        outlet.wroteRaw(to - from, true, out.size - (to - from));
        out.clear(); // holds nothing between runs
    }

    /**
     * One stanza for a managed session on a thread that does not batch: written and counted, or delivered as a packet,
     * now, under the same monitors and by the same rule as a hand-over ({@code sm}: the session's stream manager, null
     * when it has none; whether it counts is decided under its monitor).
     */
    static void deliverNow(LocalClientSession session, StreamManager sm, RenderedStanza stanza, Jid recipient,
                           StanzaCounter counter, Outlet outlet) {
        CsiManager csi = session.getCsiManager();
        if (csi == null) {
            deliverNow(session, null, sm, stanza, recipient, counter, outlet);
        } else {
            synchronized (csi) {
                deliverNow(session, csi, sm, stanza, recipient, counter, outlet);
            }
        }
    }

    private static void deliverNow(LocalClientSession session, CsiManager csi, StreamManager sm,
                                   RenderedStanza stanza, Jid recipient, StanzaCounter counter, Outlet outlet) {
        if (csi != null && !rawMayPass(csi, stanza)) {
            outlet.asPacket(session, stanza, recipient);
            return;
        }
        if (csi != null) {
            outlet.pushedRaw(csi);
        }
        if (sm == null) {
            session.deliverRawText(StanzaText.forConnection(session.getConnection(), stanza, recipient));
            outlet.wroteRaw(1, false, 0);
            return;
        }
        synchronized (sm) {
            String text = StanzaText.forConnection(session.getConnection(), stanza, recipient);
            boolean counting = sm.isEnabled();
            RenderedStanza request = counting ? counter.refresh().count(sm, stanza, recipient) : null;
            session.deliverRawText(request == null ? text : text + request.prefix());
            outlet.wroteRaw(1, counting, request == null ? 0 : 1);
        }
    }

    /** What {@code queueOrPush} would push at once with nothing queued (the caller holds the CSI monitor). */
    static boolean rawMayPass(CsiManager csi, RenderedStanza stanza) {
        return csi.getDelayQueueSize() == 0 && (csi.isActive() || !CsiDelay.openfireMayDelay(stanza));
    }

    /** One session's stanzas of this flush, in the thread's call order. */
    private static final class Pending {
        final LocalClientSession session;
        final StreamManager sm;
        final CsiManager csi;
        RenderedStanza[] stanzas = new RenderedStanza[4];
        Jid[] recipients = new Jid[4];
        int size;

        Pending(LocalClientSession session, StreamManager sm, CsiManager csi) {
            this.session = session;
            this.sm = sm;
            this.csi = csi;
        }

        void clear() {
            java.util.Arrays.fill(stanzas, 0, size, null);
            java.util.Arrays.fill(recipients, 0, size, null);
            size = 0;
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
