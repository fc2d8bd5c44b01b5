package org.mucscale.engine.cluster;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

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
        if (!node.everClustered()) {
            host.deliver(stanza, recipient); // a node that was never clustered: not even a thread-local lookup
            return;
        }
        Gathered g = perThread.get();
        if (!node.clustered() && (g == null || g.size == 0 && g.chain.isDone())) {
            host.deliver(stanza, recipient);
            return;
        }
        String target = node.deliveryNode(recipient);
        if (target == ClusterNode.DEPARTED) {
            return; // counted there
        }
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
        if (!node.everClustered()) {
            host.send(stanza);
            return;
        }
        Gathered g = perThread.get();
        if (!node.clustered() && (g == null || g.size == 0 && g.chain.isDone())) {
            host.send(stanza);
            return;
        }
        Jid to = Jid.tryParse(stanza.attribute("to"));
        String target = to == null ? null : node.deliveryNode(to);
        if (target == ClusterNode.DEPARTED) {
            return; // counted there
        }
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
            perThread.set(new Gathered(newReleaser()));
            host.flush();
            return;
        }
        CompletableFuture<Void> write = node.takeWrite();
        if (write == null && g.chain.isDone()) {
            // nothing to wait for: release here, on the room thread
            if (g.size > 0) {
                g.release(host, node);
            }
            host.flush();
            return;
        }
        // this run's deliveries wait for its replication write, and for the runs before it
        Gathered batch = g.detach();
        CompletableFuture<Void> after = write == null ? g.chain : CompletableFuture.allOf(g.chain, write);
        g.chain = after.handleAsync((ok, failure) -> {
            batch.release(host, node);
            host.flush();
            return null;
        }, g.releaser);
        host.flush(); // what this thread passed straight through while alone
    }

    /**
     * On a room thread: gathers a re-delivery of {@code stanza} (whose delivered-id key is {@code key}) to
     * {@code recipients} on node {@code target} (null: this node), released with the run's other deliveries, in call
     * order, after the runs before it: a re-delivery sent at once could overtake the relay of a message this room
     * accepted just before it, which waits for its replication write (seen as one sender's rounds 20-22 ahead of 19
     * after a take-over). It is written only where that key was not written yet ({@link ClusterNode#firstDeliveryHere}
     * here, the relay writer elsewhere). False on any other thread.
     */
    boolean redeliverGathered(String target, RenderedStanza stanza, long key, java.util.List<Jid> recipients) {
        Gathered g = perThread.get();
        if (g == null) {
            return false;
        }
        for (Jid r : recipients) {
            g.add(target, stanza, null, r);
            g.keys[g.size - 1] = key;
        }
        return true;
    }

    /** The calling room thread's releases so far (complete once their relays were sent), or null on other threads. */
    CompletableFuture<Void> releasedSoFar() {
        Gathered g = perThread.get();
        return g == null ? null : g.chain;
    }

    /** One thread per room thread that releases its deliveries once their writes are confirmed, in flush order. */
    private java.util.concurrent.ExecutorService newReleaser() {
        java.util.concurrent.ExecutorService e = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, Thread.currentThread().getName() + "-release");
            t.setDaemon(true);
            return t;
        });
        releasers.add(e);
        return e;
    }

    private final java.util.List<java.util.concurrent.ExecutorService> releasers =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Stops the release threads after what they hold is released (the cluster node's close). */
    void stopReleasers() {
        for (java.util.concurrent.ExecutorService e : releasers) {
            e.shutdown();
            try {
                e.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One room thread's deliveries since its last flush, in call order. */
    private static final class Gathered {
        String[] targets;
        RenderedStanza[] rendered;
        XmlElement[] elements;
        Jid[] recipients;
        /** Non-zero: a re-delivery, with the delivered-id key it is written under (see redeliverGathered). */
        long[] keys;
        int size;
        final Map<String, Wire.RelayBuilder> relays = new HashMap<>();
        /** The room thread's releases so far: the next one runs after them. */
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        final java.util.concurrent.ExecutorService releaser;

        Gathered(java.util.concurrent.ExecutorService releaser) {
            this(releaser, 64);
        }

        private Gathered(java.util.concurrent.ExecutorService releaser, int capacity) {
            this.releaser = releaser;
            targets = new String[capacity];
            rendered = new RenderedStanza[capacity];
            elements = new XmlElement[capacity];
            recipients = new Jid[capacity];
            keys = new long[capacity];
        }

        /** Hands what was gathered to a new holder (to be released later) and starts afresh. */
        Gathered detach() {
            Gathered out = new Gathered(null, 0);
            out.targets = targets;
            out.rendered = rendered;
            out.elements = elements;
            out.recipients = recipients;
            out.keys = keys;
            out.size = size;
            int capacity = Math.max(64, Math.min(targets.length, 1024));
            targets = new String[capacity];
            rendered = new RenderedStanza[capacity];
            elements = new XmlElement[capacity];
            recipients = new Jid[capacity];
            keys = new long[capacity];
            size = 0;
            return out;
        }

        void add(String target, RenderedStanza r, XmlElement e, Jid recipient) {
            if (size == targets.length) {
                int n = size * 2;
                targets = Arrays.copyOf(targets, n);
                rendered = Arrays.copyOf(rendered, n);
                elements = Arrays.copyOf(elements, n);
                recipients = Arrays.copyOf(recipients, n);
                keys = Arrays.copyOf(keys, n);
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
                String target = targets[i];
                if (target == null) {
                    continue;
                }
                remote = true;
                if (keys[i] == 0) {
                    relays.computeIfAbsent(target, t -> new Wire.RelayBuilder()).add(rendered[i], recipients[i]);
                    continue;
                }
                // a re-delivery goes after what this run gathered for that node before it, and ahead of the rest
                Wire.RelayBuilder before = relays.get(target);
                if (before != null && !before.isEmpty()) {
                    node.sendRelay(target, before);
                    before.clear();
                }
                int to = 1;
                while (i + to < n && keys[i + to] == keys[i] && target.equals(targets[i + to])) {
                    to++;
                }
                node.sendRedelivery(target, keys[i], rendered[i], Arrays.asList(recipients).subList(i, i + to));
                i += to - 1;
            }
            if (remote) {
                for (Map.Entry<String, Wire.RelayBuilder> e : relays.entrySet()) {
                    if (!e.getValue().isEmpty()) {
                        node.sendRelay(e.getKey(), e.getValue());
                        e.getValue().clear();
                    }
                }
            }
            RenderedStanza remembered = null;
            long redelivery = 0;
            boolean redeliver = false;
            for (int i = 0; i < n; i++) {
                if (targets[i] == null) {
                    if (elements[i] != null) {
                        host.send(elements[i]);
                    } else if (keys[i] != 0) {
                        if (keys[i] != redelivery) {
                            // one decision per re-delivered message, for all its recipients here
                            redelivery = keys[i];
                            int to = 1;
                            while (i + to < n && keys[i + to] == redelivery && targets[i + to] == null) {
                                to++;
                            }
                            redeliver = node.firstDeliveryHere(redelivery, to);
                        }
                        if (redeliver) {
                            host.deliver(rendered[i], recipients[i]);
                        }
                    } else {
                        if (rendered[i] != remembered) {
                            // a broadcast's deliveries come in a run: one lookup per message, not per recipient
                            remembered = rendered[i];
                            node.deliveredHere(remembered);
                        }
                        host.deliver(rendered[i], recipients[i]);
                    }
                }
            }
            Arrays.fill(targets, 0, n, null);
            Arrays.fill(rendered, 0, n, null);
            Arrays.fill(elements, 0, n, null);
            Arrays.fill(recipients, 0, n, null);
            Arrays.fill(keys, 0, n, 0L);
            size = 0;
        }
    }
}
