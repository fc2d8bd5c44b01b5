package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.mucscale.engine.stanza.Jid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads of the replicated room state when rooms come to this node (a take-over or a hand-off). A read that fails is
 * tried again, backing off, for up to {@code mucscale.cluster.state-read-timeout}: Hazelcast's reads can fail while it
 * promotes a dead member's backups, and inside Openfire while its caches are swapped. After that the caller gets null
 * and starts the rooms without their state, so no room's stanzas wait on its room thread for good. Nothing is retried
 * once {@code closed} says the node is closing or its own member is gone (then no read can succeed again).
 */
final class StateReads {
    private static final Logger LOG = LoggerFactory.getLogger(StateReads.class);
    private static final long FIRST_PAUSE_MS = 50;
    private static final long LONGEST_PAUSE_MS = 1_000;

    /** The state of some rooms as read at once: images, slot lists per room, the occupants they name, tail records. */
    record Read(Map<String, byte[]> images, Map<Jid, int[]> slotsByRoom, Map<String, byte[]> occupantEntries,
                Map<String, byte[]> tailRecords) {
    }

    private final ClusterMap rooms;
    private final ClusterMap tails;
    private final ClusterMap occupants;
    private final Executor parallel;
    private final long timeoutNanos;
    private final ClusterListener listener;
    private final BooleanSupplier closed;

    StateReads(ClusterMap rooms, ClusterMap tails, ClusterMap occupants, Executor parallel, long timeoutNanos,
               ClusterListener listener, BooleanSupplier closed) {
        this.rooms = rooms;
        this.tails = tails;
        this.occupants = occupants;
        this.parallel = parallel;
        this.timeoutNanos = timeoutNanos;
        this.listener = listener;
        this.closed = closed;
    }

    /** Every key of the room map; null if it could not be read within the timeout. */
    Set<String> roomKeys() {
        return retrying("the list of replicated rooms", rooms::keys);
    }

    /**
     * The state of {@code list} ({@code roomKeys} and {@code tailKeys} are their keys); null if it could not be read
     * within the timeout (counted per room).
     */
    Read read(List<Jid> list, List<String> roomKeys, List<String> tailKeys) {
        Read read = retrying("the replicated state of " + list.size() + " rooms", () -> readOnce(list, roomKeys, tailKeys));
        if (read == null) {
            listener.stateReadGivenUp(list.size());
        }
        return read;
    }

    /** The three reads at once: right after a member died each may wait for partitions being promoted. */
    private Read readOnce(List<Jid> list, List<String> roomKeys, List<String> tailKeys) {
        CompletableFuture<Map<String, byte[]>> tailRead = CompletableFuture.supplyAsync(
                () -> tailKeys.isEmpty() ? Map.of() : tails.getAll(tailKeys), parallel);
        Map<Jid, int[]> slotsByRoom = new ConcurrentHashMap<>();
        CompletableFuture<Map<String, byte[]>> occupantRead = CompletableFuture.supplyAsync(
                () -> readOccupants(list, slotsByRoom), parallel);
        try {
            Map<String, byte[]> images = rooms.getAll(roomKeys);
            return new Read(images, slotsByRoom, occupantRead.join(), tailRead.join());
        } finally {
            // a failed attempt's other reads end before the next attempt starts its own
            CompletableFuture.allOf(tailRead, occupantRead).exceptionally(e -> null).join();
        }
    }

    /** Reads the slot lists of {@code list} into {@code slotsByRoom}, and the occupant entries they name. */
    private Map<String, byte[]> readOccupants(List<Jid> list, Map<Jid, int[]> slotsByRoom) {
        List<String> slotKeys = new ArrayList<>(list.size());
        for (Jid room : list) {
            slotKeys.add(OccupantSlots.slotsKey(room));
        }
        Map<String, byte[]> slotBytes = occupants.getAll(slotKeys);
        List<String> keys = new ArrayList<>();
        for (Jid room : list) {
            byte[] b = slotBytes.get(OccupantSlots.slotsKey(room));
            if (b == null) {
                continue;
            }
            try {
                int[] slots = RoomImages.decodeSlots(b);
                slotsByRoom.put(room, slots);
                for (int s : slots) {
                    keys.add(OccupantSlots.occupantKey(room, s));
                }
            } catch (RuntimeException e) {
                LOG.error("the occupant list of {} cannot be read; the room is taken over without occupants: {}", room,
                        e.getMessage());
            }
        }
        return keys.isEmpty() ? Map.of() : occupants.getAll(keys);
    }

    private <T> T retrying(String what, Supplier<T> attempt) {
        long start = System.nanoTime();
        long pauseMs = FIRST_PAUSE_MS;
        for (int attempts = 1; ; attempts++) {
            try {
                T result = attempt.get();
                if (attempts > 1) {
                    LOG.info("read {} at attempt {}, {} ms after the first", what, attempts,
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                }
                return result;
            } catch (RuntimeException e) {
                listener.stateReadFailed();
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                long elapsedNanos = System.nanoTime() - start;
                if (closed.getAsBoolean()) {
                    LOG.warn("could not read {}: this node is closing or its cluster member is gone; going on "
                            + "without it: {}", what, cause.toString());
                    return null;
                }
                if (elapsedNanos + TimeUnit.MILLISECONDS.toNanos(pauseMs) > timeoutNanos) {
                    LOG.error("could not read {} in {} attempts over {} ms (mucscale.cluster.state-read-timeout); "
                            + "going on without it", what, attempts, TimeUnit.NANOSECONDS.toMillis(elapsedNanos), cause);
                    return null;
                }
                LOG.warn("reading {} failed (attempt {}); trying again in {} ms: {}", what, attempts, pauseMs,
                        cause.toString());
                try {
                    Thread.sleep(pauseMs);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return null;
                }
                pauseMs = Math.min(pauseMs * 2, LONGEST_PAUSE_MS);
            }
        }
    }
}
