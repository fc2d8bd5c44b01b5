package org.mucscale.engine.cluster;

import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay writer: writes relays from other nodes, and this node's re-deliveries, to this node's sessions through the
 * host's delivery, on one thread that flushes after each run (so the host's batched writes apply to relayed
 * deliveries too). A barrier ({@link #barrier}) completes once everything queued before it is written: the take-over
 * waits for it so that a dead owner's relays reach sessions before the new owner's deliveries (invariant I6,
 * docs/cluster-protocol.md). Re-deliveries and relays of crashed nodes are written only where new
 * ({@link DeliveredIds}: I5, at most once).
 *
 * <p>Owner: its thread {@code mucscale-cluster-relay-in} owns the writes; any thread enqueues (the queue is
 * concurrent); {@code host} is set once before start.
 */
final class RelayWriter implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(RelayWriter.class);
    /**
     * Relays built here and re-deliveries ({@link Wire.Relay}), relays of other nodes ({@link FromNode}) and barriers
     * ({@link CompletableFuture}), in arrival order.
     */
    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(65_536);
    volatile Delivery host;
    private final Thread thread = new Thread(this, "mucscale-cluster-relay-in");
    private final DeliveredIds delivered;
    /** The cluster thread's nodes that left without announcing it (read here; see ClusterNode's note). */
    private final Set<String> crashedNodes;
    private final ClusterListener listener;
    private final AtomicLong lateFromDeparted = new AtomicLong();

    RelayWriter(DeliveredIds delivered, Set<String> crashedNodes, ClusterListener listener) {
        this.delivered = delivered;
        this.crashedNodes = crashedNodes;
        this.listener = listener;
        thread.setDaemon(true);
    }

    /** A relay another node sent; {@code late}: its node had crashed and its link was forgotten. */
    private record FromNode(String node, Wire.Relay relay, boolean late) {
    }
    private final LongAdder dropped = new LongAdder();
    private volatile boolean running = true;

    void start() {
        thread.start();
    }

    /** A relay built here, or a re-delivery (its key decides where it is written). */
    void offer(Wire.Relay r) {
        enqueue(r);
    }

    /** A relay another node sent (a RELAY in its link's order). */
    void offerFrom(String fromNode, Wire.Relay relay) {
        enqueue(new FromNode(fromNode, relay, false));
    }

    /** A relay of a crashed node's run that arrived after its link was forgotten: written only where new. */
    void offerLate(String fromNode, Wire.Relay relay) {
        enqueue(new FromNode(fromNode, relay, true));
    }

    /** Relays waiting to be written. */
    int backlog() {
        return queue.size();
    }

    /** Counts (and logs, sparsely) a message of a crashed node's run that came after it left. */
    void countLateFromDeparted(String fromNode, int kind, int kept) {
        listener.lateFromDeparted(kept);
        long n = lateFromDeparted.incrementAndGet();
        if (n <= 10 || Long.bitCount(n) == 1) {
            LOG.info("a message from crashed node {} arrived after it had left (kind {}, {} messages written where "
                    + "not yet delivered; {} so far)", fromNode, kind, kept, n);
        }
    }

    private void enqueue(Object r) {
        if (!queue.offer(r)) {
            dropped.increment();
            if (Long.bitCount(dropped.sum()) == 1) {
                LOG.warn("relay backlog full: {} relays from other nodes dropped so far", dropped.sum());
            }
        }
    }

    /**
     * Completes once every relay queued before it is written and flushed to the host (at once if the writer is
     * not running or its queue is full: nothing more can be promised then).
     */
    CompletableFuture<Void> barrier() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!running || !thread.isAlive() || !queue.offer(done)) {
            done.complete(null);
        }
        return done;
    }

    @Override
    public void run() {
        while (running) {
            try {
                Object item = queue.poll(100, TimeUnit.MILLISECONDS);
                if (item == null) {
                    continue;
                }
                Delivery h = host;
                do {
                    if (item instanceof Wire.Relay r) {
                        write(h, r);
                    } else if (item instanceof FromNode in) {
                        if (in.late() || crashedNodes.contains(in.node())) {
                            writeWhereNew(h, in.node(), in.relay());
                        } else {
                            write(h, in.relay());
                        }
                    } else {
                        // everything before the barrier is handed to the host before anyone is told so
                        h.flush();
                        ((CompletableFuture<?>) item).complete(null);
                    }
                    item = queue.poll();
                } while (item != null);
                h.flush();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.warn("writing a relay failed", e);
            }
        }
    }

    /**
     * A relay of a node that crashed, taken after the view switch (or arriving after its link was forgotten,
     * {@code ClusterNode.lateFromDeparted}): each groupchat message is written only if this node has not written it (the
     * take-over may have re-delivered it); presences and the like are dropped, as the room's new owner has the
     * current state.
     */
    private void writeWhereNew(Delivery h, String fromNode, Wire.Relay r) {
        int kept = 0;
        for (int s = 0; s < r.stanzas().length; s++) {
            long key = DeliveredIds.keyOf(r.stanzas()[s]);
            if (key == 0) {
                continue;
            }
            kept++;
            if (!delivered.add(key)) {
                listener.redeliveredAlreadyHad();
                continue;
            }
            int n = 0;
            for (int i = 0; i < r.recipients().length; i++) {
                if (r.stanzaIndex()[i] == s) {
                    h.deliver(r.stanzas()[s], r.recipients()[i]);
                    n++;
                }
            }
            listener.redelivered(n);
        }
        countLateFromDeparted(fromNode, Wire.RELAY, kept);
    }

    private void write(Delivery h, Wire.Relay r) {
        if (r.redeliveryKey() != 0) {
            if (delivered.add(r.redeliveryKey())) {
                for (Jid recipient : r.recipients()) {
                    h.deliver(r.stanzas()[0], recipient);
                }
                listener.redelivered(r.recipients().length);
            } else {
                listener.redeliveredAlreadyHad();
            }
            return;
        }
        for (RenderedStanza s : r.stanzas()) {
            long key = DeliveredIds.keyOf(s);
            if (key != 0) {
                delivered.add(key);
            }
        }
        long latency = ClusterNode.nowMicros() - r.sentMicros();
        for (int i = 0; i < r.recipients().length; i++) {
            h.deliver(r.stanzas()[r.stanzaIndex()[i]], r.recipients()[i]);
        }
        listener.relayReceived(r.recipients().length, Math.max(0, latency));
    }

    void stop() {
        running = false;
        thread.interrupt();
        for (Object item : queue) {
            if (item instanceof CompletableFuture<?> f) {
                f.complete(null);
            }
        }
    }
}
