package org.mucscale.engine.muc;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that run archive queries against the database ({@code mucscale-archive-1..N}), shared by every room
 * thread so that none waits for the database. The queue is bounded ({@code mucscale.muc.archive-queue}): a query
 * beyond it is refused at once (resource-constraint) rather than queued without end. Threads start with the first
 * query, idle ones end after a minute, and {@link #stop} ends them all.
 */
final class ArchiveWorkers {
    private final ThreadPoolExecutor pool;

    ArchiveWorkers(int threads, int queue) {
        AtomicInteger n = new AtomicInteger();
        pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queue), r -> {
            Thread t = new Thread(r, "mucscale-archive-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
    }

    /** False when the queue is full or the service is stopping. */
    boolean submit(Runnable query) {
        try {
            pool.execute(query);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    void stop() {
        pool.shutdownNow();
        try {
            pool.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
