package org.mucscale.engine.muc;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import org.mucscale.engine.stanza.Jid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One room thread's persistent-room writes (a room's configuration, subject and affiliations, or its deletion),
 * handed to the {@link RoomStoreWorkers} so that the room thread never waits for the database; every completion comes
 * back onto the room thread's queue as a command, so this object is touched by its room thread only (and by
 * {@link MucService#stop} after that thread ended).
 *
 * <p>What clients see: the room applies a change at once and answers at once (as Openfire does: its MUC keeps a
 * change in memory even when the database write fails); the write follows. Order per room: at most one write of a
 * room is in flight; changes made meanwhile wait behind it, and since each write carries the room's whole state, only
 * the newest waiting one is kept (an older one would be overwritten anyway). So a later write never overtakes an
 * earlier one, and a room recreated under the same address is written after the deletion of its predecessor.
 *
 * <p>Failures: a write the database has not confirmed within {@code mucscale.muc.room-store-timeout} is logged as an
 * error and counted, and the room goes on (the write still ends, or fails, when the database answers); a failed write
 * is retried with backoff (1 s doubling to 30 s) with the room's newest state, unless the data itself was refused
 * ({@link IllegalArgumentException}).
 */
final class RoomStoreHandOff {
    private static final Logger LOG = LoggerFactory.getLogger(RoomStoreHandOff.class);
    static final long RETRY_MIN_MS = 1_000;
    static final long RETRY_MAX_MS = 30_000;
    /** A completion that found its room thread's queue full tries again after this. */
    private static final long REPOST_MS = 10;

    /** One persisted change: the room's whole stored state, or its deletion ({@code state} null). */
    static final class Write {
        final Jid room;
        final StoredRoom state;
        /** Completed by the writer thread when the repository call returned or threw. */
        final CompletableFuture<Void> ended = new CompletableFuture<>();

        Write(Jid room, StoredRoom state) {
            this.room = room;
            this.state = state;
        }

        void applyTo(RoomRepository repository) {
            if (state == null) {
                repository.delete(room);
            } else {
                repository.save(state);
            }
        }

        String what() {
            return state == null ? "deletion" : "configuration, subject and affiliations";
        }
    }

    /** A room's writes: at most one in flight (or waiting for its retry), and the newest change waiting behind it. */
    private static final class Chain {
        Write inFlight;
        long startedNanos;
        ScheduledFuture<?> watchdog;
        boolean overdue;
        /** A failed write waits for its retry; nothing of this room runs meanwhile. */
        boolean backingOff;
        int failures;
        Write next;
    }

    private final RoomShard shard;
    private final RoomStoreWorkers workers;
    private final Map<Jid, Chain> chains = new HashMap<>();

    /** {@code workers} null: the service has no repository, writes are dropped here. */
    RoomStoreHandOff(RoomShard shard, RoomStoreWorkers workers) {
        this.shard = shard;
        this.workers = workers;
    }

    void save(StoredRoom state) {
        submit(new Write(state.room(), state));
    }

    void delete(Jid room) {
        submit(new Write(room, null));
    }

    /** Writes not yet confirmed (in flight, backing off or waiting), for tests and stop. */
    int unfinished() {
        return chains.size();
    }

    private void submit(Write w) {
        if (workers == null) {
            return;
        }
        Chain c = chains.computeIfAbsent(w.room, k -> new Chain());
        if (c.inFlight != null || c.backingOff) {
            c.next = w; // supersedes an older waiting change: each write holds the room's whole state
            return;
        }
        start(c, w);
    }

    private void start(Chain c, Write w) {
        c.inFlight = w;
        c.startedNanos = System.nanoTime();
        c.overdue = false;
        long timeoutMs = shard.ctx.config.roomStoreTimeoutMs;
        c.watchdog = workers.schedule(() -> post(s -> overdue(w)), timeoutMs);
        workers.write(w, failure -> post(s -> ended(w, failure)));
    }

    /** Room thread: the write has not ended within the timeout. */
    private void overdue(Write w) {
        Chain c = chains.get(w.room);
        if (c == null || c.inFlight != w) {
            return;
        }
        c.overdue = true;
        workers.overdue.incrementAndGet();
        shard.ctx.listener.roomStoreOverdue(w.room);
        LOG.error("mucscale: persistent room {}: the database has not confirmed its {} within {} ms"
                + " (mucscale.muc.room-store-timeout); the room goes on with the change in memory, and stores it and"
                + " any later change when the database answers", w.room, w.what(), elapsedMs(c));
    }

    /** Room thread: the repository call returned ({@code failure} null) or threw. */
    private void ended(Write w, Throwable failure) {
        Chain c = chains.get(w.room);
        if (c == null || c.inFlight != w) {
            return;
        }
        if (c.watchdog != null) {
            c.watchdog.cancel(false);
        }
        c.inFlight = null;
        if (failure == null) {
            if (c.overdue) {
                LOG.info("mucscale: persistent room {}: its {} was stored after {} ms", w.room, w.what(),
                        elapsedMs(c));
            }
            c.failures = 0;
            startNextOrForget(c, w.room);
            return;
        }
        c.failures++;
        shard.ctx.listener.roomStoreFailed(w.room);
        boolean storable = !(failure instanceof IllegalArgumentException);
        if (c.next == null && storable) {
            c.next = w;
        }
        if (c.next == null) {
            LOG.error("mucscale: persistent room {}: its {} cannot be stored and is not retried: {}", w.room,
                    w.what(), failure.toString());
            chains.remove(w.room);
            return;
        }
        long backoffMs = Math.min(RETRY_MAX_MS, RETRY_MIN_MS << Math.min(c.failures - 1, 16));
        LOG.error("mucscale: persistent room {}: its {} could not be stored ({}); the room keeps the change in"
                + " memory and writes its newest state again in {} ms", w.room, w.what(), failure.toString(),
                backoffMs);
        c.backingOff = true;
        if (workers.schedule(() -> post(s -> retry(w.room)), backoffMs) == null) {
            c.backingOff = false; // stopping: the stop's final pass writes c.next
        }
    }

    private void retry(Jid room) {
        Chain c = chains.get(room);
        if (c != null && c.backingOff) {
            c.backingOff = false;
            startNextOrForget(c, room);
        }
    }

    private void startNextOrForget(Chain c, Jid room) {
        Write next = c.next;
        c.next = null;
        if (next != null) {
            start(c, next);
        } else {
            chains.remove(room);
        }
    }

    /**
     * Onto this room thread's queue; never lost while the service runs: a full queue is tried again shortly (the
     * completions are few: one per write).
     */
    private void post(Consumer<RoomShard> task) {
        if (!shard.offer(new Command(task)) && workers.schedule(() -> post(task), REPOST_MS) == null) {
            LOG.debug("mucscale: room store completion dropped at stop (the stop writes what is left)");
        }
    }

    /** At stop (room thread ended): each room's write in flight (or null) and newest unwritten change (or null). */
    void leftOver(BiConsumer<Write, Write> inFlightAndNewest) {
        for (Chain c : chains.values()) {
            if (c.inFlight != null || c.next != null) {
                inFlightAndNewest.accept(c.inFlight, c.next);
            }
        }
    }

    private static long elapsedMs(Chain c) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - c.startedNanos);
    }
}
