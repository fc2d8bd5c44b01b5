package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.port.Clock;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The multi-user chat service (XEP-0045) of one domain, e.g. {@code muc.example.org}: host-independent, driven by a
 * transport (the XEP-0114 component or the Openfire adapter).
 *
 * <pre>{@code
 * MucService muc = MucService.builder("muc.example.org", MucConfig.from(settings), delivery)
 *         .clock(Clock.SYSTEM).inspector(filter).logSink(store).repository(rooms).listener(metrics).build();
 * muc.start();
 * muc.process(stanza);   // from any transport thread, for stanzas addressed to the service or one of its rooms
 * muc.stop();            // tells occupants (status 332), drains, joins every thread
 * }</pre>
 *
 * <p>Threading (design note): {@link #process} runs on the caller's thread only long enough to parse the addresses,
 * answer service-level queries (disco, ping) and put the stanza on the queue of the room thread that owns the room
 * ({@code Math.floorMod(roomJid.hashCode(), shards)}); it never blocks and never throws. A full queue is answered at
 * once with {@code resource-constraint} (type wait). Each room is read and written only by its room thread
 * ({@link RoomShard}), which also makes the deliveries, with no lock held. A sender's stanzas to one room keep their
 * order because they go through one queue. Service-wide state (the public-room directory, population counters) is in
 * concurrent structures written by room threads and read by transport threads (eventually consistent).
 *
 * <p>Outbound stanzas go to {@link Delivery}: broadcasts are rendered once and delivered with
 * {@link Delivery#deliver(org.mucscale.engine.stanza.RenderedStanza, Jid)} per occupant; single stanzas with
 * {@link Delivery#send(XmlElement)}. The {@code from} of inbound stanzas must be the sender's full JID.
 *
 * <p>Clustered (the builder's {@code cluster(placement, replication)}, see the cluster module), a stanza for a room that
 * another node serves is handed to {@link RoomPlacement#forward} instead of a room thread, and room threads record what
 * changed for {@link RoomReplication} at each flush; alone, both ports are no-ops.
 */
public final class MucService {
    private static final Logger LOG = LoggerFactory.getLogger(MucService.class);
    private static final long STOP_WAIT_MS = 5_000;

    private final ServiceContext ctx;
    private final InboundChecks checks;
    private final ServiceQueries serviceQueries;
    /** Keeps the room-administration actor's answers inside the engine (see {@link RoomAdminBridge}). */
    private final AdminReplies adminReplies;
    private final RoomShard[] shards;
    private final AtomicInteger state = new AtomicInteger(NEW);
    private static final int NEW = 0;
    private static final int RUNNING = 1;
    private static final int STOPPED = 2;

    /** The service with no filter, log, repository or metrics. */
    public MucService(String serviceDomain, MucConfig config, Delivery delivery, Clock clock) {
        this(builder(serviceDomain, config, delivery).clock(clock));
    }

    private MucService(Builder b) {
        Jid service = Jid.parse(b.serviceDomain);
        if (!service.isBare() || service.local() != null) {
            throw new IllegalArgumentException("the MUC service address must be a domain, was " + b.serviceDomain);
        }
        adminReplies = new AdminReplies(b.delivery);
        ctx = new ServiceContext(service, b.config, adminReplies, b.clock, b.inspector, b.logSink, b.repository,
                b.listener, b.placement, b.replication);
        checks = new InboundChecks(ctx);
        serviceQueries = new ServiceQueries(ctx);
        ctx.archiveSource = b.archive;
        ctx.archiveWorkers = new ArchiveWorkers(b.config.archiveThreads, b.config.archiveQueue);
        shards = new RoomShard[b.config.shardThreads];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = new RoomShard(i, ctx, b.config.commandQueueCapacity);
        }
    }

    public static Builder builder(String serviceDomain, MucConfig config, Delivery delivery) {
        return new Builder(serviceDomain, config, delivery);
    }

    /** The service's address. */
    public Jid serviceJid() {
        return ctx.serviceJid;
    }

    /** Loads persistent rooms from the repository and starts the room threads. */
    public void start() {
        if (!state.compareAndSet(NEW, RUNNING)) {
            throw new IllegalStateException("the MUC service can be started once");
        }
        for (StoredRoom stored : ctx.repository.loadAll()) {
            Jid room = InboundChecks.normalizeRoom(stored.room());
            if (room == null || !room.domain().equals(ctx.serviceJid.domain())) {
                LOG.warn("skipping stored room " + stored.room() + ": not a room of " + ctx.serviceJid);
                continue;
            }
            // before the threads start: Thread.start() publishes these rooms to their shard threads
            Room.restore(shardOf(room), stored);
        }
        for (RoomShard s : shards) {
            s.start();
        }
    }

    /**
     * Stops accepting stanzas, tells every occupant their room is going away (status 332), drains the queues and
     * joins the room threads (waiting at most 5 s each). No thread of the service survives.
     */
    public void stop() {
        int before = state.getAndSet(STOPPED);
        if (before != RUNNING) {
            return;
        }
        for (RoomShard s : shards) {
            Command shutdown = new Command(shard -> {
                for (Room r : new ArrayList<>(shard.rooms.values())) {
                    r.shutdown();
                }
            });
            if (!s.offer(shutdown)) {
                LOG.warn("room thread " + s.index + " queue full at stop; occupants are not told about the stop");
            }
            s.requestStop();
        }
        for (RoomShard s : shards) {
            try {
                if (!s.join(STOP_WAIT_MS)) {
                    LOG.warn(s.thread().getName() + " did not stop within " + STOP_WAIT_MS + " ms; interrupting");
                    s.thread().interrupt();
                    s.join(STOP_WAIT_MS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        ctx.archiveWorkers.stop();
        RoomStoreWorkers workers = ctx.roomStoreWorkers;
        if (workers != null) {
            List<RoomStoreHandOff> handOffs = new ArrayList<>();
            for (RoomShard s : shards) {
                handOffs.add(s.storeWrites);
            }
            // the room threads have ended (joined above), so their hand-offs are read here safely
            workers.stop(handOffs, ctx.config.roomStoreTimeoutMs);
        }
    }

    /** Persistent-room writes the database did not confirm within {@code mucscale.muc.room-store-timeout}, so far. */
    public long roomStoreOverdue() {
        RoomStoreWorkers w = ctx.roomStoreWorkers;
        return w == null ? 0 : w.overdue.get();
    }

    /**
     * Applies a new configuration while running. Settings marked dynamic take effect for the next stanza each room
     * handles (room defaults apply to rooms created afterwards); the others keep their running values, and their keys
     * are returned so the host can say a restart is needed.
     */
    public List<String> reconfigure(MucConfig next) {
        Objects.requireNonNull(next, "next");
        MucConfig running = ctx.config;
        List<String> restart = running.restartNeededFor(next);
        ctx.config = running.withDynamicValuesOf(next);
        return restart;
    }

    public boolean isRunning() {
        return state.get() == RUNNING;
    }

    /** Rooms in existence now (eventually consistent). */
    public int roomCount() {
        return ctx.roomCount.get();
    }

    /** Occupants of all rooms now (eventually consistent). */
    public int occupantCount() {
        return ctx.occupantCount.get();
    }

    /** Commands waiting in the room threads' queues now (approximate; a gauge for metrics). */
    public int queuedCommands() {
        int n = 0;
        for (RoomShard s : shards) {
            n += s.queuedCommands();
        }
        return n;
    }

    /** Number of room threads. */
    public int shardCount() {
        return shards.length;
    }

    /**
     * Handles one stanza addressed to the service or to a room. Safe from any thread; never blocks for long, never
     * throws: bad input gets an XMPP error reply (a stanza without a usable {@code from} is counted and dropped,
     * since there is nobody to answer).
     */
    public void process(XmlElement stanza) {
        process(stanza, null, 0, false);
    }

    /**
     * Handles a stanza another node of the cluster forwarded here (the room's owner): as {@link #process}, with the
     * node where it entered the cluster and how often it has been forwarded (a room that moved again is followed, a
     * few times at most).
     */
    public void processForwarded(XmlElement stanza, String entryNode, int hops) {
        process(stanza, entryNode, hops, false);
    }

    /**
     * As {@link #processForwarded(XmlElement, String, int)}; {@code resent}: the entry node sent it again because the
     * room's previous owner left before confirming it, so it is skipped if the room's replicated tail already holds it
     * (same sender, same stanza id).
     */
    public void processForwarded(XmlElement stanza, String entryNode, int hops, boolean resent) {
        process(stanza, entryNode, hops, resent, null, null);
    }

    /**
     * As {@link #processForwarded(XmlElement, String, int, boolean)}, from the cluster: {@code link} is the forward that
     * brought it (which the room's accepted marks record), {@code origin} the earlier forward it repeats or continues,
     * or null: a room whose marks cover {@code origin} skips it (see {@link Forwarded}).
     */
    public void processForwarded(XmlElement stanza, String entryNode, int hops, boolean resent, Forwarded link,
                                 Forwarded origin) {
        process(stanza, entryNode, hops, resent, link, origin);
    }

    private void process(XmlElement stanza, String entryNode, int hops, boolean resent) {
        process(stanza, entryNode, hops, resent, null, null);
    }

    private void process(XmlElement stanza, String entryNode, int hops, boolean resent, Forwarded link,
                         Forwarded origin) {
        long arrivalNs = ctx.clock.nanoTime();
        try {
            route(stanza, arrivalNs, entryNode, hops, resent, link, origin);
        } catch (RuntimeException e) {
            ctx.listener.stanzaRefused("internal-error");
            LOG.warn("could not handle a stanza", e);
            try {
                Jid from = Jid.tryParse(stanza.attribute("from"));
                if (from != null && !Stanzas.isError(stanza)) {
                    ctx.delivery.send(Stanzas.error(stanza, ctx.serviceJid, from, Condition.INTERNAL_SERVER_ERROR,
                            "the service could not handle this stanza"));
                }
            } catch (RuntimeException ignored) {
                // nothing more can be done for this stanza
            }
        }
    }

    /** A stanza forwarded this often is refused rather than forwarded again (the nodes disagree for a moment). */
    private static final int MAX_HOPS = 4;

    private void route(XmlElement stanza, long arrivalNs, String entryNode, int hops, boolean resent, Forwarded link,
                       Forwarded origin) {
        String kind = stanza.name();
        Jid from = checks.sender(stanza);
        if (from == null) {
            return;
        }
        boolean isError = Stanzas.isError(stanza);
        Jid to = checks.admit(stanza, from, isError, state.get() == RUNNING);
        if (to == null) {
            return;
        }
        if (to.local() == null) {
            if (to.resource() == null) {
                serviceQueries.answer(stanza, from, to);
            } else if (!isError && kind.equals("iq")) {
                sendError(stanza, to, from, Condition.SERVICE_UNAVAILABLE, null);
            }
            return;
        }
        Jid room = InboundChecks.normalizeRoom(to);
        if (room == null) {
            if (!isError) {
                sendError(stanza, to, from, Condition.JID_MALFORMED,
                        "the room address is not valid");
            }
            return;
        }
        place(stanza, from, to, room, arrivalNs, entryNode, hops, resent, link, origin, isError);
    }

    /** Where a checked stanza for {@code room} goes: on to the room's owner, or to its room thread here. */
    private void place(XmlElement stanza, Jid from, Jid to, Jid room, long arrivalNs, String entryNode, int hops,
                       boolean resent, Forwarded link, Forwarded origin, boolean isError) {
        RoomPlacement placement = ctx.placement;
        if (entryNode == null && placement.enteringMayWait() && placement.holdEntering(room,
                () -> place(stanza, from, to, room, arrivalNs, null, hops, resent, link, origin, isError))) {
            return; // entered here for a room on its way from a leaving node, which still passes on earlier ones
        }
        if (!placement.servesHere(room)) {
            if (hops < MAX_HOPS) {
                placement.forward(room, stanza, entryNode, hops + 1, resent, origin != null ? origin : link);
            } else if (!isError) {
                ctx.listener.stanzaRefused("room-moving");
                sendError(stanza, to, from, Condition.RESOURCE_CONSTRAINT,
                        "the room is moving between nodes; try again shortly");
            }
            return;
        }
        placement.sessionSeen(from, entryNode);
        RoomShard shard = shardOf(room);
        if (!shard.offer(new Command(stanza, from, to, room, arrivalNs, entryNode, hops, resent, link, origin))) {
            ctx.listener.commandQueueFull(shard.index);
            if (!isError) {
                sendError(stanza, to, from, Condition.RESOURCE_CONSTRAINT,
                        "the chat service is overloaded; try again shortly");
            }
        }
    }

    /** An error to a stanza's sender from {@code errorFrom}, unless the sender is over its error budget. */
    private void sendError(XmlElement stanza, Jid errorFrom, Jid to, Condition condition, String text) {
        Room.sendError(ctx, stanza, errorFrom, to, null, condition, text);
    }

    private RoomShard shardOf(Jid room) {
        return shards[Math.floorMod(room.hashCode(), shards.length)];
    }

    // ---------------------------------------------------------------------------------------- clustering

    /**
     * The addresses of the rooms on this node now (read on each room thread). For the cluster layer: which rooms to
     * hand over when the cluster's view changes.
     */
    public List<Jid> localRooms() {
        List<Jid> out = new ArrayList<>();
        for (RoomShard s : shards) {
            out.addAll(onShard(s, shard -> new ArrayList<>(shard.rooms.keySet())));
        }
        return out;
    }

    /**
     * Takes over a room from its image and replicated tail (see {@link RoomReplica#adopt}), then runs the stanzas that waited
     * for it. A room already here is kept as it is (its waiting stanzas still run). {@code relog}: offer the tail to
     * the room log again (the previous owner died). {@code goneSessions}: occupants whose sessions were on nodes that
     * left, removed right after in one step (status 333; see {@link GoneSessions}). The returned future completes on the room thread once the room is
     * here and the stanzas that waited for it have run (their deliveries still wait for the run's replication), with
     * how many there were.
     */
    public CompletableFuture<Integer> adopt(RoomImage image, List<TailRecord> tail, boolean relog,
                                            GoneSessions goneSessions) {
        return adopt(image, tail, null, relog, goneSessions);
    }

    /** As {@link #adopt(RoomImage, List, boolean, GoneSessions)}, with the previous owner's accepted marks (or null). */
    public CompletableFuture<Integer> adopt(RoomImage image, List<TailRecord> tail, AcceptedMark mark, boolean relog,
                                            GoneSessions goneSessions) {
        Jid room = image == null ? null : image.room();
        Objects.requireNonNull(room, "image");
        CompletableFuture<Integer> done = new CompletableFuture<>();
        runOnRoomThread(room, shard -> {
            try {
                Room r = shard.rooms.get(room);
                if (r == null) {
                    r = RoomReplica.adopt(shard, image, tail, relog);
                    shard.marks.adopt(room, mark);
                    if (relog) {
                        shard.acceptedBefore(room, tail);
                    }
                    if (goneSessions != null) {
                        r.replica.removeSessionsWhere(goneSessions.gone(), goneSessions.reachable(), null);
                    }
                    if (ctx.replication.active() && shard.rooms.get(room) == r) {
                        shard.markDirty(r);
                    }
                }
            } catch (RuntimeException e) {
                // the held stanzas must run all the same (nothing else would let them go), as for a room not here
                LOG.error("restoring {} from the replicated state failed; its waiting stanzas run without it", room, e);
            }
            done.complete(replayAwaiting(shard, room));
        });
        return done;
    }

    /** Stops waiting for a room that has no state anywhere (it was never replicated): its stanzas run as for a new room. */
    public void stopAwaiting(Jid room) {
        runOnRoomThread(room, shard -> replayAwaiting(shard, room));
    }

    private static int replayAwaiting(RoomShard shard, Jid room) {
        List<Command> waiting = shard.awaiting.remove(room);
        if (waiting != null) {
            for (Command c : waiting) {
                shard.runNow(c);
            }
        }
        return waiting == null ? 0 : waiting.size();
    }

    /**
     * Hands rooms to another node: each is replicated (image and tail) and removed here without telling anyone; the
     * returned future completes when all are gone and the deliveries their room threads made so far have left (relays
     * included: the new owner's first deliveries must not overtake them), after which stanzas for them are forwarded.
     */
    public CompletableFuture<Void> release(Collection<Jid> rooms) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (Jid room : rooms) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            all.add(done);
            runOnRoomThread(room, shard -> {
                CompletableFuture<Void> left = null;
                try {
                    Room r = shard.rooms.get(room);
                    if (r != null) {
                        shard.markDirty(r);
                        shard.replicateNow();
                        shard.detachRoom(r);
                    }
                    shard.flushDeliveries();
                    left = ctx.replication.barrier();
                } finally {
                    if (left == null) {
                        done.complete(null);
                    } else {
                        left.whenComplete((ok, e) -> done.complete(null));
                    }
                }
            });
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture[0]));
    }

    /**
     * Removes, in every room here, the occupants whose sessions went with nodes that left, one step per room (see
     * {@link GoneSessions}); the future completes when every room thread has done so.
     */
    public CompletableFuture<Void> removeSessionsWhere(GoneSessions gone) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (RoomShard s : shards) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            all.add(done);
            runOnShard(s, shard -> {
                try {
                    for (Room r : new ArrayList<>(shard.rooms.values())) {
                        r.replica.removeSessionsWhere(gone.gone(), gone.reachable(), null);
                        if (ctx.replication.active() && shard.rooms.get(r.jid) == r) {
                            shard.markDirty(r);
                        }
                    }
                } finally {
                    done.complete(null);
                }
            });
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture[0]));
    }

    /**
     * Removes one user session from every room here, because the host could not get stanzas to it fast enough (its
     * outbound bytes passed the adapter's bound): the others see it leave with status 333 and {@code reason}. Never
     * waits: safe from a network thread. A room thread whose queue is full gets the task from a pool thread instead.
     */
    public void removeSlowRecipient(Jid realJid, String reason) {
        Objects.requireNonNull(realJid, "realJid");
        java.util.function.Predicate<Jid> slow = realJid::equals;
        for (RoomShard s : shards) {
            java.util.function.Consumer<RoomShard> task = shard -> {
                for (Room r : new ArrayList<>(shard.rooms.values())) {
                    r.replica.removeSessionsWhere(slow, slow, reason); // its session is alive: it is told
                    if (ctx.replication.active() && shard.rooms.get(r.jid) == r) {
                        shard.markDirty(r);
                    }
                }
            };
            if (!s.offer(new Command(task))) {
                CompletableFuture.runAsync(() -> runOnShard(s, task));
            }
        }
    }

    /**
     * Replicates every room here in full, with its in-memory history as its tail, and waits until done: when a
     * second node joins, everything this node served alone gets its first copy.
     */
    public void replicateAll() {
        for (RoomShard s : shards) {
            onShard(s, shard -> {
                for (Room r : shard.rooms.values()) {
                    shard.markDirty(r);
                    for (TailRecord t : r.replica.historyAsTail()) {
                        shard.addTail(t);
                    }
                }
                shard.replicateNow();
                return null;
            });
        }
    }

    /**
     * Completes once every stanza queued to the room threads before this call has been handled, the room state it
     * changed is replicated (or its write gave up) and its deliveries were handed to the host and the cluster; fails
     * if a room thread still holds stanzas for a room on its way here (they are not handled yet). The cluster confirms forwarded stanzas to their entry node with it.
     */
    public CompletableFuture<Void> replicationBarrier() {
        List<CompletableFuture<Void>> all = new ArrayList<>(shards.length);
        for (RoomShard s : shards) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            all.add(done);
            runOnShard(s, shard -> {
                if (!shard.awaiting.isEmpty()) {
                    done.completeExceptionally(new IllegalStateException("rooms are still on their way here"));
                    return;
                }
                // the run so far is replicated and its deliveries handed on, so the barrier (which the cluster
                // completes once those deliveries have left as well) covers them: a confirmed message's relays left
                shard.flushDeliveries();
                ctx.replication.barrier().whenComplete((ok, e) -> {
                    if (e == null) {
                        done.complete(null);
                    } else {
                        done.completeExceptionally(e);
                    }
                });
            });
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture[0]));
    }

    /**
     * Retracts a message on an operator's behalf (XEP-0425, the admin page's review queue): as a moderator's
     * retraction, with the room itself as {@code by}. Completes with the outcome once the occupants were told
     * (NOT_FOUND also when the room is not active here), exceptionally when the room log could not be changed.
     */
    public CompletableFuture<RoomLogSink.Retraction> retractAsService(Jid room, String stanzaId, String reason) {
        CompletableFuture<RoomLogSink.Retraction> done = new CompletableFuture<>();
        Jid roomJid = InboundChecks.normalizeRoom(room);
        runOnRoomThread(roomJid, shard -> {
            Room r = shard.rooms.get(roomJid);
            if (r == null) {
                done.complete(RoomLogSink.Retraction.NOT_FOUND);
                return;
            }
            r.retractAsService(stanzaId, reason, outcome -> {
                if (outcome == null) {
                    done.completeExceptionally(new IllegalStateException("the room log could not be changed"));
                } else {
                    done.complete(outcome);
                }
            });
        });
        return done;
    }

    private void runOnRoomThread(Jid room, java.util.function.Consumer<RoomShard> task) {
        runOnShard(shardOf(InboundChecks.normalizeRoom(room)), task);
    }

    /**
     * Queues {@code task} on a room thread, waiting (at most 10 s) while its queue is full: cluster changes and admin
     * tasks are never dropped.
     */
    private void runOnShard(RoomShard shard, java.util.function.Consumer<RoomShard> task) {
        Command c = new Command(task);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!shard.offer(c)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("room thread queue stayed full for 10 s");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    // ---------------------------------------------------------------------------------------- test support

    /** Runs {@code task} on the thread owning {@code room} and waits for its result (tests and admin tools). */
    <T> T onRoomThread(Jid room, Function<RoomShard, T> task) {
        return onShard(shardOf(InboundChecks.normalizeRoom(room)), task);
    }

    private <T> T onShard(RoomShard shard, Function<RoomShard, T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        runOnShard(shard, s -> {
            try {
                f.complete(task.apply(s));
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        });
        try {
            // longer than a room thread can be held by a write it waits for (a hand-off, replicateAll): a slow write
            // made replicateAll fail after 10 s, and with it the cluster's switch to the view that needed the copy
            return f.get(RoomShard.REPLICATE_NOW_WAIT_SECONDS + 10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw (RuntimeException) e.getCause();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Room administration ({@link RoomAdminBridge}): runs {@code task} on every room thread in turn, waiting for each. */
    <T> List<T> onEachShard(Function<RoomShard, T> task) {
        List<T> out = new ArrayList<>(shards.length);
        for (RoomShard s : shards) {
            out.add(onShard(s, task));
        }
        return out;
    }

    AdminReplies adminReplies() {
        return adminReplies;
    }

    MucConfig config() {
        return ctx.config;
    }

    /** Checks every room's internal consistency on its own thread; throws on the first violation. */
    void checkInvariants() {
        for (RoomShard s : shards) {
            onShard(s, shard -> {
                for (Room r : shard.rooms.values()) {
                    r.checkInvariants();
                }
                return null;
            });
        }
    }

    /** Waits until every queued command has run and every persistent-room write has ended, at most 10 s (tests). */
    void awaitIdle() {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (true) {
            int unfinished = 0;
            for (RoomShard s : shards) {
                unfinished += onShard(s, shard -> shard.storeWrites.unfinished());
            }
            if (unfinished == 0 || System.nanoTime() > deadline) {
                return;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
        }
    }

    /** Waits until every command queued now has run, not for persistent-room writes (tests). */
    void awaitQueues() {
        for (RoomShard s : shards) {
            onShard(s, shard -> null);
        }
    }

    List<Thread> threads() {
        List<Thread> out = new ArrayList<>();
        for (RoomShard s : shards) {
            out.add(s.thread());
        }
        return out;
    }

    /** Optional ports; each defaults to a no-op. */
    public static final class Builder {
        private final String serviceDomain;
        private final MucConfig config;
        private final Delivery delivery;
        private Clock clock = Clock.SYSTEM;
        private MessageInspector inspector = MessageInspector.PASS_ALL;
        private RoomLogSink logSink = RoomLogSink.NONE;
        private RoomRepository repository = RoomRepository.NONE;
        private MucListener listener = MucListener.NONE;
        private RoomPlacement placement = RoomPlacement.LOCAL;
        private RoomReplication replication = RoomReplication.NONE;
        private RoomArchiveSource archive = RoomArchiveSource.NONE;

        private Builder(String serviceDomain, MucConfig config, Delivery delivery) {
            this.serviceDomain = Objects.requireNonNull(serviceDomain, "serviceDomain");
            this.config = Objects.requireNonNull(config, "config");
            this.delivery = Objects.requireNonNull(delivery, "delivery");
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        public Builder inspector(MessageInspector inspector) {
            this.inspector = Objects.requireNonNull(inspector);
            return this;
        }

        public Builder logSink(RoomLogSink logSink) {
            this.logSink = Objects.requireNonNull(logSink);
            return this;
        }

        public Builder repository(RoomRepository repository) {
            this.repository = Objects.requireNonNull(repository);
            return this;
        }

        public Builder listener(MucListener listener) {
            this.listener = Objects.requireNonNull(listener);
            return this;
        }

        /** Clustering: where rooms are served, and the copy of their state kept on other nodes. */
        public Builder cluster(RoomPlacement placement, RoomReplication replication) {
            this.placement = Objects.requireNonNull(placement);
            this.replication = Objects.requireNonNull(replication);
            return this;
        }

        /** Where rooms read their archive (XEP-0313); without one, archives are empty. */
        public Builder archive(RoomArchiveSource archive) {
            this.archive = Objects.requireNonNull(archive);
            return this;
        }

        public MucService build() {
            return new MucService(this);
        }
    }
}
