package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Messages to other nodes, gathered per node for up to a linger and sent as one {@link Wire#batch}
 * ({@code mucscale.cluster.batch-linger}).
 *
 * <p>Why: a send costs the host far more than its bytes. Inside Openfire each one is a cluster task through
 * Hazelcast's executor service (a request, a response, a task object each way): measured, about a quarter of a
 * millisecond of CPU over both nodes (docs/benchmarks/cluster.md, (e2)), while a relay, a forward or a confirmation
 * is a few hundred bytes. Gathering what is
 * under way to one node for a few milliseconds turns several sends into one, at up to the linger of added latency
 * between nodes. A linger of 0 sends every message at once, on the caller's thread, as before (no thread, no lock).
 *
 * <p>Order: the engine numbers messages per link and restores their order on arrival ({@link OrderedLinks}), so a
 * batch needs no header of its own and may overtake, or be overtaken by, another one. Within a batch messages keep
 * the order they were given in. {@link #sendNow} sends what waits for that node together with its own message, so a
 * hand-off or a leave is never held back by the linger.
 *
 * <p>Concurrency: {@link #send} from any thread; one lock per destination node, held only to add or take messages;
 * the host's send happens outside it. One daemon thread ends lingers. A batch is capped at {@value #MAX_BATCH_BYTES}
 * bytes: the message that reaches it sends the batch at once.
 */
final class Outbox implements AutoCloseable {
    static final int MAX_BATCH_BYTES = 256 * 1024;

    private final ClusterTransport transport;
    private final ClusterListener listener;
    private final long lingerNanos;
    /** Null when the linger is 0: nothing is gathered. */
    private final ScheduledExecutorService timer;
    private final ConcurrentHashMap<String, Pending> pending = new ConcurrentHashMap<>();
    private volatile boolean closed;

    Outbox(ClusterTransport transport, long lingerNanos, ClusterListener listener) {
        this.transport = Objects.requireNonNull(transport);
        this.listener = Objects.requireNonNull(listener);
        if (lingerNanos < 0) {
            throw new IllegalArgumentException("linger must not be negative: " + lingerNanos);
        }
        this.lingerNanos = lingerNanos;
        if (lingerNanos == 0) {
            timer = null;
        } else {
            ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
                Thread th = new Thread(r, "mucscale-cluster-outbox");
                th.setDaemon(true);
                return th;
            });
            t.setRemoveOnCancelPolicy(true);
            // at close, lingers still waiting are dropped (close sends their messages itself); a running flush is not
            t.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            timer = t;
        }
    }

    /** Sends {@code message} to {@code node} within the linger, together with whatever else goes there by then. */
    void send(String node, byte[] message) {
        if (timer == null || closed) {
            sendOne(node, message);
            return;
        }
        Pending p = pending.computeIfAbsent(node, Pending::new);
        List<byte[]> full = null;
        boolean arm;
        synchronized (p) {
            arm = p.messages.isEmpty();
            p.add(message);
            if (p.bytes >= MAX_BATCH_BYTES) {
                full = p.take();
                arm = false;
            }
        }
        if (full != null) {
            sendAll(node, full);
        } else if (arm) {
            try {
                timer.schedule(() -> flush(p), lingerNanos, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                flush(p); // closed meanwhile
            }
        }
    }

    /** Sends what waits for {@code node} and then {@code message}, now, in one send. */
    void sendNow(String node, byte[] message) {
        Pending p = timer == null ? null : pending.get(node);
        if (p == null) {
            sendOne(node, message);
            return;
        }
        List<byte[]> all;
        synchronized (p) {
            p.add(message);
            all = p.take();
        }
        sendAll(node, all);
    }

    /** Sends everything waiting, to every node, now. */
    void flushAll() {
        pending.values().forEach(this::flush);
    }

    /**
     * Sends what waits and stops gathering: later messages go out at once. Returns once every batch taken before it
     * has been handed to the transport, a linger's flush that was sending right then included (waited for, at most
     * {@value #CLOSE_WAIT_MS} ms, not interrupted), so a caller that stops the transport next loses nothing.
     */
    @Override
    public void close() {
        closed = true;
        flushAll();
        if (timer != null) {
            timer.shutdown();
            try {
                timer.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        flushAll(); // anything added while the first flush ran
    }

    static final long CLOSE_WAIT_MS = 5_000;

    private void flush(Pending p) {
        List<byte[]> all;
        synchronized (p) {
            if (p.messages.isEmpty()) {
                return;
            }
            all = p.take();
        }
        sendAll(p.node, all);
    }

    private void sendAll(String node, List<byte[]> all) {
        if (all.size() == 1) {
            sendOne(node, all.get(0));
            return;
        }
        int total = 0;
        for (byte[] m : all) {
            total += m.length;
        }
        transport.send(node, Wire.batch(all, total));
        listener.sent(all.size());
    }

    private void sendOne(String node, byte[] message) {
        transport.send(node, message);
        listener.sent(1);
    }

    /** What waits for one node. Guarded by itself. */
    private static final class Pending {
        final String node;
        List<byte[]> messages = new ArrayList<>();
        int bytes;

        Pending(String node) {
            this.node = node;
        }

        void add(byte[] m) {
            messages.add(m);
            bytes += m.length;
        }

        List<byte[]> take() {
            List<byte[]> all = messages;
            messages = new ArrayList<>();
            bytes = 0;
            return all;
        }
    }
}
