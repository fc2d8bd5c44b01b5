package org.mucscale.engine.cluster;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.mucscale.engine.config.Settings;
import org.mucscale.engine.muc.AcceptedMark;
import org.mucscale.engine.muc.Forwarded;
import org.mucscale.engine.muc.GoneSessions;
import org.mucscale.engine.muc.MucService;
import org.mucscale.engine.muc.RoomImage;
import org.mucscale.engine.muc.RoomPlacement;
import org.mucscale.engine.muc.RoomReplication;
import org.mucscale.engine.muc.TailRecord;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node of a clustered MUC service: decides where each room is served, forwards stanzas to owners, relays
 * broadcasts to the nodes their recipients' sessions are on, replicates room state, and moves rooms when the view
 * changes. Built on the {@link ClusterTransport} port, so the same code runs on Hazelcast (standalone) and on
 * Openfire's clustering. {@code docs/cluster.md} has the whole design; in short:
 *
 * <ul>
 *   <li><b>Ownership</b>: {@link Rendezvous} over the current view, the members that run the engine
 *       ({@link EngineMembers}). The owner's room thread is the room's one writer, as on a single node.</li>
 *   <li><b>Forwarding</b>: a stanza for a room owned elsewhere goes to the owner on the (ordered) link from this node,
 *       so one sender's stanzas keep their order. The owner remembers which node each sender entered at.</li>
 *   <li><b>Relays</b>: see {@link ClusterDelivery}: per room-thread flush, one relay per node with recipients.</li>
 *   <li><b>Replication</b>: at each flush, before its deliveries go out, a room thread writes the images of the rooms
 *       that changed (config, affiliations, occupants and their nodes) and each accepted message to the room's tail
 *       ring in two replicated maps; so whatever an occupant saw is on another node.</li>
 *   <li><b>View changes</b> (one at a time, on this node's cluster thread): rooms that now belong to another node are
 *       replicated, dropped here silently and handed off; rooms this node now owns are awaited (their stanzas wait
 *       on the room thread) until the hand-off arrives, or taken over from the maps at once when their owner died,
 *       in which case the tail is offered to the room log again and occupants whose sessions died are removed with
 *       status 333.</li>
 * </ul>
 *
 * <p>Alone (a one-member view) nothing is replicated and {@link #servesHere} is always true: the message path does one
 * volatile read more than without clustering. *
 * <p>Parts (each names the state it owns and its owner thread in its header; docs/cluster-protocol.md has the table):
 * {@link ForwardingLog} (forwards out, unconfirmed, resend, CONFIRM, early forwards), {@link HandOffs} (hand-offs,
 * SWITCHED, claims), {@link RoomAdoption} (take-over, adoption from the maps), {@link ReplicatedRooms} (the maps'
 * layout, a run's write), {@link SessionDirectory} (where sessions are), {@link PeerWireVersions} (what other members
 * read). This class keeps the wiring, the view and its changes, the leave, and messages in by kind.
 *
 * <p>State kept here, and its owner. The cluster thread writes {@code view} (volatile, read by every thread),
 * {@code everClustered}, {@code replicating}, {@code leavingNodes} and {@code leavingRuns}, {@code crashedNodes},
 * {@code leftGracefully} and {@code departedRuns} (concurrent sets and maps, read by transport, room and relay-writer
 * threads), {@link PeerWireVersions} (what other members read), and the once-a-second check times; it
 * sets {@code closed} at the leave (or the caller of {@link #close} does, if that did not finish). {@code muc},
 * {@code delivery} and {@code transportStarted} are set once at start. {@code gapsSkipped} is a counter any thread
 * adds to. A view change runs on the cluster thread only, one at a time (A1), and at most one owner per room comes
 * of it (I1).
 */
public final class ClusterNode implements RoomPlacement, RoomReplication, ClusterTransport.Listener, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterNode.class);
    static final String ROOMS_MAP = "rooms";
    static final String TAILS_MAP = "tails";
    static final String DIRECTORY_MAP = "directory";
    static final String OCCUPANTS_MAP = "occupants";
    /** Node id to the run (link epoch) of the engine running there: {@link EngineMembers}, {@link #countRestartedNodesIn}. */
    static final String STARTS_MAP = "starts";
    private static final long GAP_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long LINK_START_WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(200); // L2, cluster-protocol.md
    /** How long a leaving node keeps forwarding stanzas that were already on their way to it. */
    private static final long LEAVE_DRAIN_MS = 1000;

    private final ClusterTransport transport;
    /** Every message to another node goes through here (gathered per node when a batch linger is set). */
    private final Outbox outbox;
    private final ClusterListener listener;
    private final String local;
    private final int tailSlots;
    private final long handoffTimeoutNanos;
    /** The longest a room's stanzas wait for a previous owner that has not switched views yet. */
    private final long lateSwitchLimitNanos;
    private final long replicationTimeoutMs;
    private final ClusterMap rooms;
    private final ClusterMap tails;
    /** Each room's occupants, one entry each, and its list of used slots ({@link OccupantSlots}). */
    private final ClusterMap occupants;
    /** Public rooms of the whole service: room address to display name (UTF-8), for disco#items on any node. */
    private final ClusterMap directory;
    /** Node id to the run its engine started with ({@link #STARTS_MAP}). */
    private final ClusterMap starts;
    private final NodeVersions versions;
    /** Which other members read a FORWARD's origin and PASSED (learnt from {@link #versions}). */
    private final PeerWireVersions wireVersions;
    /** Which members run the engine: the view is the membership without the others (rule J). */
    private final EngineMembers engines;
    /** Messages from other nodes that do not read: answered, counted, said once per peer and wire version. */
    private final UnreadableMessages unreadable;
    private final OrderedLinks<Inbound> links = new OrderedLinks<>(GAP_TIMEOUT_NANOS, LINK_START_WINDOW_NANOS);
    /** Where each user's session is, and so which node delivers to them (see {@link SessionDirectory}). */
    private final SessionDirectory sessions;
    private final ScheduledExecutorService clusterThread;
    /** Reads of a take-over that run side by side (threads only while there is one). */
    private final java.util.concurrent.ExecutorService reads = new java.util.concurrent.ThreadPoolExecutor(0, 4, 10,
            TimeUnit.SECONDS, new java.util.concurrent.SynchronousQueue<>(), r -> daemon(r, "mucscale-cluster-read"),
            new java.util.concurrent.ThreadPoolExecutor.CallerRunsPolicy());
    private final StateReads stateReads;
    /** Room-administration calls to and from other nodes (issue 37). */
    private final AdminCalls adminCalls;
    private final RelayWriter relayIn;
    /** Rooms adopted from the maps: take-overs of crashed owners' rooms, hand-offs, waits that ended. */
    private final RoomAdoption adoption;
    /** Rooms moving between live nodes: hand-offs sent and awaited, SWITCHED, other nodes' claims. */
    private final HandOffs handOffs;
    /** Groupchat messages written to this node's sessions lately (a re-delivery skips a node that has it). */
    private final DeliveredIds delivered = new DeliveredIds(DELIVERED_IDS, TimeUnit.SECONDS.toNanos(60), System::nanoTime);
    /** 2 MB; a minute of 2,000 messages/s, far more than the seconds a take-over takes. */
    private static final int DELIVERED_IDS = 131_072;
    private volatile View view;
    private volatile MucService muc;
    private volatile boolean closed;

    public ClusterNode(ClusterTransport transport, Settings settings, int historySize, ClusterListener listener) {
        this.transport = Objects.requireNonNull(transport);
        this.listener = Objects.requireNonNull(listener);
        this.local = transport.localNode();
        this.tailSlots = Math.max(1, Math.max(settings.get(ClusterSettings.LOG_TAIL), historySize));
        this.handoffTimeoutNanos = settings.get(ClusterSettings.HANDOFF_TIMEOUT).toNanos();
        this.lateSwitchLimitNanos = Math.max(handoffTimeoutNanos,
                settings.get(ClusterSettings.STATE_READ_TIMEOUT).toNanos());
        this.replicationTimeoutMs = settings.get(ClusterSettings.REPLICATION_TIMEOUT).toMillis();
        long lingerNanos = settings.get(ClusterSettings.BATCH_LINGER).toNanos();
        this.outbox = new Outbox(transport, lingerNanos, listener);
        this.rooms = transport.map(ROOMS_MAP);
        this.tails = transport.map(TAILS_MAP);
        this.occupants = transport.map(OCCUPANTS_MAP);
        this.directory = transport.map(DIRECTORY_MAP);
        this.writer = new ReplicationWriter(lingerNanos, rooms, tails, occupants, directory, listener);
        this.replicated = new ReplicatedRooms(writer, tailSlots, replicationTimeoutMs, listener);
        this.starts = transport.map(STARTS_MAP);
        this.versions = new NodeVersions(transport.map(NodeVersions.MAP), local,
                new NodeVersions.Version(NodeVersions.WIRE_VERSION, NodeVersions.BUILD));
        this.engines = new EngineMembers(local, starts, versions, links.epoch());
        this.wireVersions = new PeerWireVersions(local, versions);
        this.unreadable = new UnreadableMessages(versions, local, listener, this::answerUnreadable);
        // a read is not retried once this node is closed or its own member is gone: none could succeed any more
        this.stateReads = new StateReads(rooms, tails, occupants, reads,
                settings.get(ClusterSettings.STATE_READ_TIMEOUT).toNanos(), listener,
                () -> closed || !transport.running());
        this.adminCalls = new AdminCalls(local, (node, body) -> outbox.sendNow(node,
                body.encode(links.epoch(), links.nextSeq(node))), node -> {
                    NodeVersions.Version v = versions.of(node);
                    return v == null ? -1 : v.wire();
                }, transport::members, settings.get(ClusterSettings.ADMIN_TIMEOUT).toNanos());
        this.view = View.of(List.of(local));
        this.clusterThread = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "mucscale-cluster"));
        this.relayIn = new RelayWriter(delivered, crashedNodes, listener);
        this.sessions = new SessionDirectory(local, () -> view, crashedNodes, listener);
        this.adoption = new RoomAdoption(local, () -> muc, stateReads, reads, relayIn, replicated, crashedNodes,
                this::adoptLater, handoffTimeoutNanos, listener);
        this.handOffs = new HandOffs(local, () -> view, () -> closed, leavingNodes, leftGracefully, crashedNodes,
                engines, rooms, adoption, replicated, outbox, links, handoffTimeoutNanos, lateSwitchLimitNanos,
                listener);
        this.stragglers = new StragglerHold(local, handoffTimeoutNanos, System::nanoTime, () -> view.members(),
                wireVersions::readsPassed, h -> handOn(h.fromNode(), h.message()), (node, entry) -> outbox.sendNow(node,
                Wire.passed(links.epoch(), links.nextSeq(node), entry)), () -> muc.replicationBarrier(), listener);
        this.forwarding = new ForwardingLog(local, links, outbox, listener,
                settings.get(ClusterSettings.UNCONFIRMED_LIMIT), handoffTimeoutNanos, lateSwitchLimitNanos,
                replicationTimeoutMs, () -> view, () -> muc, () -> closed, this::servedHereNow, this::handOn,
                handOffs.peerViews(), leavingNodes, wireVersions::readsOrigins, stragglers);
    }

    /** Forwards from entry nodes that wait for a leaving node's stragglers (I2 across a graceful leave, F1). */
    private final StragglerHold stragglers;
    /** Forwards to owners, kept until confirmed and resent at a crash; confirmations of forwards received. */
    private final ForwardingLog forwarding;

    /** A room that could not be adopted now is awaited again, with a deadline already past (the tick adopts it). */
    private void adoptLater(Jid room) {
        handOffs.retryFromMaps(room);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** The engine's delivery on this node: the host's, behind relays to other nodes. */
    public Delivery wrap(Delivery host) {
        ClusterDelivery d = new ClusterDelivery(host, this);
        relayIn.host = host;
        delivery = d;
        return d;
    }

    private volatile ClusterDelivery delivery;

    /**
     * Standalone: users' sessions live on the XMPP server, not on any node; a node reaches every user while its own
     * link to the server is up ({@code linkUp}), and relays to a node that has one otherwise. When a node leaves,
     * nobody's session goes with it, so no occupant is removed. (Inside Openfire, the default: a user's session is on
     * the node their stanzas enter at, a node reaches only its own sessions, and a node that dies takes its sessions
     * with it.)
     */
    public void sessionsOnServer(BooleanSupplier linkUp) {
        sessions.onServer(linkUp);
    }

    /**
     * Joins: starts the transport and applies its first view before returning (rule J3: an engine that starts in a
     * running cluster must not place its first stanzas as if alone); later views arrive through {@link #membersChanged}.
     */
    public void start(MucService service) {
        this.muc = Objects.requireNonNull(service);
        relayIn.start();
        writer.start();
        clusterThread.scheduleWithFixedDelay(this::tick, 100, 100, TimeUnit.MILLISECONDS);
        transport.start(this);
        transportStarted = true;
        try {
            clusterThread.submit(() -> {
                engines.markStarted(); // first: the members it counts in count it in as they hear from it
                onMembers(transport.members());
            }).get(lateSwitchLimitNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("the first cluster view was not applied at start; it follows: {}", e.toString());
        }
    }

    public String localNode() {
        return local;
    }

    public List<String> members() {
        return view.members();
    }

    boolean clustered() {
        return view.clustered();
    }

    /** Set (for good) when the first view with another member arrives; before that, nothing can be gathered. */
    private volatile boolean everClustered;

    boolean everClustered() {
        return everClustered;
    }

    // ------------------------------------------------------------------------------------------- placement

    @Override
    public boolean servesHere(Jid room) {
        forwarding.awaitResendsIfAny();
        return servedHereNow(room);
    }

    @Override
    public boolean enteringMayWait() {
        return stragglers.mayHoldEntering();
    }

    @Override
    public boolean holdEntering(Jid room, Runnable goOn) {
        return stragglers.holdEntering(room, goOn);
    }

    /** Room-administration calls to the nodes that own rooms, and from them (see {@link AdminCalls}). */
    public AdminCalls adminCalls() {
        return adminCalls;
    }

    /**
     * The node that serves {@code room} now: this one while it serves or awaits it, else its owner under this node's
     * view (which may be moving it still; that node then says so).
     */
    public String ownerOf(Jid room) {
        return servedHereNow(room) ? local : view.owner(room);
    }

    /** {@link #servesHere} under the view as it is, without waiting for resends (never blocks). */
    private boolean servedHereNow(Jid room) {
        View v = view;
        return !v.clustered() || local.equals(v.owner(room)) || handOffs.holdsOrAwaits(room);
    }

    @Override
    public Map<Jid, String> publicRooms() {
        if (!view.clustered()) {
            return null;
        }
        try {
            Map<Jid, String> out = new java.util.TreeMap<>(Comparator.comparing(Jid::toString));
            directory.getAll(directory.keys()).forEach((k, v) -> {
                Jid room = Jid.tryParse(k);
                if (room != null) {
                    out.put(room, new String(v, java.nio.charset.StandardCharsets.UTF_8));
                }
            });
            return out;
        } catch (RuntimeException e) {
            LOG.warn("could not read the cluster's room directory; listing this node's rooms: {}", e.toString());
            return null;
        }
    }

    @Override
    public void forward(Jid room, XmlElement stanza, String entryNode, int hops) {
        forward(room, stanza, entryNode, hops, false, null);
    }

    @Override
    public void forward(Jid room, XmlElement stanza, String entryNode, int hops, boolean resent, Forwarded origin) {
        forwarding.forward(room, stanza, entryNode, hops, resent, origin);
    }

    /** Drops the records of departed nodes that are members again (before the view that has them is used). */
    private void forgetDeparted(List<String> members) {
        departedRuns.keySet().removeAll(members);
        leftGracefully.removeAll(members);
        crashedNodes.removeAll(members);
        forwarding.forgetDeparted(members);
    }

    @Override
    public void resentDuplicateSkipped(Jid room) {
        listener.resentDuplicateSkipped();
    }

    @Override
    public void redeliver(Jid room, XmlElement message, List<Jid> recipients) {
        RenderedStanza rendered = RenderedStanza.render(message);
        long key = DeliveredIds.keyOf(rendered);
        if (key == 0) {
            return; // not a room-assigned message: cannot be told apart, so not sent again
        }
        Map<String, List<Jid>> byNode = new HashMap<>();
        for (Jid r : recipients) {
            String target = deliveryNode(r);
            if (target == DEPARTED) {
                continue; // counted there
            }
            byNode.computeIfAbsent(target == null ? local : target, t -> new ArrayList<>()).add(r);
        }
        for (Map.Entry<String, List<Jid>> e : byNode.entrySet()) {
            List<Jid> to = e.getValue();
            boolean here = e.getKey().equals(local);
            // on a room thread: with the run's other deliveries, released in flush order after its write, so that it
            // reaches its recipients after the messages the room accepted before it and before the newer ones (sent
            // at once, or through the relay writer here, a thread of its own, it could pass either)
            ClusterDelivery d = delivery;
            if (d != null && d.redeliverGathered(here ? null : e.getKey(), rendered, key, to)) {
                continue;
            }
            if (here) {
                // the relay writer records and checks delivered ids too
                relayIn.offer(new Wire.Relay(nowMicros(), new RenderedStanza[] {rendered}, new int[to.size()],
                        to.toArray(new Jid[0]), key));
            } else {
                sendRedelivery(e.getKey(), key, rendered, to);
            }
        }
    }

    /** Sends a re-delivery of the message with {@code key} to {@code recipients} on {@code target}. */
    void sendRedelivery(String target, long key, RenderedStanza rendered, List<Jid> recipients) {
        outbox.send(target, Wire.redeliver(links.epoch(), links.nextSeq(target), nowMicros(), key, rendered,
                recipients));
    }

    /**
     * Whether a re-delivery of the message with {@code key} is to be written to this node's sessions: not if this node
     * wrote it already (then counted as already had); {@code recipients} are counted as re-delivered otherwise.
     */
    boolean firstDeliveryHere(long key, int recipients) {
        if (delivered.add(key)) {
            listener.redelivered(recipients);
            return true;
        }
        listener.redeliveredAlreadyHad();
        return false;
    }

    /** The owner wrote {@code stanza} to its own sessions (a room thread's release). */
    void deliveredHere(RenderedStanza stanza) {
        long key = DeliveredIds.keyOf(stanza);
        if (key != 0) {
            delivered.add(key);
        }
    }

    @Override
    public CompletableFuture<Void> barrier() {
        CompletableFuture<Void> written = writer.submit(new ReplicationBatch());
        // on a room thread: also wait for its earlier runs' deliveries to leave (their relays go out after their
        // writes, on the release thread), so that a message is confirmed to its entry node only after its relays
        // were sent; one confirmed while its relays still waited would be neither resent nor re-delivered
        ClusterDelivery d = delivery;
        CompletableFuture<Void> released = d == null ? null : d.releasedSoFar();
        return released == null || released.isDone() ? written : CompletableFuture.allOf(written, released);
    }

    /** Forwarded messages kept until their owners confirm them (a gauge). */
    public int unconfirmedMessages() {
        return forwarding.unconfirmedMessages();
    }

    @Override
    public void sessionSeen(Jid sender, String entryNode) {
        sessions.seen(sender, entryNode);
    }

    @Override
    public String sessionNode(Jid user) {
        return sessions.node(user);
    }

    /**
     * What {@link #deliveryNode} answers for a recipient whose session was on a crashed node: nobody can deliver it
     * (compared by identity: the same object as {@link SessionDirectory#DEPARTED}).
     */
    static final String DEPARTED = SessionDirectory.DEPARTED;

    /** The node to deliver to {@code recipient} through: null for this node, {@link #DEPARTED} for nobody. */
    String deliveryNode(Jid recipient) {
        return sessions.deliveryNode(recipient);
    }

    // ------------------------------------------------------------------------------------------- relays

    void sendRelay(String target, Wire.RelayBuilder relay) {
        byte[] bytes = relay.encode(links.epoch(), links.nextSeq(target), nowMicros());
        outbox.send(target, bytes);
        listener.relaySent(relay.deliveries(), bytes.length);
    }

    /** A delivery from a thread that does not batch (not a room thread): a relay of its own. */
    void relayNow(String target, RenderedStanza stanza, Jid recipient) {
        Wire.RelayBuilder b = new Wire.RelayBuilder();
        b.add(stanza, recipient);
        sendRelay(target, b);
    }

    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    // ------------------------------------------------------------------------------------------- replication

    @Override
    public boolean active() {
        return replicating;
    }

    @Override
    public CompletableFuture<Void> replicate(List<RoomImage> changed, List<Jid> removed, List<TailRecord> tail) {
        return replicate(changed, removed, tail, List.of());
    }

    @Override
    public CompletableFuture<Void> replicate(List<RoomImage> changed, List<Jid> removed, List<TailRecord> tail,
                                             List<AcceptedMark> marks) {
        return replicated.replicate(changed, removed, tail, marks);
    }

    /** The write the calling room thread started last (null: none since the last call). */
    CompletableFuture<Void> takeWrite() {
        return replicated.takeWrite();
    }

    private final ReplicationWriter writer;
    /** What the room threads write to the maps, and how a room's state is read back (see {@link ReplicatedRooms}). */
    private final ReplicatedRooms replicated;

    // ------------------------------------------------------------------------------------------- transport in

    @Override
    public void received(String fromNode, byte[] message) {
        List<byte[]> messages;
        try {
            messages = Wire.unbatch(message);
        } catch (RuntimeException e) {
            unreadable.batch(fromNode, e);
            return;
        }
        for (byte[] one : messages) {
            receivedOne(fromNode, one);
        }
    }

    private void receivedOne(String fromNode, byte[] message) {
        Wire.Message m;
        try {
            m = Wire.decode(message);
        } catch (RuntimeException e) {
            unreadable.message(fromNode, message, e); // its stanza's sender answered if it can be told
            m = Wire.headerOnly(message); // its place on the link is taken, so the next ones do not wait for it
            if (m == null) {
                return;
            }
        }
        Long departedRun = departedRuns.get(fromNode);
        if (departedRun != null && departedRun == m.epoch()) {
            lateFromDeparted(fromNode, m);
            return;
        }
        int skipped = links.receive(fromNode, m.epoch(), m.seq(), new Inbound(fromNode, m), System.nanoTime(),
                this::dispatch);
        for (int i = 0; i < skipped; i++) {
            listener.linkGapSkipped(fromNode);
        }
        if (skipped > 0) {
            gapSkipped(fromNode, skipped);
        }
    }

    /** An unreadable message's answer to its stanza's sender: a relay, or to this node's own session directly. */
    private void answerUnreadable(String node, RenderedStanza error, Jid sender) {
        if (node.equals(local)) {
            relayIn.offer(new Wire.Relay(nowMicros(), new RenderedStanza[] {error}, new int[1], new Jid[] {sender}));
        } else {
            relayNow(node, error, sender);
        }
    }

    /** Each member's build and wire version (the dashboard's cluster view). */
    public Map<String, String> versionsPerNode() {
        return versions.of(view.members());
    }

    private final java.util.concurrent.atomic.AtomicLong gapsSkipped = new java.util.concurrent.atomic.AtomicLong();

    /** A message from another node never came and was given up on: an operator should hear of it (rate-limited). */
    private void gapSkipped(String fromNode, int gaps) {
        long total = gapsSkipped.addAndGet(gaps);
        if (total <= 10 || Long.bitCount(total) == 1) {
            LOG.warn("gave up waiting for a message from cluster node {} after {} ms (lost between nodes; {} so far)",
                    fromNode, GAP_TIMEOUT_NANOS / 1_000_000, total);
        }
    }

    /**
     * Crashed nodes whose links were forgotten, with the epoch of the run that crashed: Hazelcast can hand over a
     * message of that run later still (it was in flight), when its order can no longer be restored.
     */
    private final ConcurrentHashMap<String, Long> departedRuns = new ConcurrentHashMap<>();

    /**
     * Nodes that left the view without announcing it, from before the view switch until they are in a view again. The
     * relay writer writes a relay of theirs that it takes after the switch only where each message is new here (as
     * {@link #lateFromDeparted} does): a relay that passed the ordered link just before the switch can reach the
     * writer after the take-over's barrier, so after the new owner re-delivered the same messages (seen inside
     * Openfire under heavy load: a message twice with one stanza-id).
     */
    private final Set<String> crashedNodes = ConcurrentHashMap.newKeySet();
    /** Nodes that announced their leave and left the view, until they are back (their hand-offs still come). */
    private final Set<String> leftGracefully = ConcurrentHashMap.newKeySet();

    /**
     * A late message from a crashed node's run. A relay goes to the relay writer, which writes each of its groupchat
     * messages only where this node has not written it yet (the take-over may have re-delivered it already;
     * {@code RelayWriter.writeWhereNew}); its presences and everything else are dropped, as the room's new owner has the
     * current state.
     */
    private void lateFromDeparted(String fromNode, Wire.Message m) {
        Wire.Relay r = m.relay();
        if (r != null && r.redeliveryKey() != 0) {
            relayIn.offer(r);
            relayIn.countLateFromDeparted(fromNode, m.kind(), 1);
        } else if (r != null) {
            relayIn.offerLate(fromNode, r); // counted where it is written
        } else {
            relayIn.countLateFromDeparted(fromNode, m.kind(), 0);
        }
    }


    /** A message and the node it came from, as the ordered links hold it. */
    private record Inbound(String fromNode, Wire.Message message) {
    }

    /** In link order; only enqueues. */
    private void dispatch(Inbound in) {
        String fromNode = in.fromNode();
        Wire.Message m = in.message();
        ForwardingLog.Progress p = forwarding.progress(fromNode);
        if (engines.heard(fromNode)) {
            // its engine runs: a join (rule J2), applied on the cluster thread before a HANDOFF or SWITCHED it sent
            membersChanged(transport.members());
        }
        switch (m.kind()) {
            case Wire.FORWARD -> {
                if (m.resent() && !servesHere(m.room()) || forwarding.aheadOfUs(fromNode, m)) {
                    // sent again after its owner left, or to this node as it joins, and our view has not caught up:
                    // wait for it a moment
                    forwarding.park(fromNode, m);
                    p.epoch = m.epoch();
                    p.seq = m.seq();
                    return;
                }
                forwarding.admitEarlyForwards();
                if (stragglers.hold(fromNode, m)) {
                    break; // its room came from a leaving node whose stragglers of this sender may still come
                }
                View v = view;
                if (fromNode != null && fromNode.equals(v.owner(m.room())) && !fromNode.equals(local)
                        && v.members().contains(local)) {
                    // the room's owner in our view sends its stanzas here: it is leaving or its view is ahead, so the
                    // room is on its way to us; hold its stanzas for the hand-off instead of sending them back. Not
                    // when this node is the one leaving (its view no longer holds it): then the sender's view is
                    // behind, the room went to the sender, and a stanza held here would wait for a hand-off that
                    // never comes while it counts as handled, so it is confirmed and lost; it is forwarded on instead
                    handOffs.await(m.room());
                }
                handOn(fromNode, m);
            }
            case Wire.PASSED -> stragglers.passed(fromNode, m.epoch(), m.entryNode());
            case Wire.CONFIRM -> forwarding.onConfirm(fromNode, m);
            case Wire.RELAY -> relayIn.offerFrom(in.fromNode(), m.relay()); // its sender decides how it is written
            case Wire.REDELIVER -> relayIn.offer(m.relay());
            case Wire.HANDOFF -> clusterThread.execute(() -> handOffs.onHandoff(m.room()));
            case Wire.SWITCHED -> clusterThread.execute(() -> handOffs.onSwitched(fromNode, m.members()));
            case Wire.LEAVING -> {
                long run = m.epoch();
                clusterThread.execute(() -> onLeaving(fromNode, run));
            }
            case Wire.ADMIN_CALL -> adminCalls.received(fromNode, m.admin());
            case Wire.ADMIN_ANSWER -> adminCalls.answered(fromNode, m.admin());
            default -> {
            }
        }
        // handed on (queued to a room thread) before it counts as handled: the confirmation's barrier comes after it
        p.epoch = m.epoch();
        p.seq = m.seq();
    }

    /** A forward from {@code fromNode}'s link goes to the rooms (named by that link, for the accepted marks). */
    private void handOn(String fromNode, Wire.Message m) {
        MucService service = muc;
        if (service != null) {
            service.processForwarded(m.stanza(), m.entryNode(), m.hops(), m.resent(),
                    new Forwarded(local, fromNode, m.epoch(), m.seq()), m.origin());
        }
    }

    /**
     * Nodes that announced they are leaving: routed around at once, their rooms awaited as hand-offs. Written on the
     * cluster thread only (onLeaving, onMembers, the restart check); read by room threads (claims).
     */
    private final Set<String> leavingNodes = ConcurrentHashMap.newKeySet();

    /** A node announced it is leaving (on the cluster thread): the view without it, its rooms come as hand-offs. */
    private void onLeaving(String node, long run) {
        if (node == null || node.equals(local) || !view.members().contains(node)) {
            return;
        }
        leavingNodes.add(node);
        leavingRuns.put(node, run);
        stragglers.leaving(node, run); // before the switch: forwards for its rooms from then on may wait
        List<String> rest = view.without(node);
        try {
            onView(rest);
        } catch (RuntimeException e) {
            LOG.error("could not route around leaving node {}", node, e);
        }
        stragglers.routedAround(node);
    }

    /** The run (link epoch) each node that announced its leave was in when it did (cluster thread only). */
    private final Map<String, Long> leavingRuns = new ConcurrentHashMap<>();
    private long nextRestartCheckNanos = System.nanoTime(); // nanoTime may be negative: not 0

    /**
     * Every second while nodes that announced their leave are still members (on the cluster thread): one whose engine
     * started again since (its start mark names another run; inside Openfire the plugin was reloaded on a running
     * node, which never leaves Openfire's cluster) is counted in again and gets its rooms back as hand-offs. Without
     * this it stayed routed around until the membership changed, while it served the rooms its own view gave it, so
     * those rooms ran on two nodes. A map, not a message: a message would reach nodes that do not run the plugin yet.
     */
    private void countRestartedNodesIn(long nowNanos) {
        if (leavingRuns.isEmpty() || nowNanos - nextRestartCheckNanos < 0) {
            return;
        }
        nextRestartCheckNanos = nowNanos + TimeUnit.SECONDS.toNanos(1);
        boolean back = false;
        for (Map.Entry<String, Long> e : leavingRuns.entrySet()) {
            byte[] mark;
            try {
                mark = starts.get(e.getKey());
            } catch (RuntimeException ex) {
                return; // next time
            }
            if (mark != null && mark.length == Long.BYTES
                    && java.nio.ByteBuffer.wrap(mark).getLong() != e.getValue()) {
                LOG.info("cluster node {} started again after announcing its leave; counting it in", e.getKey());
                leavingRuns.remove(e.getKey());
                leavingNodes.remove(e.getKey());
                back = true;
            }
        }
        if (back) {
            membersChanged(transport.members());
        }
    }

    /** Set once the transport has started: the maps can be used from then on. */
    private volatile boolean transportStarted;

    @Override
    public void membersChanged(List<String> members) {
        adminCalls.membersChanged(members);
        // only enqueued: the leaving nodes are read and edited on the cluster thread, in order with the LEAVINGs
        // received before this report (finding F7: filtered here, a LEAVING queued but not yet handled was missed,
        // and the view put the leaving node back)
        List<String> reported = List.copyOf(members);
        clusterThread.execute(() -> {
            try {
                onMembers(reported);
            } catch (RuntimeException e) {
                LOG.error("could not apply the cluster view {}", reported, e);
            }
        });
    }

    /** On the cluster thread: the transport's membership, without the nodes that announced their leave. */
    private void onMembers(List<String> members) {
        List<String> copy = new ArrayList<>(members);
        // a node that announced its leave stays out, whatever the transport still reports; so does one that runs no
        // engine yet (rule J1: a room placed there would be lost with its hand-off)
        copy.retainAll(engines.filter(members));
        copy.removeIf(m -> leavingNodes.contains(m) && !m.equals(local));
        handOffs.peerViews().keySet().removeIf(n -> leavingNodes.contains(n) && !members.contains(n));
        leavingNodes.retainAll(members);
        leavingRuns.keySet().retainAll(members);
        wireVersions.retainMembers(members);
        onView(List.copyOf(copy));
        stragglers.retain(leavingNodes, members);
    }

    // ------------------------------------------------------------------------------------------- view changes

    /**
     * On the cluster thread, one view at a time. A view change that fails part way still closes the take-over it
     * opened, so no room's stanzas wait for it for good.
     */
    private void onView(List<String> members) {
        try {
            applyView(members);
        } catch (RuntimeException e) {
            adoption.abandonTakeover(e);
            throw e;
        }
    }

    private void applyView(List<String> members) {
        if (closed) {
            return;
        }
        View old = view;
        if (new HashSet<>(old.members()).equals(new HashSet<>(members))) {
            return;
        }
        if (!members.contains(local)) {
            LOG.warn("this node {} is not in the cluster view {}; ignoring it", local, members);
            return;
        }
        Set<String> departed = new HashSet<>(old.members());
        departed.removeAll(members);
        View next = View.of(members);
        MucService service = muc;
        boolean firstClustered = next.clustered() && !everClustered;
        if (next.clustered()) {
            everClustered = true;
            replicating = true;
            if (!old.clustered()) {
                // what this node served alone gets its first copy before anyone takes it over
                try {
                    service.replicateAll();
                } catch (RuntimeException e) {
                    // the view must still switch: a node left on its old view serves rooms the others place elsewhere.
                    // A room whose copy did not complete is copied again at its next change of state; until then a
                    // take-over finds it only in the room repository, and its history so far only in the room log.
                    LOG.warn("replicating this node's rooms for the new cluster view {} did not complete; switching "
                            + "anyway", members, e);
                }
            }
        }
        // rooms of owners that died and are now ours: from before the switch until they are taken over, a stanza for
        // one of them waits on its room thread (arriving()), so none of them creates an empty room meanwhile; which
        // rooms they are is read from the maps only after the switch (a scan of the room map while Hazelcast promotes
        // the dead member's backups took 0.4-0.9 s, and stanzas for every other room waited behind it)
        long viewStartMillis = System.currentTimeMillis();
        Set<String> crashed = new HashSet<>(departed);
        crashed.removeAll(leavingNodes);
        // before the switch: a relay of theirs that the relay writer takes after it is written only where new
        crashedNodes.addAll(crashed);
        departed.stream().filter(leavingNodes::contains).forEach(leftGracefully::add);
        if (!crashed.isEmpty()) {
            adoption.begin(old, Set.copyOf(crashed));
        }
        handOffs.viewChanging(old);
        crashed.forEach(handOffs.peerViews()::remove); // a leaving node's view still says what it has not handed off yet
        forgetDeparted(next.members()); // a node back in the view gets a fresh record
        if (departed.isEmpty()) {
            view = next;
            handOffs.clearHeld();
        } else {
            // what departed owners never confirmed goes to the rooms' new owners before anything newer from here.
            // Lock order: a link's inbox (OrderedLinks), the resend gate, the early forwards. Transport threads pass
            // the gate while their link's inbox is held (dispatch -> servesHere), so nothing under the gate may take
            // a link's inbox: links.forget below runs after it.
            forwarding.switchResending(departed, next, () -> {
                view = next;
                handOffs.clearHeld();
            });
            forwarding.forgetProgress(departed);
            wireVersions.departed(departed);
        }
        forwarding.admitEarlyForwards();
        listener.view(next.members(), local);
        LOG.info("cluster view: {} (this node {}{})", next.members(), local, departed.isEmpty() ? ""
                : ", departed " + departed + "; switched in " + (System.currentTimeMillis() - viewStartMillis) + " ms");
        if (firstClustered) {
            engines.markStarted(); // a node that saw an earlier run of this one leave counts it in again
        }
        // rooms that now belong to another node: replicated, dropped here silently, handed off. What fails here
        // (a room thread that cannot take a task) must not keep the view change from its take-over below.
        try {
            handOffs.handOff(service, service.localRooms(), next);
        } catch (RuntimeException e) {
            LOG.error("handing rooms off for the cluster view {} failed; their new owners take them from the maps "
                    + "after the hand-off timeout", next.members(), e);
        }
        handOffs.announceSwitch(next);
        // sessions that were on departed nodes: one step per room; a crashed node's users keep their hints (so the
        // delivery path drops what is still addressed to them) until every room here has removed them
        GoneSessions gone = null;
        if (!departed.isEmpty()) {
            gone = sessions.departed(departed, crashed, service);
            for (String d : departed) {
                if (!leavingNodes.contains(d)) {
                    Long run = links.forget(d); // a leaving node still sends its hand-offs on its link
                    if (run != null) {
                        departedRuns.put(d, run);
                    }
                }
            }
        }
        if (!crashed.isEmpty()) {
            try {
                adoption.takeOver(old, next, crashed, gone == null ? null : departed, viewStartMillis);
            } catch (RuntimeException e) {
                adoption.abandonTakeover(e); // and the view change goes on
            }
        }
        forwarding.admitEarlyForwards();
        if (!next.clustered()) {
            replicating = false;
        }
    }

    private volatile boolean replicating;

    @Override
    public boolean arriving(Jid room) {
        return handOffs.arriving(room);
    }

    /** Every 100 ms on the cluster thread: hand-offs that never came, and link gaps that never filled. */
    private void tick() {
        try {
            long now = System.nanoTime();
            handOffs.adoptOverdue(now);
            countRestartedNodesIn(now);
            if (transportStarted && !closed) {
                engines.keepMark(now);
                if (engines.lookForSilent(now)) {
                    membersChanged(transport.members()); // a member's engine started: a join (rule J2)
                }
            }
            if (transportStarted && !closed) {
                wireVersions.learn(now, view.members());
            }
            adoption.retryReleases();
            int skipped = links.sweep(now, this::dispatch);
            if (skipped > 0) {
                listener.linkGapSkipped("*");
                gapSkipped("(any)", skipped);
            }
            forwarding.admitEarlyForwards();
            stragglers.releaseOverdue(now);
            forwarding.confirmHandled();
        } catch (RuntimeException e) {
            LOG.warn("cluster housekeeping failed", e);
        }
    }

    // ------------------------------------------------------------------------------------------- leaving

    /**
     * Leaves the cluster gracefully: every room here is replicated and handed to its owner among the other members
     * (stanzas arriving meanwhile are forwarded to them), then the transport stops. Alone, it only stops.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            clusterThread.submit(() -> {
                View v = view;
                MucService service = muc;
                if (v.clustered() && service != null) {
                    List<String> rest = v.without(local);
                    // tell the others to route around this node, route every new stanza to the next owners (still
                    // clustered: replicate, relay), move what is here, then keep forwarding stragglers a moment
                    for (String other : rest) {
                        outbox.sendNow(other, Wire.leaving(links.epoch(), links.nextSeq(other)));
                    }
                    View next = new View(List.copyOf(rest), true, new ConcurrentHashMap<>());
                    view = next;
                    handOffs.handOff(service, service.localRooms(), next);
                    handOffs.announceSwitch(next); // nothing is left here: the others stop waiting for this node
                    try {
                        Thread.sleep(LEAVE_DRAIN_MS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                closed = true;
                replicating = false; // nothing is written once the rooms are gone
                try {
                    // a node joining later must not wait for rooms of an engine that is gone
                    engines.withdraw();
                } catch (RuntimeException e) {
                    LOG.debug("could not remove this node's start mark: {}", e.toString());
                }
            }).get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("leaving the cluster did not finish cleanly: {}", e.toString());
            closed = true;
        }
        try {
            if (delivery != null) {
                delivery.stopReleasers(); // their relays go out while the writer and the transport still run
            }
            adminCalls.close(); // calls still waiting here end now (CLOSED), not at their timeout
            outbox.close(); // what lingers goes out while the transport still can
            transport.stop();
        } finally {
            clusterThread.shutdownNow();
            reads.shutdown();
            writer.stop();
            relayIn.stop();
        }
    }

    // ------------------------------------------------------------------------------------------- figures

    /** Rooms this node serves now. */
    public int roomsHere() {
        MucService m = muc;
        return m == null ? 0 : m.roomCount();
    }

    /** Rooms per node under the current view, from the replicated room list (the dashboard's cluster view). */
    public Map<String, Integer> roomsPerNode() {
        Map<String, Integer> out = new java.util.TreeMap<>();
        View v = view;
        for (String m : v.members()) {
            out.put(m, 0);
        }
        if (!v.clustered()) {
            out.put(local, roomsHere());
            return out;
        }
        for (String key : rooms.keys()) {
            out.merge(Rendezvous.owner(key, v.members()), 1, Integer::sum);
        }
        return out;
    }

    public long failovers() {
        return adoption.failovers();
    }

    /** Milliseconds the last take-over of a dead node's rooms took on this node (-1: none yet). */
    public long lastFailoverMillis() {
        return adoption.lastFailoverMillis();
    }

    /** Messages held back by gaps in link order (a gauge). */
    public int heldMessages() {
        return links.held();
    }

    /** Relays from other nodes waiting to be written here (a gauge). */
    public int relayBacklog() {
        return relayIn.backlog();
    }

    // ------------------------------------------------------------------------------------------- relay writer

}
