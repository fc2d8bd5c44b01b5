package org.mucscale.engine.cluster;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The engine's {@link Delivery} on a clustered node, in front of the host's own. Alone (a one-node view) it passes every
 * call straight through. Clustered, a room thread's deliveries are gathered until its {@link #flush}: there the room's
 * changes have already been replicated (the room thread replicates first), then every other node whose sessions have
 * recipients in the run gets <b>one relay</b> with each rendered stanza once and its recipient list, and the local
 * recipients get theirs through the host, in call order, followed by the host's own flush.
 *
 * <p>Concurrency: the gathering state is per thread and exists only for threads that call {@link #flush} (room
 * threads); any other thread's call goes out at once.
 */
final class ClusterDelivery implements Delivery {
    private final Delivery host;
    private final ClusterNode node;
    private final ThreadLocal<Gathered> perThread = new ThreadLocal<>();

    ClusterDelivery(Delivery host, ClusterNode node) {
        this.host = host;
        this.node = node;
    }

    Delivery host() {
        return host;
    }

    @Override
    public void deliver(RenderedStanza stanza, Jid recipient) {
        Gathered g = perThread.get();
        if (!node.clustered() && (g == null || g.size == 0)) {
            host.deliver(stanza, recipient);
            return;
        }
        String target = node.deliveryNode(recipient);
        if (g == null) {
            if (target == null) {
                host.deliver(stanza, recipient);
            } else {
                node.relayNow(target, stanza, recipient);
            }
            return;
        }
        g.add(target, stanza, null, recipient);
    }

    @Override
    public void send(XmlElement stanza) {
        Gathered g = perThread.get();
        if (!node.clustered() && (g == null || g.size == 0)) {
            host.send(stanza);
            return;
        }
        Jid to = Jid.tryParse(stanza.attribute("to"));
        String target = to == null ? null : node.deliveryNode(to);
        if (g == null) {
            if (target == null) {
                host.send(stanza);
            } else {
                node.relayNow(target, RenderedStanza.render(stanza), to);
            }
            return;
        }
        if (target == null) {
            g.add(null, null, stanza, to);
        } else {
            g.add(target, RenderedStanza.render(stanza), null, to);
        }
    }

    @Override
    public void flush() {
        Gathered g = perThread.get();
        if (g == null) {
            perThread.set(new Gathered());
        } else if (g.size > 0) {
            g.release(host, node);
        }
        host.flush();
    }

    /** One room thread's deliveries since its last flush, in call order. */
    private static final class Gathered {
        String[] targets = new String[64];
        RenderedStanza[] rendered = new RenderedStanza[64];
        XmlElement[] elements = new XmlElement[64];
        Jid[] recipients = new Jid[64];
        int size;
        final Map<String, Wire.RelayBuilder> relays = new HashMap<>();

        void add(String target, RenderedStanza r, XmlElement e, Jid recipient) {
            if (size == targets.length) {
                int n = size * 2;
                targets = Arrays.copyOf(targets, n);
                rendered = Arrays.copyOf(rendered, n);
                elements = Arrays.copyOf(elements, n);
                recipients = Arrays.copyOf(recipients, n);
            }
            targets[size] = target;
            rendered[size] = r;
            elements[size] = e;
            recipients[size++] = recipient;
        }

        void release(Delivery host, ClusterNode node) {
            int n = size;
            boolean remote = false;
            for (int i = 0; i < n; i++) {
                if (targets[i] != null) {
                    relays.computeIfAbsent(targets[i], t -> new Wire.RelayBuilder()).add(rendered[i], recipients[i]);
                    remote = true;
                }
            }
            if (remote) {
                for (Map.Entry<String, Wire.RelayBuilder> e : relays.entrySet()) {
                    if (!e.getValue().isEmpty()) {
                        node.sendRelay(e.getKey(), e.getValue());
                        e.getValue().clear();
                    }
                }
            }
            for (int i = 0; i < n; i++) {
                if (targets[i] == null) {
                    if (elements[i] != null) {
                        host.send(elements[i]);
                    } else {
                        host.deliver(rendered[i], recipients[i]);
                    }
                }
            }
            Arrays.fill(targets, 0, n, null);
            Arrays.fill(rendered, 0, n, null);
            Arrays.fill(elements, 0, n, null);
            Arrays.fill(recipients, 0, n, null);
            size = 0;
        }
    }
}
