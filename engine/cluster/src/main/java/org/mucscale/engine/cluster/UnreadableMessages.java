package org.mucscale.engine.cluster;

import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this node does with a message from another node that it cannot read (a node of another wire version during a
 * rolling upgrade, or a corrupt message): the stanza it carried, if one can be identified ({@link Wire#carried}), is
 * answered to its sender with service-unavailable, relayed to the node its session is on, instead of vanishing; every
 * such message is counted ({@code mucscale.cluster.unreadable}, and {@code .unreadable.answered} for those answered);
 * and the log says so once per peer node and wire version, naming both wire versions and what was dropped
 * ({@link NodeVersions#unreadable}), at DEBUG after that. The caller keeps the message's place on its link.
 *
 * <p>Threads: the transport's threads, concurrently. No mutable state of its own: the once-only record and the count
 * are {@link NodeVersions}' (concurrent), the answers go out through {@code answers} (thread-safe).
 */
final class UnreadableMessages {
    /** ClusterNode's: the name operators already filter the cluster layer's warnings by. */
    private static final Logger LOG = LoggerFactory.getLogger(ClusterNode.class);

    /** Sends {@code stanza} to {@code recipient}'s session on {@code node} (this node or another). */
    interface Answers {
        void deliver(String node, RenderedStanza stanza, Jid recipient);
    }

    private final NodeVersions versions;
    private final String local;
    private final ClusterListener listener;
    private final Answers answers;

    UnreadableMessages(NodeVersions versions, String local, ClusterListener listener, Answers answers) {
        this.versions = versions;
        this.local = local;
        this.listener = listener;
        this.answers = answers;
    }

    /** A send that is not even a readable batch: nothing in it can be told apart. */
    void batch(String fromNode, RuntimeException why) {
        said(fromNode, why, "one send of messages whose carried stanzas, if any, cannot be identified");
    }

    /** One message ({@code bytes}) that did not decode ({@code why}). */
    void message(String fromNode, byte[] bytes, RuntimeException why) {
        String kind = bytes.length == 0 ? "an empty message" : "a message of kind " + (bytes[0] & 0xff);
        Wire.Carried carried = Wire.carried(bytes, why);
        if (carried == null) {
            said(fromNode, why, kind + " whose carried stanza, if any, cannot be identified (its sender is not told)");
            return;
        }
        XmlElement error = carried.refusal();
        Jid sender = error == null ? null : Jid.tryParse(carried.stanza().attribute("from"));
        if (sender == null) {
            said(fromNode, why, kind + " carrying " + carried.describe() + " (an error, or no sender: not answered)");
            return;
        }
        // the node its session is on: the stanza's entry node; a forward names none only from builds that had it
        // enter at the sender (wire version 1 always names it)
        String target = carried.entryNode() == null ? fromNode : carried.entryNode();
        answers.deliver(target, RenderedStanza.render(error), sender);
        listener.unreadableAnswered();
        said(fromNode, why, kind + " carrying " + carried.describe() + " for room " + carried.room()
                + "; its sender was answered service-unavailable (on node " + target + ")");
    }

    private void said(String fromNode, RuntimeException why, String dropped) {
        listener.unreadable();
        String said = versions.unreadable(fromNode, why.getMessage(), dropped);
        if (said != null) {
            LOG.warn(said);
        } else if (LOG.isDebugEnabled()) {
            LOG.debug("unreadable cluster message from node {} on {}: {}; not handled: {}", fromNode, local,
                    why.getMessage(), dropped);
        }
    }
}
