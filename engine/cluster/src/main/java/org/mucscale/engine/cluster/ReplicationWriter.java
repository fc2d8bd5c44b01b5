package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one writer of a node's replicated state (group commit): room threads queue their flushes' changes; the
 * writer takes everything queued, merges it (a later image of a room replaces an earlier one; a put after a
 * removal of the same key revives it), writes it in one round (removals, tails, then images, so an image never
 * names tail records that are not there yet) and completes every flush's future. One writer means writes never
 * overtake each other, and under load one round carries many flushes.
 *
 * <p>Owner: its thread {@code mucscale-cluster-write} owns everything but the queue, which room threads fill under
 * its lock ({@link #submit}).
 */
final class ReplicationWriter implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationWriter.class);
    private final java.util.ArrayDeque<ReplicationBatch> queue = new java.util.ArrayDeque<>();
    private final Thread thread = new Thread(this, "mucscale-cluster-write");
    private final ClusterMap rooms;
    private final ClusterMap tails;
    private final ClusterMap occupants;
    private final ClusterMap directory;
    private final ClusterListener listener;
    /** How long a round waits after its first batch for more to write with it (the batch linger). */
    private final long lingerNanos;
    private boolean stopped;

    ReplicationWriter(long lingerNanos, ClusterMap rooms, ClusterMap tails, ClusterMap occupants, ClusterMap directory,
                      ClusterListener listener) {
        this.lingerNanos = lingerNanos;
        this.rooms = rooms;
        this.tails = tails;
        this.occupants = occupants;
        this.directory = directory;
        this.listener = listener;
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    CompletableFuture<Void> submit(ReplicationBatch b) {
        synchronized (queue) {
            if (stopped) {
                b.done.completeExceptionally(new IllegalStateException("the cluster node is stopped"));
                return b.done;
            }
            queue.add(b);
            queue.notifyAll();
        }
        return b.done;
    }

    @Override
    public void run() {
        while (true) {
            List<ReplicationBatch> taken = new ArrayList<>();
            synchronized (queue) {
                while (queue.isEmpty() && !stopped) {
                    try {
                        queue.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (queue.isEmpty()) {
                    return;
                }
                lingerForMore();
                taken.addAll(queue);
                queue.clear();
            }
            ReplicationBatch merged = new ReplicationBatch();
            long start = System.nanoTime();
            try {
                // inside the try: whatever fails, the taken batches complete and the writer goes on
                for (ReplicationBatch b : taken) {
                    merged.mergeLater(b);
                }
                listener.replicationRound(taken.size());
                if (!merged.roomRemovals.isEmpty()) {
                    rooms.removeAll(merged.roomRemovals);
                }
                if (!merged.tailRemovals.isEmpty()) {
                    tails.removeAll(merged.tailRemovals);
                }
                if (!merged.occupantRemovals.isEmpty()) {
                    occupants.removeAll(merged.occupantRemovals);
                }
                if (!merged.tailPuts.isEmpty()) {
                    tails.putAll(merged.tailPuts);
                }
                if (!merged.occupantPuts.isEmpty()) {
                    occupants.putAll(merged.occupantPuts);
                }
                if (!merged.roomPuts.isEmpty()) {
                    rooms.putAll(merged.roomPuts);
                }
                if (!merged.unlisted.isEmpty()) {
                    directory.removeAll(merged.unlisted);
                }
                if (!merged.listed.isEmpty()) {
                    directory.putAll(merged.listed);
                }
                for (ReplicationBatch b : taken) {
                    b.done.complete(null);
                }
            } catch (RuntimeException e) {
                for (ReplicationBatch b : taken) {
                    b.done.completeExceptionally(e);
                }
            }
            slowRound(start, taken.size(), merged.entries());
        }
    }

    /**
     * A round that took {@value #SLOW_ROUND_MS} ms or more is logged with when it started: every room thread's
     * deliveries wait behind it, so these lines are the replication part of a failover's timeline (a member that
     * died holds the rounds that touch its partitions until the cluster has removed it).
     */
    private void slowRound(long startNanos, int flushes, int entries) {
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        if (tookMs >= SLOW_ROUND_MS) {
            LOG.info("a replication round of {} entries ({} flushes) took {} ms, started at {}", entries, flushes,
                    tookMs, System.currentTimeMillis() - tookMs);
        }
    }

    static final long SLOW_ROUND_MS = 200;

    /** Holding the queue's lock, with something queued: lets the linger pass so later flushes join this round. */
    private void lingerForMore() {
        if (lingerNanos == 0) {
            return;
        }
        long deadline = System.nanoTime() + lingerNanos;
        for (long left = lingerNanos; left > 0 && !stopped; left = deadline - System.nanoTime()) {
            try {
                TimeUnit.NANOSECONDS.timedWait(queue, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    void stop() {
        synchronized (queue) {
            stopped = true;
            queue.notifyAll();
        }
    }
}
