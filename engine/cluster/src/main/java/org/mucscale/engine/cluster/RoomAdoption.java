package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.mucscale.engine.muc.AcceptedMark;
import org.mucscale.engine.muc.GoneSessions;
import org.mucscale.engine.muc.MucService;
import org.mucscale.engine.muc.RoomImage;
import org.mucscale.engine.muc.TailRecord;
import org.mucscale.engine.stanza.Jid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rooms this node starts holding from the replicated maps: the take-over of the rooms of owners that crashed (with
 * the rooms stanzas asked for first), a room handed over (HANDOFF), and a room whose wait for a hand-off ended. Serves
 * I1 (no empty room for a room another node had: stanzas for a room being taken over wait on its room thread until it
 * is adopted), I6 (the relay writer has written what the previous owner relayed before the room delivers from here,
 * bounded by {@code handoff-timeout}), I5 and I7 through what adoption hands the room (tail, trusted accepted mark,
 * departed occupants), and L1 (a take-over that fails is closed, held stanzas are let go, retried on the tick);
 * docs/cluster-protocol.md sections 2 and 6 ("Take-over record", "Relay-writer barrier before adoption").
 *
 * <p>State and owners. {@code takeover} (the record of the take-over under way, null otherwise) is guarded by
 * {@code takeoverLock}, a leaf lock: opened and closed on the cluster thread, its {@code held} set added to by room
 * threads ({@link #holds}); its {@code adopted} set is the cluster thread's only. {@code heldToRelease}: added to by the
 * cluster thread when a room thread cannot take a release, drained by the cluster thread's tick ({@link #retryReleases}).
 * {@code failovers} and {@code lastFailoverMillis}: written by the cluster thread, read by any (figures). Everything
 * else here runs on the cluster thread, the map reads on the read pool.
 */
final class RoomAdoption {
    private static final Logger LOG = LoggerFactory.getLogger(RoomAdoption.class);

    private final String local;
    private final Supplier<MucService> muc;
    private final StateReads stateReads;
    /** Reads of a take-over that run side by side (the scan of the room map). */
    private final ExecutorService reads;
    private final RelayWriter relayIn;
    private final ReplicatedRooms replicated;
    /** ClusterNode's crashed nodes (read only here): their sessions' occupants leave as crashed. */
    private final Set<String> crashedNodes;
    /** A room that could not be adopted now: awaited again with a past deadline, so the tick adopts it. */
    private final Consumer<Jid> retryFromMaps;
    private final long handoffTimeoutNanos;
    private final ClusterListener listener;
    private final LongAdder failovers = new LongAdder();
    private volatile long lastFailoverMillis = -1;

    RoomAdoption(String local, Supplier<MucService> muc, StateReads stateReads, ExecutorService reads,
                 RelayWriter relayIn, ReplicatedRooms replicated, Set<String> crashedNodes,
                 Consumer<Jid> retryFromMaps, long handoffTimeoutNanos, ClusterListener listener) {
        this.local = local;
        this.muc = muc;
        this.stateReads = stateReads;
        this.reads = reads;
        this.relayIn = relayIn;
        this.replicated = replicated;
        this.crashedNodes = crashedNodes;
        this.retryFromMaps = retryFromMaps;
        this.handoffTimeoutNanos = handoffTimeoutNanos;
        this.listener = listener;
    }

    /** Opens the take-over of {@code crashed}'s rooms (cluster thread, before the view switch). */
    void begin(View old, Set<String> crashed) {
        synchronized (takeoverLock) {
            takeover = new Takeover(old, crashed);
        }
    }

    /**
     * Whether a stanza for {@code room} (on its room thread) is to wait for the take-over under way; if so, the room
     * is named in the take-over's held rooms, so it is adopted first.
     */
    boolean holds(Jid room, View now) {
        synchronized (takeoverLock) {
            Takeover t = takeover;
            if (t != null && t.covers(room, local, now)) {
                t.held().add(room);
                return true;
            }
        }
        return false;
    }

    /** On the tick: lets go the stanzas of rooms whose room thread could not take that before. */
    void retryReleases() {
        if (!heldToRelease.isEmpty()) {
            List<Jid> again = new ArrayList<>(heldToRelease);
            heldToRelease.removeAll(again);
            again.forEach(this::releaseHeld);
        }
    }

    long failovers() {
        return failovers.sum();
    }

    /** Milliseconds the last take-over of a dead node's rooms took on this node (-1: none yet). */
    long lastFailoverMillis() {
        return lastFailoverMillis;
    }

    /**
     * The rooms of owners that died, from before the view switch until they are taken over (on the cluster thread,
     * within {@code ClusterNode.onView}): a stanza that reaches a room thread for one of them meanwhile waits there
     * ({@code ClusterNode.arriving}), and the room is named in {@link Takeover#held}.
     */
    record Takeover(View old, Set<String> crashed, Set<Jid> held, Set<Jid> startedWithoutState,
                            Set<Jid> adopted) {
        Takeover(View old, Set<String> crashed) {
            this(old, crashed, new HashSet<>(), new HashSet<>(), new HashSet<>()); // adopted: cluster thread only
        }

        /** Rooms started without state are not held again: their stanzas run as a new room's. */
        boolean covers(Jid room, String local, View now) {
            return !startedWithoutState.contains(room) && local.equals(now.owner(room))
                    && crashed.contains(Rendezvous.owner(room.toString(), old.members()));
        }
    }

    private final Object takeoverLock = new Object();
    /** Guarded by takeoverLock; null when no take-over is under way. */
    private Takeover takeover;

    /**
     * On the cluster thread, right after the switch to {@code next}: takes over the rooms that {@code crashed} owned
     * under {@code old} and this node owns now. Which rooms those are takes a scan of the room map, which waits while
     * Hazelcast promotes the dead member's backups; so while it runs, the rooms that stanzas already asked for (held
     * on their room threads, see {@code ClusterNode.arriving}) are adopted as they come, and the scan's other rooms after it.
     * Then the take-over is closed and what was asked for in between is adopted too (rooms with no replicated
     * state, new ones, start empty).
     */
    void takeOver(View old, View next, Set<String> crashed, Set<String> departedSessions, long viewStartMillis) {
        long start = System.currentTimeMillis();
        CompletableFuture<List<Jid>> scan = CompletableFuture.supplyAsync(() -> {
            List<Jid> found = new ArrayList<>();
            Set<String> keys = stateReads.roomKeys();
            if (keys == null) {
                throw new IllegalStateException("the room map could not be read"); // reported below
            }
            for (String key : keys) {
                Jid room = Jid.tryParse(key);
                if (room != null && local.equals(next.owner(room))
                        && crashed.contains(Rendezvous.owner(key, old.members()))) {
                    found.add(room);
                }
            }
            return found;
        }, reads);
        Set<Jid> adopted;
        synchronized (takeoverLock) {
            adopted = takeover.adopted();
        }
        int early = 0;
        while (true) {
            List<Jid> asked;
            synchronized (takeoverLock) {
                asked = new ArrayList<>(takeover.held());
            }
            asked.removeAll(adopted);
            if (!asked.isEmpty()) {
                adoptFromMaps(asked, true, departedSessions);
                adopted.addAll(asked);
                early += asked.size();
            } else if (!scan.isDone()) {
                try {
                    scan.get(5, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    // look for rooms asked for meanwhile
                } catch (Exception e) {
                    break; // reported below
                }
            }
            if (scan.isDone() && asked.isEmpty()) {
                break;
            }
        }
        long scanned = System.currentTimeMillis();
        List<Jid> rest = new ArrayList<>();
        try {
            rest.addAll(scan.join());
        } catch (RuntimeException e) {
            LOG.error("could not list the replicated rooms; taking over only those that receive stanzas", e);
        }
        rest.removeAll(adopted);
        adoptFromMaps(rest, true, departedSessions);
        adopted.addAll(rest);
        List<Jid> late;
        synchronized (takeoverLock) {
            late = new ArrayList<>(takeover.held());
            takeover = null;
        }
        late.removeAll(adopted);
        adoptFromMaps(late, true, departedSessions);
        adopted.addAll(late);
        failovers.add(adopted.size());
        long end = System.currentTimeMillis();
        lastFailoverMillis = end - viewStartMillis;
        LOG.info("took over {} rooms of departed node(s) {} in {} ms after the switch ({} asked for by stanzas while "
                + "the room list was read, in {} ms; rooms {}) at {}", adopted.size(), crashed, end - start, early,
                scanned - start, adopted.size() <= 10 ? adopted : adopted.size() + " rooms", end);
    }

    /**
     * A take-over that failed part way is closed, so no room's stanzas wait for it for good: the rooms whose stanzas
     * it held and had not adopted yet are adopted from the maps (or, if that fails too, start without their state).
     */
    void abandonTakeover(RuntimeException e) {
        Takeover t;
        synchronized (takeoverLock) {
            t = takeover;
            takeover = null;
        }
        if (t == null) {
            return;
        }
        List<Jid> waiting = new ArrayList<>(t.held());
        waiting.removeAll(t.adopted());
        LOG.error("taking over the rooms of {} failed; adopting the {} rooms whose stanzas wait for it", t.crashed(),
                waiting.size(), e);
        try {
            adoptFromMaps(waiting, true, null);
        } catch (RuntimeException again) {
            LOG.error("adopting them failed too; they start without their replicated state", again);
            waiting.forEach(this::releaseHeld); // a room adopted meanwhile has nothing waiting
        }
    }

    /** Rooms whose held stanzas could not be let go yet (their room thread's queue stayed full): ClusterNode's tick retries. */
    private final Set<Jid> heldToRelease = ConcurrentHashMap.newKeySet();

    /** Lets the stanzas held for {@code room} run; if its room thread cannot take that now, the tick tries again. */
    private void releaseHeld(Jid room) {
        try {
            muc.get().stopAwaiting(room);
        } catch (RuntimeException e) {
            heldToRelease.add(room);
            LOG.warn("could not let the stanzas held for {} run yet; trying again: {}", room, e.toString());
        }
    }

    /**
     * Reads images and tails of {@code list} from the maps and adopts them (rooms with no image start empty).
     * {@code departedNodes}: occupants whose sessions were on these nodes (as the image says) are removed with 333.
     */
    void adoptFromMaps(List<Jid> list, boolean failover, Set<String> departedNodes) {
        if (list.isEmpty()) {
            return;
        }
        // what the rooms' previous owner relayed here before it left must reach this node's sessions before anything
        // the rooms deliver from here: the relay writer is a thread of its own, so wait (while the maps are read) until
        // it has written what it holds now
        CompletableFuture<Void> relaysWritten = relayIn.barrier();
        List<String> keys = new ArrayList<>(list.size());
        for (Jid room : list) {
            keys.add(ReplicatedRooms.roomKey(room));
        }
        List<String> tailKeys = new ArrayList<>();
        for (Jid room : list) {
            replicated.addTailKeys(room, tailKeys);
        }
        StateReads.Read read = stateReads.read(list, keys, tailKeys);
        if (read == null) {
            // unreadable for longer than the state-read timeout: the rooms start here as rooms with no image do
            awaitRelaysWritten(relaysWritten, list.size());
            list.forEach(this::startWithoutState);
            return;
        }
        Map<String, byte[]> images = read.images();
        Map<String, byte[]> occupantBytes = read.occupantEntries();
        Map<String, byte[]> tailBytes = read.tailRecords();
        Map<Jid, int[]> slotsByRoom = read.slotsByRoom();
        Map<Jid, List<TailRecord>> tailsByRoom = new HashMap<>();
        Map<Jid, AcceptedMark> marksByRoom = new HashMap<>();
        for (Jid room : list) {
            byte[] b = tailBytes.get(ReplicatedRooms.markKey(room));
            if (b != null) {
                try {
                    marksByRoom.put(room, RoomImages.decodeMark(b));
                } catch (RuntimeException e) {
                    LOG.warn("skipping the unreadable accepted mark of {}: {}", room, e.getMessage());
                }
            }
        }
        for (Map.Entry<String, byte[]> entry : tailBytes.entrySet()) {
            if (entry.getKey().endsWith("#a")) {
                continue;
            }
            byte[] b = entry.getValue();
            try {
                TailRecord t = RoomImages.decodeTail(b);
                tailsByRoom.computeIfAbsent(t.room(), r -> new ArrayList<>()).add(t);
            } catch (RuntimeException e) {
                LOG.warn("skipping an unreadable tail record: {}", e.getMessage());
            }
        }
        awaitRelaysWritten(relaysWritten, list.size());
        for (Jid room : list) {
            byte[] b = images.get(ReplicatedRooms.roomKey(room));
            if (b == null) {
                startWithoutState(room);
                continue;
            }
            RoomImage image;
            try {
                image = RoomImages.decodeImage(b);
            } catch (RuntimeException e) {
                LOG.error("the replicated state of {} cannot be read; the room starts empty here: {}", room,
                        e.getMessage());
                startWithoutState(room);
                continue;
            }
            image = replicated.withOccupants(image, slotsByRoom.get(room), occupantBytes);
            List<TailRecord> t = tailsByRoom.getOrDefault(room, new ArrayList<>());
            t.sort(Comparator.comparingLong(TailRecord::seq));
            long newestTail = Math.max(image.tailSeq(), t.isEmpty() ? 0 : t.get(t.size() - 1).seq());
            replicated.sawTail(room, newestTail);
            AcceptedMark mark = replicated.markTrusted(marksByRoom.get(room), t, newestTail);
            GoneSessions gone = null;
            if (departedNodes != null) {
                Map<Jid, String> goneHere = new HashMap<>();
                for (RoomImage.OccupantImage o : image.occupants()) {
                    if (o.node() != null && departedNodes.contains(o.node())) {
                        goneHere.put(o.realJid(), o.node());
                    }
                }
                gone = new GoneSessions(goneHere::containsKey, u -> !crashedNodes.contains(goneHere.get(u)));
            }
            CompletableFuture<Integer> adopted;
            try {
                adopted = muc.get().adopt(image, t, mark, failover, gone);
            } catch (RuntimeException e) {
                // its room thread cannot take it now (queue full): the tick adopts it from the maps again
                retryFromMaps.accept(room);
                LOG.warn("could not adopt {} on its room thread yet; trying again: {}", room, e.toString());
                continue;
            }
            listener.adopted(failover);
            if (failover) {
                adopted.thenAccept(waited -> LOG.info("took over {} on its room thread; {} stanzas that waited for "
                        + "it ran, at {}", room, waited, System.currentTimeMillis()));
            }
        }
    }

    /**
     * Lets the stanzas held for {@code room} run as a new room's (it has no replicated state, or none that could be
     * read). Marked first, so a take-over under way does not hold the replayed stanzas again: they would wait for good.
     */
    private void startWithoutState(Jid room) {
        synchronized (takeoverLock) {
            if (takeover != null) {
                takeover.startedWithoutState().add(room);
            }
        }
        releaseHeld(room);
    }

    /**
     * Waits for {@code written} (the relay writer's barrier), at most the hand-off timeout: a relay writer that far
     * behind is not waited for longer (logged), so a take-over is never held up for good.
     */
    private void awaitRelaysWritten(CompletableFuture<Void> written, int rooms) {
        long start = System.nanoTime();
        try {
            written.get(handoffTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            LOG.warn("{} relays from other nodes were still unwritten after {} ms; adopting {} rooms anyway (their "
                    + "earlier messages may reach this node's occupants after newer ones)", relayIn.backlog(),
                    TimeUnit.NANOSECONDS.toMillis(handoffTimeoutNanos), rooms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            LOG.warn("waiting for the relay writer failed: {}", e.getCause().toString());
        }
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (waitedMs >= 100) {
            LOG.info("waited {} ms for relays already received to be written before adopting {} rooms", waitedMs,
                    rooms);
        }
    }
}
