package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.mucscale.engine.stanza.Jid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads that write persistent rooms to the {@link RoomRepository} ({@code mucscale-room-store-1..2}) and the
 * timer that watches them ({@code mucscale-room-store-timer}), shared by every room thread, so that no room thread
 * ever waits for the database.
 *
 * <p>Rooms hand their writes over through their shard's {@link RoomStoreHandOff}, which keeps at most one write per
 * room in flight: the writers' queue therefore holds at most one task per persistent room, and is not otherwise
 * bounded. A writer runs a write to its end (the repository's own timeouts bound it: pool wait, query timeout); the
 * room is told when it ends, and separately when it has not ended within {@code mucscale.muc.room-store-timeout}.
 * Threads start on the first write (a service without a repository starts none) and end at {@link #stop}.
 */
final class RoomStoreWorkers {
    private static final Logger LOG = LoggerFactory.getLogger(RoomStoreWorkers.class);
    static final int WRITER_THREADS = 2;

    private final RoomRepository repository;
    private final ThreadPoolExecutor writers;
    private final ScheduledThreadPoolExecutor timer;
    private volatile boolean stopping;
    private final java.util.Set<CompletableFuture<Void>> otherWork = java.util.concurrent.ConcurrentHashMap.newKeySet();

    final AtomicLong stored = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong overdue = new AtomicLong();

    RoomStoreWorkers(RoomRepository repository) {
        this.repository = repository;
        AtomicInteger n = new AtomicInteger();
        this.writers = new ThreadPoolExecutor(WRITER_THREADS, WRITER_THREADS, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> daemon(r, "mucscale-room-store-" + n.incrementAndGet()));
        this.writers.allowCoreThreadTimeOut(true);
        this.timer = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "mucscale-room-store-timer"));
        this.timer.setRemoveOnCancelPolicy(true);
        this.timer.setKeepAliveTime(60, TimeUnit.SECONDS);
        this.timer.allowCoreThreadTimeOut(true);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Runs the write on a writer thread, then {@code done} there with null or what it threw. */
    void write(RoomStoreHandOff.Write w, Consumer<Throwable> done) {
        try {
            writers.execute(() -> done.accept(run(w)));
        } catch (RejectedExecutionException e) {
            // stopping: the stop's final pass writes what is left
        }
    }

    private Throwable run(RoomStoreHandOff.Write w) {
        Throwable failure = null;
        try {
            w.applyTo(repository);
            stored.incrementAndGet();
        } catch (RuntimeException | Error e) {
            failed.incrementAndGet();
            failure = e;
        } finally {
            w.ended.complete(null);
        }
        return failure;
    }

    /**
     * Runs other store work (a moderator's retraction) on a writer thread; false once stopping. {@link #stop} waits
     * for what was accepted, within its timeout, so a retraction is handed to the log before the log closes.
     */
    boolean execute(Runnable task) {
        if (stopping) {
            return false;
        }
        CompletableFuture<Void> ended = new CompletableFuture<>();
        otherWork.add(ended);
        try {
            writers.execute(() -> {
                try {
                    task.run();
                } finally {
                    otherWork.remove(ended);
                    ended.complete(null);
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            otherWork.remove(ended);
            return false;
        }
    }

    /** Runs {@code task} on the timer after {@code delayMs}; null once stopping. */
    ScheduledFuture<?> schedule(Runnable task, long delayMs) {
        if (stopping) {
            return null;
        }
        try {
            return timer.schedule(task, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    boolean stopping() {
        return stopping;
    }

    /**
     * At stop, after every room thread ended: writes each room's newest unwritten change (after its write in flight
     * ended), waits for all of it at most {@code timeoutMs}, then interrupts the writers and logs, room by room, what
     * could not be stored. Returns the rooms whose newest state is not known to be stored.
     */
    List<Jid> stop(List<RoomStoreHandOff> handOffs, long timeoutMs) {
        stopping = true;
        timer.shutdownNow();
        List<CompletableFuture<Void>> last = new ArrayList<>();
        List<Jid> rooms = new ArrayList<>();
        for (RoomStoreHandOff h : handOffs) {
            h.leftOver((inFlight, newest) -> {
                rooms.add(newest != null ? newest.room : inFlight.room);
                CompletableFuture<Void> before = inFlight == null ? CompletableFuture.completedFuture(null)
                        : inFlight.ended;
                last.add(newest == null ? before : before.handle((v, t) -> null).thenRunAsync(() -> {
                    Throwable failure = run(newest);
                    if (failure != null) {
                        LOG.error("mucscale: at stop, persistent room {} could not be stored: {}", newest.room,
                                failure.toString());
                    }
                }, writers));
            });
        }
        List<Jid> notStored = new ArrayList<>();
        List<CompletableFuture<Void>> others = new ArrayList<>(otherWork);
        try {
            CompletableFuture.allOf(others.toArray(new CompletableFuture<?>[0])).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.error("mucscale: at stop, {} retractions were not handed to the room log within {} ms", others.size(),
                    timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            // each task logs its own failure
        }
        try {
            CompletableFuture.allOf(last.toArray(new CompletableFuture<?>[0])).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            for (int i = 0; i < last.size(); i++) {
                if (!last.get(i).isDone()) {
                    notStored.add(rooms.get(i));
                }
            }
            LOG.error("mucscale: at stop, the database did not confirm the newest state of {} persistent rooms within"
                    + " {} ms (mucscale.muc.room-store-timeout); abandoned, they keep their previously stored state: {}",
                    notStored.size(), timeoutMs, notStored);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            // each write reports its own failure
        }
        writers.shutdownNow();
        try {
            timer.awaitTermination(1, TimeUnit.SECONDS);
            if (!writers.awaitTermination(1, TimeUnit.SECONDS)) {
                LOG.warn("mucscale: a persistent-room writer is still blocked in the database after stop;"
                        + " it is a daemon thread and ends with the database call");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return notStored;
    }
}
