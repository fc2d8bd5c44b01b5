package org.mucscale.openfire;

import java.util.concurrent.ConcurrentHashMap;
import org.jivesoftware.openfire.RoutingTable;
import org.jivesoftware.openfire.event.SessionEventDispatcher;
import org.jivesoftware.openfire.event.SessionEventListener;
import org.jivesoftware.openfire.session.ClientSession;
import org.jivesoftware.openfire.session.LocalClientSession;
import org.jivesoftware.openfire.session.Session;
import org.mucscale.engine.stanza.Jid;
import org.xmpp.packet.JID;

/**
 * The local session of each occupant address, remembered between deliveries. Openfire's own lookup
 * ({@code RoutingTable.getClientRoute}) builds a Tinder {@link JID}, its full-JID string and a key object and hashes
 * them for every recipient of every broadcast: profiled inside Openfire it was most of a room thread's own time and a
 * third of the JVM's allocation per delivery (docs/benchmarks/jvm.md). Here the engine's address (whose hash is
 * cached) finds the session directly.
 *
 * <p>Why a remembered session stays right: Openfire keeps a full JID's local route until that session closes, and a
 * session that takes over a full JID (a resource conflict) is bound only after Openfire has closed the one it
 * replaces. So a remembered session is used only while it is not closed, and an address is forgotten whenever a
 * session binds it or a session of it is destroyed (Openfire's session events, {@link #watchSessions}); a closed one is
 * looked up again (and forgotten when Openfire has no local route for the address). Detachment (stream management) is
 * the caller's check, as before.
 *
 * <p>Bounded without a timer: destroyed sessions are forgotten as they go, and when the map has doubled since the
 * last sweep, closed sessions are dropped too, so it holds about twice the addresses with live local sessions at most.
 *
 * <p>Concurrency: any thread (room threads, the cluster relay writer); a {@link ConcurrentHashMap}, and a sweep runs on
 * whichever thread crosses the threshold first.
 */
final class LocalRoutes {
    static final int MIN_SWEEP_SIZE = 1_024;

    private final RoutingTable routingTable;
    private final ConcurrentHashMap<Jid, LocalClientSession> sessions = new ConcurrentHashMap<>();
    private volatile int sweepAt = MIN_SWEEP_SIZE;
    private final Object sweeping = new Object();

    LocalRoutes(RoutingTable routingTable) {
        this.routingTable = routingTable;
    }

    /** The open local session of {@code recipient} (a full JID), or null when it has none on this node. */
    LocalClientSession find(Jid recipient) {
        LocalClientSession known = sessions.get(recipient);
        if (known != null && !known.isClosed()) {
            return known;
        }
        ClientSession route = routingTable.getClientRoute(
                new JID(recipient.local(), recipient.domain(), recipient.resource(), true));
        if (route instanceof LocalClientSession local && !local.isClosed()) {
            sessions.put(recipient, local);
            if (sessions.size() >= sweepAt) {
                sweep();
            }
            return local;
        }
        if (known != null) {
            sessions.remove(recipient, known);
        }
        return null;
    }

    /**
     * Forgets an address whenever Openfire binds it to a session or destroys a session of it, until the returned
     * registration is closed (at plugin stop: Openfire would otherwise keep this class loader alive).
     */
    AutoCloseable watchSessions() {
        SessionEventListener listener = new SessionEventListener() {
            @Override
            public void sessionCreated(Session session) {
                // not bound to a resource yet: nothing to forget
            }

            @Override
            public void sessionDestroyed(Session session) {
                forget(session);
            }

            @Override
            public void anonymousSessionCreated(Session session) {
                // as sessionCreated
            }

            @Override
            public void anonymousSessionDestroyed(Session session) {
                forget(session);
            }

            @Override
            public void resourceBound(Session session) {
                forget(session);
            }
        };
        SessionEventDispatcher.addListener(listener);
        return () -> SessionEventDispatcher.removeListener(listener);
    }

    private void forget(Session session) {
        JID address = session.getAddress();
        Jid key = address == null ? null : Jid.tryParse(address.toString());
        if (key != null) {
            sessions.remove(key);
        }
    }

    /** Addresses remembered (a gauge, and for tests). */
    int size() {
        return sessions.size();
    }

    private void sweep() {
        synchronized (sweeping) {
            if (sessions.size() < sweepAt) {
                return; // another thread swept meanwhile
            }
            sessions.values().removeIf(LocalClientSession::isClosed);
            sweepAt = Math.max(MIN_SWEEP_SIZE, sessions.size() * 2);
        }
    }
}
