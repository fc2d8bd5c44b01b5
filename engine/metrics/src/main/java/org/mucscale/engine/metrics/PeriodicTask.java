package org.mucscale.engine.metrics;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One named daemon thread running a task at a fixed rate, stopped completely by {@link #close()}: the executor is
 * shut down and its worker thread joined, because a terminated executor's thread can still be alive for a moment, and a
 * plugin reload must leave no thread of ours behind.
 */
final class PeriodicTask implements AutoCloseable {
    private static final long STOP_WAIT_MS = 5_000;

    private final String name;
    private final ScheduledExecutorService executor;
    private volatile Thread worker;

    PeriodicTask(String name, Runnable task, long periodNs) {
        this.name = name;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            worker = t;
            return t;
        });
        executor.scheduleAtFixedRate(task, periodNs, periodNs, TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            boolean stopped = executor.awaitTermination(STOP_WAIT_MS, TimeUnit.MILLISECONDS);
            Thread t = worker;
            if (t != null) {
                t.join(STOP_WAIT_MS);
                stopped &= !t.isAlive();
            }
            if (!stopped) {
                org.slf4j.LoggerFactory.getLogger(PeriodicTask.class).warn("{} did not stop within {} ms", name, STOP_WAIT_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
