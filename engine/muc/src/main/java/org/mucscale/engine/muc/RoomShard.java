package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

import org.mucscale.engine.stanza.Jid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One room thread ({@code mucscale-room-N}): the single writer of every room that hashes to it.
 *
 * <p>Design: transport threads {@link #offer} commands into a bounded {@link ManyToOneCommandQueue}; this thread
 * drains it and runs each command to completion, touching room state alone, so rooms need no locks and per-sender
 * order is the queue's order. Deliveries are made from this thread without any lock held. When the queue is empty the
 * thread parks; producers unpark it only when it announced it is parking (one volatile read per offer otherwise).
 * An exception in a command is counted and logged, never kills the loop. {@link #stop} drains what is queued, then
 * the thread ends.
 */
final class RoomShard implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(RoomShard.class);
    private static final long PARK_NS = 100_000_000L;
    /** Commands run between two {@link org.mucscale.engine.port.Delivery#flush}es while the queue never empties. */
    private static final int COMMANDS_PER_FLUSH = 16;

    final int index;
    final ServiceContext ctx;
    /** The content filter's view of every rendered text, for this shard's rooms (scratch state: this thread only). */
    final ContentInspection content;
    private final ManyToOneCommandQueue<Command> queue;
    /** Rooms owned by this shard; touched by this thread only. */
    final Map<Jid, Room> rooms = new HashMap<>();
    /** The same rooms by local name, for room administration's keyset pages (RoomAdminBridge); this thread only. */
    final java.util.TreeMap<String, Room> byName = new java.util.TreeMap<>();
    /** This thread's persistent-room writes, handed to the store's threads (never written on this thread). */
    final RoomStoreHandOff storeWrites;
    /** This thread's side of the rooms' archives (XEP-0313): access, parsing, and the hand-off to archive threads. */
    final RoomArchive archive;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean parked;
    private long failures;

    // Clustering (all touched by this thread only; empty and unused on a single node).
    /** Rooms whose state changed since the last flush, to be replicated before their deliveries go out. */
    private final List<Room> dirty = new ArrayList<>();
    /** Rooms removed since the last flush. */
    private final List<Jid> removed = new ArrayList<>();
    /** Messages accepted since the last flush, for the rooms' replicated tails. */
    private final List<TailRecord> tail = new ArrayList<>();
    /**
     * Rooms this node is taking over whose state has not arrived yet: their stanzas wait here, in arrival order, and
     * run once the room is adopted.
     */
    final Map<Jid, List<Command>> awaiting = new HashMap<>();
    /** Per room, the newest forward handled from each link (replicated with the tail; see {@link AcceptedMarks}). */
    final AcceptedMarks marks = new AcceptedMarks();
    /** Stanzas one awaited room holds at most; beyond, senders are told to retry. */
    static final int AWAITING_LIMIT = 10_000;

    RoomShard(int index, ServiceContext ctx, int queueCapacity) {
        this.index = index;
        this.ctx = ctx;
        this.content = new ContentInspection(ctx);
        this.queue = new ManyToOneCommandQueue<>(queueCapacity);
        this.storeWrites = new RoomStoreHandOff(this,
                ctx.repository == RoomRepository.NONE ? null : ctx.roomStoreWorkers);
        this.archive = new RoomArchive(this);
        this.thread = new Thread(this, "mucscale-room-" + index);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** From any thread; false when the queue is full (the caller answers with resource-constraint). */
    boolean offer(Command c) {
        if (!queue.offer(c)) {
            return false;
        }
        if (parked) {
            LockSupport.unpark(thread);
        }
        return true;
    }

    int queuedCommands() {
        return queue.size();
    }

    boolean isShardThread() {
        return Thread.currentThread() == thread;
    }

    @Override
    public void run() {
        int sinceFlush = 0;
        while (true) {
            Command c = queue.poll();
            if (c != null) {
                execute(c);
                if (++sinceFlush >= COMMANDS_PER_FLUSH) {
                    flushDeliveries();
                    sinceFlush = 0;
                }
                continue;
            }
            // the queue is empty: whatever the adapter gathered goes out now (smart batching: the busier the room
            // thread, the more deliveries share one hand-over)
            flushDeliveries();
            sinceFlush = 0;
            if (!running) {
                // drain once more after stop was requested, then end
                Command last = queue.poll();
                if (last == null) {
                    break;
                }
                execute(last);
                continue;
            }
            parked = true;
            if (queue.size() == 0 && running) {
                LockSupport.parkNanos(this, PARK_NS);
            }
            parked = false;
        }
    }

    void flushDeliveries() {
        replicate();
        try {
            ctx.delivery.flush();
        } catch (RuntimeException e) {
            failures++;
            LOG.warn("room thread " + index + ": the delivery adapter failed to flush", e);
        }
    }

    /** Runs a command now, on this thread (stanzas that waited for their room). */
    void runNow(Command c) {
        execute(c);
    }

    private void execute(Command c) {
        try {
            if (c.task != null) {
                c.task.accept(this);
            } else {
                handle(c);
            }
        } catch (RuntimeException | StackOverflowError e) {
            failures++;
            ctx.listener.stanzaRefused("internal-error");
            if (failures < 10 || Long.bitCount(failures) == 1) {
                LOG.warn("room thread " + index + " failed on a command (" + failures + " so far)", e);
            }
            if (c.stanza != null && !Stanzas.isError(c.stanza) && c.from != null) {
                try {
                    ctx.delivery.send(Stanzas.error(c.stanza, c.to, c.from, Stanzas.Condition.INTERNAL_SERVER_ERROR,
                            "the room could not handle this stanza"));
                } catch (RuntimeException ignored) {
                    // the delivery adapter reports its own failures
                }
            }
        }
    }

    private void handle(Command c) {
        Room room = rooms.get(c.roomJid);
        if (room == null) {
            List<Command> waiting = awaiting.get(c.roomJid);
            if (waiting != null) {
                if (waiting.size() < AWAITING_LIMIT) {
                    waiting.add(c);
                } else {
                    Room.reply(ctx, c, Stanzas.Condition.RESOURCE_CONSTRAINT,
                            "the room is moving to another node; try again shortly");
                }
                return;
            }
            if (!ctx.placement.servesHere(c.roomJid)) {
                // queued before the room moved to another node: it follows the room, saying which forward it continues
                ctx.placement.forward(c.roomJid, c.stanza, c.entryNode, c.hops + 1, c.resent, c.continues());
                return;
            }
            if (ctx.placement.arriving(c.roomJid)) {
                List<Command> held = new ArrayList<>();
                held.add(c);
                awaiting.put(c.roomJid, held);
                return;
            }
            room = Room.createOrRefuse(this, c);
            if (room == null) {
                return;
            }
        }
        if (c.origin != null && marks.covers(c.roomJid, c.origin)) {
            // handled already, here or by the owner the room's marks came from: re-delivered if its tail has it
            acceptedAlready(c, room);
            ctx.placement.resentDuplicateSkipped(c.roomJid);
            return;
        }
        if (c.resent && acceptedAlready(c, room)) {
            ctx.placement.resentDuplicateSkipped(c.roomJid); // the tail has it though the mark did not (it lagged)
            return;
        }
        room.handle(c);
        if (rooms.get(c.roomJid) == room) {
            marks.note(c.roomJid, c.origin); // a second resend of the same message is covered now
            marks.note(c.roomJid, c.link);
        }
        if (!acceptedBefore.isEmpty()) {
            rememberAccepted(c); // two nodes may resend one message (its entry node and a node whose view was behind)
        }
        if (ctx.replication.active() && changesState(c) && rooms.get(c.roomJid) == room) {
            markDirty(room);
        }
    }

    /** Whether a stanza may change what a room image holds (plain groupchat messages only add to the tail). */
    private static boolean changesState(Command c) {
        String name = c.stanza.name();
        String type = c.stanza.attribute("type");
        return switch (name) {
            case "presence" -> true;
            case "iq" -> "set".equals(type);
            case "message" -> !"groupchat".equals(type) ? c.stanza.child("x", Stanzas.NS_MUC_USER) != null
                    : c.stanza.child("subject") != null;
            default -> false;
        };
    }

    /**
     * Messages a room taken over from a departed owner had accepted (its replicated tail), by sender and stanza id, so
     * that the ones the departed owner accepted but never confirmed to their entry node, which that node sends again,
     * are not accepted twice. Those are exactly the messages whose relays may have died with the owner, so the first
     * resend of each is re-delivered as the owner rendered it ({@link RoomPlacement#redeliver}; nodes that had
     * delivered it drop it); the value is then cleared, and messages accepted here meanwhile have none (they were
     * delivered here). Kept a minute: resending happens right after the take-over.
     */
    private final Map<Jid, AcceptedBefore> acceptedBefore = new HashMap<>();

    private record AcceptedBefore(Map<String, TailRecord> keys, long untilNanos) {
    }

    void acceptedBefore(Jid room, List<TailRecord> tail) {
        Map<String, TailRecord> keys = new HashMap<>();
        for (TailRecord t : tail) {
            String id = t.message() == null ? null : t.message().attribute("id");
            if (t.realJid() != null && id != null) {
                keys.put(acceptedKey(t.realJid(), id), t);
            }
        }
        long now = ctx.clock.nanoTime();
        acceptedBefore.values().removeIf(a -> now - a.untilNanos() > 0);
        if (!keys.isEmpty()) {
            acceptedBefore.put(room, new AcceptedBefore(keys, now + ACCEPTED_BEFORE_NANOS));
        }
    }

    private static final long ACCEPTED_BEFORE_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(1);

    /** Whether a resent stanza was accepted already; the first resend of a departed owner's message is re-delivered. */
    private boolean acceptedAlready(Command c, Room room) {
        AcceptedBefore a = acceptedBefore.get(c.roomJid);
        String id = c.stanza.attribute("id");
        if (a == null || id == null || c.from == null) {
            return false;
        }
        if (ctx.clock.nanoTime() - a.untilNanos() > 0) {
            acceptedBefore.remove(c.roomJid);
            return false;
        }
        String key = acceptedKey(c.from, id);
        if (!a.keys().containsKey(key)) {
            return false;
        }
        TailRecord accepted = a.keys().put(key, null);
        if (accepted != null && accepted.message() != null) {
            ctx.placement.redeliver(c.roomJid, accepted.message(), room.replica.occupantAddresses());
        }
        return true;
    }

    private void rememberAccepted(Command c) {
        AcceptedBefore a = acceptedBefore.get(c.roomJid);
        String id = c.stanza.attribute("id");
        if (a != null && id != null && c.from != null && "message".equals(c.stanza.name())
                && "groupchat".equals(c.stanza.attribute("type"))) {
            a.keys().put(acceptedKey(c.from, id), null);
        }
    }

    private static String acceptedKey(Jid sender, String id) {
        return sender + "\u0000" + id;
    }

    void markDirty(Room room) {
        if (!room.dirty) {
            room.dirty = true;
            dirty.add(room);
        }
    }

    void addTail(TailRecord record) {
        tail.add(record);
    }

    /**
     * Hands this run's changes to the replication (which holds the run's deliveries until they are written). Returns
     * the write, or null when nothing changed.
     */
    java.util.concurrent.CompletableFuture<Void> replicate() {
        List<AcceptedMark> changedMarks = marks.takeChanged(r -> {
            Room room = rooms.get(r);
            return room == null ? -1 : room.messages.tailSeq();
        });
        if (dirty.isEmpty() && removed.isEmpty() && tail.isEmpty() && changedMarks.isEmpty()) {
            return null;
        }
        List<RoomImage> images = new ArrayList<>(dirty.size());
        for (Room r : dirty) {
            r.dirty = false;
            if (rooms.get(r.jid) == r) {
                images.add(r.replica.image());
            }
        }
        dirty.clear();
        try {
            return ctx.replication.replicate(images, List.copyOf(removed), List.copyOf(tail), changedMarks);
        } catch (RuntimeException e) {
            failures++;
            LOG.warn("room thread " + index + ": replicating room state failed", e);
            return null;
        } finally {
            removed.clear();
            tail.clear();
        }
    }

    /** How long {@link #replicateNow} holds the room thread for a write at most. */
    static final long REPLICATE_NOW_WAIT_SECONDS = 30;

    /** Replicates now and waits for the write (before a room leaves this node, so its image is complete). */
    void replicateNow() {
        java.util.concurrent.CompletableFuture<Void> write = replicate();
        if (write != null) {
            try {
                write.get(REPLICATE_NOW_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                LOG.warn("room thread " + index + ": replicating room state before a hand-off failed: " + e);
            }
        }
    }

    void addRoom(Room room) {
        rooms.put(room.jid, room);
        byName.put(room.jid.local(), room);
        ctx.roomCount.incrementAndGet();
        ctx.populationChanged();
    }

    void removeRoom(Room room) {
        if (rooms.remove(room.jid) != null) {
            byName.remove(room.jid.local());
            releaseCreator(room);
            ctx.roomCount.decrementAndGet();
            ctx.directory.remove(room.jid);
            ctx.populationChanged();
            marks.forget(room.jid);
            if (ctx.replication.active()) {
                removed.add(room.jid);
            }
        }
    }

    /**
     * Removes a room that moves to another node: nobody is told (its occupants stay joined; the new owner serves
     * them). Its state must have been replicated first ({@link #replicateNow}).
     */
    void detachRoom(Room room) {
        if (rooms.remove(room.jid) != null) {
            byName.remove(room.jid.local());
            releaseCreator(room);
            ctx.roomCount.decrementAndGet();
            ctx.occupantCount.addAndGet(-room.occupantCount());
            ctx.directory.remove(room.jid);
            ctx.populationChanged();
            marks.forget(room.jid);
        }
    }

    /** The room no longer counts against its creator's {@code max-rooms-per-user}. */
    private void releaseCreator(Room room) {
        if (room.createdBy != null) {
            ctx.userLimits.releaseRoom(room.createdBy);
            room.createdBy = null;
        }
    }

    void requestStop() {
        running = false;
        LockSupport.unpark(thread);
    }

    boolean join(long millis) throws InterruptedException {
        thread.join(millis);
        return !thread.isAlive();
    }

    Thread thread() {
        return thread;
    }
}
