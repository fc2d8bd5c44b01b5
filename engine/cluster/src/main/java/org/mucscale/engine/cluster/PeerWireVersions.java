package org.mucscale.engine.cluster;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What the other members' published wire versions let this node send them: a FORWARD's origin (wire version 2, I5's
 * accepted-mark rule: a resend to an older member carries none and has the tail check only) and PASSED
 * ({@link StragglerHold#WIRE_VERSION}, I2 across a graceful leave: nothing is held for an older member);
 * docs/cluster.md "Versions between nodes", docs/cluster-protocol.md section 6 ("Accepted marks", "Straggler hold").
 *
 * <p>State and owners: both sets and the check time are written by the cluster thread only (learnt on the tick,
 * trimmed at view and membership changes); the sets are read by any thread that forwards (origins) and by transport
 * threads (PASSED).
 */
final class PeerWireVersions {
    private final String local;
    private final NodeVersions versions;

    PeerWireVersions(String local, NodeVersions versions) {
        this.local = local;
        this.versions = versions;
    }

    /**
     * Members whose published wire version reads a FORWARD's origin (2 and later; docs/cluster.md "Versions between
     * nodes"): only they are sent one. Added by the cluster thread (every second, for members not in it yet), removed
     * when a member departs (it may come back with another build); read by any thread that forwards.
     */
    private final Set<String> readsOrigins = ConcurrentHashMap.newKeySet();
    /**
     * Members that published {@link StragglerHold#WIRE_VERSION} or later: learnt with readsOrigins (cluster thread),
     * forgotten as they leave the membership; read by transport threads.
     */
    private final Set<String> readsPassed = ConcurrentHashMap.newKeySet();
    private long nextVersionCheckNanos = System.nanoTime(); // nanoTime may be negative: not 0

    /**
     * Once a second (cluster thread, once the transport runs): the published wire version of each member of the view
     * not known yet to read both.
     */
    void learn(long nowNanos, List<String> members) {
        if (nowNanos - nextVersionCheckNanos < 0) {
            return;
        }
        nextVersionCheckNanos = nowNanos + TimeUnit.SECONDS.toNanos(1);
        for (String m : members) {
            // readsOrigins forgets a node as it leaves the view, readsPassed only as it leaves the membership (a
            // leaving node is told PASSED after the switch): a node back in the view is read again, so an engine
            // restarted with another build while it stayed a member is not taken for the one before
            if (!m.equals(local) && !(readsOrigins.contains(m) && readsPassed.contains(m))) {
                NodeVersions.Version v = versions.of(m);
                if (v != null && v.wire() >= 2) {
                    readsOrigins.add(m);
                }
                if (v != null && v.wire() >= StragglerHold.WIRE_VERSION) {
                    readsPassed.add(m);
                } else if (v != null) {
                    readsPassed.remove(m);
                }
            }
        }
    }

    boolean readsOrigins(String node) {
        return readsOrigins.contains(node);
    }

    boolean readsPassed(String node) {
        return readsPassed.contains(node);
    }

    /** Nodes that left the view (cluster thread): their origins are learnt again if they come back. */
    void departed(Set<String> departed) {
        readsOrigins.removeAll(departed);
    }

    /** The transport's membership (cluster thread): a node that left it is learnt again if it comes back. */
    void retainMembers(List<String> members) {
        readsPassed.retainAll(members);
    }
}
