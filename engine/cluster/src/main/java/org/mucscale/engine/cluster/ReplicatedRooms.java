package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.mucscale.engine.muc.AcceptedMark;
import org.mucscale.engine.muc.RoomImage;
import org.mucscale.engine.muc.TailRecord;
import org.mucscale.engine.stanza.Jid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The layout of the replicated maps ({@code rooms}, {@code tails}, {@code occupants}, {@code directory}) and this
 * node's writes to them: turns a room thread's run (changed images, removed rooms, tail records, accepted marks) into
 * one {@link ReplicationBatch} for the {@link ReplicationWriter}, and turns what a take-over or hand-off read back into
 * an image to adopt. Serves I3 (replicate before deliver: the run's write is handed to its flush, {@link #takeWrite})
 * and I5's accepted-mark rule ({@link #markTrusted}); docs/cluster-protocol.md.
 *
 * <p>State and owners. {@code lastWrite}: per room thread (a ThreadLocal), set by {@link #replicate} and taken by the
 * same thread's flush. {@code tailSeqs} and {@code occupantSlots}: one entry per room, written by the room thread that
 * holds the room ({@link #replicate}) and by the cluster thread while the room is on no room thread here (seeded at
 * adoption before the room thread gets it, dropped at a hand-off after its release): so one writer per entry at any
 * time, the hand-over between them ordered by the adopt and release tasks (cluster-protocol.md section 7, "smaller
 * observations"). Concurrent maps, as the rooms of different threads share them.
 */
final class ReplicatedRooms {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedRooms.class);

    private final ReplicationWriter writer;
    private final int tailSlots;
    private final long replicationTimeoutMs;
    private final ClusterListener listener;
    /** Per room served here: which occupant is in which slot, and what was written last. */
    private final ConcurrentHashMap<Jid, OccupantSlots> occupantSlots = new ConcurrentHashMap<>();
    /** Newest tail sequence number written per room, so a removed room's tail slots can be freed. */
    private final ConcurrentHashMap<Jid, Long> tailSeqs = new ConcurrentHashMap<>();

    ReplicatedRooms(ReplicationWriter writer, int tailSlots, long replicationTimeoutMs, ClusterListener listener) {
        this.writer = writer;
        this.tailSlots = tailSlots;
        this.replicationTimeoutMs = replicationTimeoutMs;
        this.listener = listener;
    }

    /** The last write each room thread started, which its next flush's deliveries wait for. */
    private final ThreadLocal<CompletableFuture<Void>> lastWrite = new ThreadLocal<>();

    /** A room thread's run's changes as one write (its future also kept for {@link #takeWrite}). */
    CompletableFuture<Void> replicate(List<RoomImage> changed, List<Jid> removed, List<TailRecord> tail,
                                      List<AcceptedMark> marks) {
        long start = System.nanoTime();
        ReplicationBatch batch = new ReplicationBatch();
        for (Jid room : removed) {
            // records are numbered from 1; free the slots of the newest min(seq, slots), or all if seq is unknown
            Long seq = tailSeqs.remove(room);
            long newest = seq == null ? tailSlots : seq;
            List<String> slots = new ArrayList<>();
            for (long s = Math.max(1, newest - tailSlots + 1); s <= newest; s++) {
                slots.add(tailKey(room, s));
            }
            slots.add(markKey(room));
            batch.remove(roomKey(room), slots);
            batch.unlist(roomKey(room));
            OccupantSlots os = occupantSlots.remove(room);
            if (os != null) {
                os.removeAll(batch.occupantChanges);
            }
        }
        for (TailRecord t : tail) {
            batch.putTail(tailKey(t.room(), t.seq()), RoomImages.encode(t));
            tailSeqs.merge(t.room(), t.seq(), Math::max);
        }
        for (AcceptedMark mark : marks) {
            // in the tails map, so it costs no round of its own; it may land before or after the round's tail records,
            // which is why a take-over checks it against the tail it read (markTrusted)
            batch.putTail(markKey(mark.room()), RoomImages.encode(mark));
        }
        for (RoomImage image : changed) {
            occupantSlots.computeIfAbsent(image.room(), OccupantSlots::new).diff(image.occupants(),
                    batch.occupantChanges);
            batch.putRoom(roomKey(image.room()), RoomImages.encode(new RoomImage(image.config(), image.persistent(),
                    image.locked(), image.presenceBroadcastRoles(), image.subjectMessage(), List.of(),
                    image.tailSeq())));
            if (image.config().isPublic() && !image.locked()) {
                String name = image.config().name();
                batch.list(roomKey(image.room()), (name == null || name.isEmpty() ? image.room().local() : name)
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            } else {
                batch.unlist(roomKey(image.room()));
            }
            tailSeqs.merge(image.room(), image.tailSeq(), Math::max);
        }
        int entries = batch.entries();
        int bytes = batch.bytes;
        CompletableFuture<Void> write = writer.submit(batch)
                .orTimeout(replicationTimeoutMs, TimeUnit.MILLISECONDS)
                .handle((ok, failure) -> {
                    boolean late = failure != null;
                    if (late) {
                        Throwable cause = failure instanceof java.util.concurrent.CompletionException c
                                && c.getCause() != null ? c.getCause() : failure;
                        LOG.warn("replicating room state {}; delivering anyway",
                                cause instanceof TimeoutException ? "took longer than " + replicationTimeoutMs + " ms"
                                        : "failed: " + cause);
                    }
                    listener.replicated(entries, bytes, System.nanoTime() - start, late);
                    return null;
                });
        lastWrite.set(write);
        return write;
    }

    /** The write the calling room thread started last (null: none since the last call). */
    CompletableFuture<Void> takeWrite() {
        CompletableFuture<Void> w = lastWrite.get();
        if (w != null) {
            lastWrite.remove();
        }
        return w;
    }

    static String roomKey(Jid room) {
        return room.toString();
    }

    String tailKey(Jid room, long seq) {
        return room + "#" + Math.floorMod(seq, tailSlots);
    }

    /** The key of a room's accepted mark in the tails map (tail slots are numbers, so it meets none of them). */
    static String markKey(Jid room) {
        return room + "#a";
    }

    /** Every tail slot key of {@code room} and its mark's key, added to {@code keys} (what an adoption reads). */
    void addTailKeys(Jid room, List<String> keys) {
        for (long s = 0; s < tailSlots; s++) {
            keys.add(tailKey(room, s));
        }
        keys.add(markKey(room));
    }

    /** The room moved away (cluster thread, after its release): its next owner starts from what is in the map. */
    void forget(Jid room) {
        occupantSlots.remove(room);
    }

    /** An adopted room's newest tail record (cluster thread, before its room thread has it). */
    void sawTail(Jid room, long newestTail) {
        tailSeqs.merge(room, newestTail, Math::max);
    }

    /**
     * The mark, if the tail read holds every record up to the one the mark was written with, as far back as the ring
     * still keeps them: mark and tail records of one round land in no particular order (a write cut short as its member
     * dies can leave any of them out), and a mark whose round lost a tail record covers a message nobody may have
     * received, which would be skipped and could not be re-delivered. Untrusted, the take-over falls back to the tail's
     * (sender, id), as before marks.
     */
    AcceptedMark markTrusted(AcceptedMark mark, List<TailRecord> tail, long newestTail) {
        if (mark == null) {
            return null;
        }
        long upTo = mark.tailSeq();
        Set<Long> present = new HashSet<>();
        for (TailRecord r : tail) {
            present.add(r.seq());
        }
        // newer records than the mark's reuse the oldest slots of its window
        for (long s = Math.max(1, Math.max(newestTail, upTo) - tailSlots + 1); s <= upTo; s++) {
            if (!present.contains(s)) {
                LOG.info("the accepted mark of {} (up to tail record {}) misses tail record {}; not used", mark.room(),
                        upTo, s);
                return null;
            }
        }
        return mark;
    }

    /** The image with its occupants as stored in their slots; seeds this node's slot state for the room. */
    RoomImage withOccupants(RoomImage head, int[] slots, Map<String, byte[]> occupantBytes) {
        Jid room = head.room();
        OccupantSlots os = new OccupantSlots(room);
        occupantSlots.put(room, os);
        if (slots == null) {
            return head;
        }
        List<RoomImage.OccupantImage> bySlot = new ArrayList<>(slots.length);
        List<RoomImage.OccupantImage> present = new ArrayList<>(slots.length);
        for (int s : slots) {
            byte[] b = occupantBytes.get(OccupantSlots.occupantKey(room, s));
            RoomImage.OccupantImage o = null;
            if (b != null) {
                try {
                    o = RoomImages.decodeOccupant(b);
                    present.add(o);
                } catch (RuntimeException e) {
                    LOG.warn("skipping an unreadable occupant of {}: {}", room, e.getMessage());
                }
            }
            bySlot.add(o);
        }
        os.seed(slots, bySlot);
        return new RoomImage(head.config(), head.persistent(), head.locked(), head.presenceBroadcastRoles(),
                head.subjectMessage(), present, head.tailSeq());
    }
}
