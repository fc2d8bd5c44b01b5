package org.mucscale.engine.cluster;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.mucscale.engine.muc.GoneSessions;
import org.mucscale.engine.muc.MucService;
import org.mucscale.engine.stanza.Jid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session directory: which node each user's session is on, as the node their stanzas entered the cluster at, and
 * so which node delivers to them (inside Openfire, the session's node; standalone, any node whose link to the server
 * is up). Serves I7 (no delivery to a crashed node's sessions: {@link #DEPARTED}; departed sessions leave in one step
 * per room, {@link #departed}) and the owner's per-sender entry node (cluster-protocol.md section 1, "Entry node");
 * docs/cluster-protocol.md section 6, "Departed occupants in one step" and "sessionsOnServer, lastEntryNode".
 *
 * <p>State and owners. {@code sessions}: written by every thread that routes a stanza (host, transport and room
 * threads, one entry per user, last writer wins: a hint, not a promise), entries removed by the cluster thread at a
 * view change and by the room threads' completion of the departed-session step; a concurrent map.
 * {@code lastEntryNode}: written by routing threads, read by delivering threads (volatile; a hint too).
 * {@code reachesEveryone} and {@code sessionsOnNodes}: set once, before the engine starts ({@link #onServer}).
 */
final class SessionDirectory {
    private static final Logger LOG = LoggerFactory.getLogger(SessionDirectory.class);

    /**
     * What {@link #deliveryNode} answers for a recipient whose session was on a crashed node: nobody can deliver it
     * (compared by identity; node ids never hold a space).
     */
    static final String DEPARTED = new String("crashed node");

    private final String local;
    /** ClusterNode's view (volatile there, replaced by the cluster thread). */
    private final Supplier<View> view;
    /** ClusterNode's: nodes that left without a word; read only here. */
    private final Set<String> crashedNodes;
    private final ClusterListener listener;
    /** Where each user's session is, as the node their stanzas entered at. */
    private final ConcurrentHashMap<Jid, String> sessions = new ConcurrentHashMap<>();
    private volatile BooleanSupplier reachesEveryone = () -> false;
    private volatile boolean sessionsOnNodes = true;
    /** Standalone: the last other node a stanza entered at, i.e. a node whose link to the server is up. */
    private volatile String lastEntryNode;

    SessionDirectory(String local, Supplier<View> view, Set<String> crashedNodes, ClusterListener listener) {
        this.local = local;
        this.view = view;
        this.crashedNodes = crashedNodes;
        this.listener = listener;
    }

    /** Standalone: sessions live on the XMPP server; a node reaches everyone while {@code linkUp} says so. */
    void onServer(BooleanSupplier linkUp) {
        this.reachesEveryone = Objects.requireNonNull(linkUp);
        this.sessionsOnNodes = false;
    }

    /** {@code sender}'s stanza entered the cluster at {@code entryNode} (null: here). Any thread that routes. */
    void seen(Jid sender, String entryNode) {
        if (!view.get().clustered() && entryNode == null) {
            return;
        }
        String node = entryNode == null ? local : entryNode;
        if (!node.equals(sessions.get(sender))) {
            sessions.put(sender, node);
        }
        if (entryNode != null && !sessionsOnNodes && !entryNode.equals(lastEntryNode)) {
            lastEntryNode = entryNode;
        }
    }

    /** The node {@code user}'s session is on, as far as this node knows (this one if it does not know). */
    String node(Jid user) {
        String n = sessions.get(user);
        return n == null ? local : n;
    }

    /** The node to deliver to {@code recipient} through: null for this node, {@link #DEPARTED} for nobody. */
    String deliveryNode(Jid recipient) {
        if (recipient == null || reachesEveryone.getAsBoolean()) {
            return null;
        }
        String n = sessions.get(recipient);
        List<String> members = view.get().members();
        if (n != null && !n.equals(local) && members.contains(n)) {
            return n;
        }
        if (n != null && sessionsOnNodes && crashedNodes.contains(n)) {
            listener.departedSessionDropped(); // the caller drops it
            return DEPARTED;
        }
        if (!sessionsOnNodes) {
            // no link here: any node with one can deliver to anyone
            String linked = lastEntryNode;
            if (linked != null && !linked.equals(local) && members.contains(linked)) {
                return linked;
            }
        }
        return null;
    }

    /**
     * On the cluster thread, at a view change with {@code departed} nodes ({@code crashed} among them): their users'
     * hints go, but a crashed node's users keep theirs (so the delivery path drops what is still addressed to them)
     * until every room here has removed them, in one step per room. Returns that step's sessions, or null when
     * sessions live on the server (nobody's session leaves with a node).
     */
    GoneSessions departed(Set<String> departed, Set<String> crashed, MucService service) {
        Map<Jid, String> goneUsers = new HashMap<>();
        sessions.forEach((user, node) -> {
            if (departed.contains(node)) {
                goneUsers.put(user, node);
            }
        });
        goneUsers.forEach((user, node) -> {
            if (!sessionsOnNodes || !crashed.contains(node)) {
                sessions.remove(user, node);
            }
        });
        if (sessionsOnNodes) {
            GoneSessions gone = new GoneSessions(goneUsers::containsKey, u -> !crashed.contains(goneUsers.get(u)));
            try {
                service.removeSessionsWhere(gone).thenRun(() -> goneUsers.forEach(sessions::remove));
            } catch (RuntimeException e) {
                LOG.error("removing the sessions of departed nodes {} from this node's rooms failed", departed, e);
            }
            return gone;
        }
        return null;
    }
}
