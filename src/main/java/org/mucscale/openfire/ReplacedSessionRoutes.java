package org.mucscale.openfire;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import org.jivesoftware.openfire.RoutingTable;
import org.jivesoftware.openfire.event.SessionEventDispatcher;
import org.jivesoftware.openfire.event.SessionEventListener;
import org.jivesoftware.openfire.session.LocalClientSession;
import org.jivesoftware.openfire.session.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xmpp.packet.JID;

/**
 * Puts back the route of a session that took a full JID over when Openfire 5.1.1's teardown of the session it
 * replaced has removed it.
 *
 * <p>The race (Openfire 5.1.1 {@code SessionManager}): a bind that finds its full JID taken kicks the old session
 * ({@code close()} only schedules the teardown) and installs the new session's route, holding the bare JID's route
 * lock throughout. The old session's teardown ({@code ClientSessionListener} then {@code removeSession}) checks that
 * it still owns the route <em>without</em> that lock, then removes the route by address under it. When the check runs
 * before the install, the removal waits for the bind's lock and then removes the new session's route: the new session
 * stays connected but nothing Openfire routes reaches it (no roster, no IQ results, no room traffic, Openfire's own MUC
 * included). RealOpenfireIT's resource-conflict test failed this way (no roster result, no ping answer, no join
 * answer), and an earlier experiment lost 2 joins in 30 conflicts in Openfire's MUC and mucscale's alike.
 *
 * <p>The rule kept here: when a session of a full JID is destroyed and Openfire then has no route for that JID, while
 * the last session Openfire created for it is another one that is still open, that one owns the JID (Openfire
 * creates, that is binds, the new session only after kicking the old), so its route is installed again, under the
 * same lock Openfire binds under. A destroyed session that was the last one created for its JID is forgotten.
 *
 * <p>Concurrency: Openfire's threads that dispatch session events; a {@link ConcurrentHashMap} of the last session
 * created per full JID (one entry per live session, removed when that session is destroyed), and the check and
 * install under Openfire's route lock, waited for at most a second (never longer than Openfire's own teardown).
 */
final class ReplacedSessionRoutes {
    private static final Logger LOG = LoggerFactory.getLogger(ReplacedSessionRoutes.class);

    private final RoutingTable routingTable;
    private final ConcurrentHashMap<JID, LocalClientSession> lastCreated = new ConcurrentHashMap<>();
    private final LongAdder repaired = new LongAdder();

    ReplacedSessionRoutes(RoutingTable routingTable) {
        this.routingTable = routingTable;
    }

    /** Watches Openfire's session events until the returned registration is closed (at plugin stop). */
    AutoCloseable watch() {
        SessionEventListener listener = new SessionEventListener() {
            @Override
            public void sessionCreated(Session session) {
                created(session);
            }

            @Override
            public void sessionDestroyed(Session session) {
                destroyed(session);
            }

            @Override
            public void anonymousSessionCreated(Session session) {
                created(session);
            }

            @Override
            public void anonymousSessionDestroyed(Session session) {
                destroyed(session);
            }

            @Override
            public void resourceBound(Session session) {
                // created (and routed) before it is announced as bound
            }
        };
        SessionEventDispatcher.addListener(listener);
        return () -> {
            SessionEventDispatcher.removeListener(listener);
            lastCreated.clear();
        };
    }

    /** Routes put back so far (a gauge). */
    long repairedCount() {
        return repaired.sum();
    }

    private void created(Session session) {
        JID address = session.getAddress();
        if (session instanceof LocalClientSession local && address != null && address.getResource() != null) {
            lastCreated.put(address, local);
        }
    }

    private void destroyed(Session session) {
        JID address = session.getAddress();
        if (address == null || address.getResource() == null) {
            return;
        }
        LocalClientSession newest = lastCreated.get(address);
        if (newest == null || newest == session) {
            lastCreated.remove(address, session);
            return;
        }
        if (newest.isClosed() || routingTable.getClientRoute(address) != null) {
            return; // the usual case: the new session's route survived the old one's teardown
        }
        Lock lock = routingTable.getClientRouteLock(address);
        try {
            if (!lock.tryLock(1, TimeUnit.SECONDS)) {
                LOG.info("MUC Scale: could not check the route of {} after its replaced session closed", address);
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try {
            if (routingTable.getClientRoute(address) == null && !newest.isClosed()) {
                routingTable.addClientRoute(address, newest);
                repaired.increment();
                LOG.info("MUC Scale: put back the route of {}, which Openfire removed while closing the session it "
                        + "replaced (resource conflict)", address);
            }
        } finally {
            lock.unlock();
        }
    }
}
