package org.mucscale.openfire;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * This node's view of the cluster, kept from Openfire's cluster events: who is a member, this node always included.
 * Each operation returns the new view when it changed, or null when it did not (Openfire may tell of a node the view
 * already has, for instance a join that the first snapshot already held), so every view reported is a real change.
 *
 * <p>Which Openfire event means what ({@code ClusterEventListener}, dispatched by {@code ClusterManager}):
 * <ul>
 *   <li>{@code joinedCluster()}: this node joined; Openfire's node list now holds every member ({@link #reset});</li>
 *   <li>{@code joinedCluster(id)}: another node finished joining (its {@code NewClusterMemberJoinedTask}) ({@link #joined});</li>
 *   <li>{@code leftCluster(id)}: another node left or was lost ({@link #left});</li>
 *   <li>{@code leftCluster()}: this node left, or is rejoining after a split brain ({@link #alone}).</li>
 * </ul>
 *
 * <p>Concurrency: not thread-safe; the transport touches it on its one event thread (and once before that thread
 * starts).
 */
final class ClusterView {

    private final String local;
    private Set<String> members = new TreeSet<>();
    private List<String> current;

    ClusterView(String local) {
        this.local = local;
        members.add(local);
        current = List.copyOf(members);
    }

    /** The view now; this node included, sorted (the port promises no order; sorting makes logs and tests stable). */
    List<String> current() {
        return current;
    }

    /** The members are {@code nodes} (plus this node). */
    List<String> reset(Collection<String> nodes) {
        Set<String> next = new TreeSet<>(nodes);
        next.add(local);
        return replace(next);
    }

    List<String> joined(String node) {
        if (members.contains(node)) {
            return null;
        }
        Set<String> next = new TreeSet<>(members);
        next.add(node);
        return replace(next);
    }

    /** {@code node} left; this node itself never leaves its own view (use {@link #alone}). */
    List<String> left(String node) {
        if (node.equals(local) || !members.contains(node)) {
            return null;
        }
        Set<String> next = new TreeSet<>(members);
        next.remove(node);
        return replace(next);
    }

    /** This node is not in a cluster (any more). */
    List<String> alone() {
        return reset(List.of());
    }

    private List<String> replace(Set<String> next) {
        if (next.equals(members)) {
            return null;
        }
        members = next;
        current = List.copyOf(next);
        return current;
    }
}
