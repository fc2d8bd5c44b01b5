package org.mucscale.standalone;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.topic.ITopic;
import com.hazelcast.topic.Message;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.mucscale.engine.cluster.ClusterMap;
import org.mucscale.engine.cluster.ClusterTransport;
import org.mucscale.engine.config.Settings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone host's {@link ClusterTransport}: one embedded Hazelcast 5.5 member per node, configured from the
 * {@code mucscale.standalone.cluster-*} settings (TCP-IP join over exactly the configured member list, never
 * multicast or auto-detection, one interface, no phone-home, no shutdown hook, heartbeats every second; built by
 * {@link HazelcastMemberConfig}). Messages travel as {@link ClusterEnvelope}s.
 *
 * <p><b>Identity.</b> A node's id is a random UUID chosen when the transport is built and published as the member
 * attribute {@value #NODE_ATTRIBUTE}, not Hazelcast's member UUID: the engine reads {@link #localNode()} before
 * {@link #start}, and Hazelcast gives a member a new UUID when it merges back after a split brain, while the port
 * promises an id that is stable while the node runs.
 *
 * <p><b>Messages.</b> Every node listens on its own topic, {@value #INBOX_PREFIX}{@code <node id>}; {@link #send}
 * publishes to the target's topic. Hazelcast hands a topic message straight to the members listening on it, as a
 * one-way event packet (no operation, no response, no call id), which measured about 4 times (4 KiB) to 8 times
 * (200 bytes) the throughput of {@code IExecutorService.executeOnMember} between two members on loopback. Each inbox
 * is one event stripe on the receiver, so {@link Listener#received} runs on one of Hazelcast's event threads. Order
 * is not promised (the engine numbers its messages per link). Hazelcast sends every 100,000th topic event of a member
 * as an operation and waits for it (its own back-pressure), so a sender can wait up to
 * {@code hazelcast.event.sync.timeout.millis} (5 s) once per 100,000 messages when a receiver is far behind or gone;
 * nothing else on the send path waits for the network. Packets wait in Hazelcast's unbounded write queues: the
 * engine's own queues are the bound.
 *
 * <p><b>Greeting.</b> A member appears in Hazelcast's member list the moment it joins, but it listens on its inbox only
 * once {@link #start} has registered its listener, a little later; what is published in between goes nowhere. The
 * engine hands rooms over to a node as soon as the node is in its view, so a node enters this transport's view only
 * once it has been heard from: any message from a node (the first is a {@code HELLO}) proves its inbox is registered.
 * Every {@value #GREETING_RETRY_MILLIS} ms each node sends {@code HELLO} to the members it has not heard from, and
 * answers each {@code HELLO} once ({@code HELLO_BACK}); {@link #start} waits (up to
 * {@value #START_GREETING_WAIT_MILLIS} ms) until it has heard from the members already there, so the first view is
 * complete.
 *
 * <p><b>Stopping.</b> {@link #stop} first makes sure every node heard from has received what this node sent (a
 * {@code FLUSH} round, see {@link #drain()}): Hazelcast's shutdown would discard packets still queued, and the engine
 * sends its hand-offs just before it stops. Then Hazelcast's graceful shutdown moves this member's partitions.
 *
 * <p><b>Threads.</b> Membership events, greetings and the retry timer all run on one thread,
 * {@code mucscale-cluster-view}, which alone computes and reports views: so {@link Listener#membersChanged} is called
 * one view at a time, in order, always with the current view (consecutive equal views are reported once).
 * {@link #send} runs on the caller's thread; {@link #inboxes} and {@link #greeted} are concurrent sets that the view
 * thread maintains and any thread reads.
 */
public final class HazelcastClusterTransport implements ClusterTransport {
    private static final Logger LOG = LoggerFactory.getLogger(HazelcastClusterTransport.class);

    static final String NODE_ATTRIBUTE = "mucscale.node";
    static final String INBOX_PREFIX = "mucscale.inbox.";
    static final String MAP_PREFIX = "mucscale.map.";
    static final long GREETING_RETRY_MILLIS = 100;
    static final long START_GREETING_WAIT_MILLIS = 3000;
    /** Longest a graceful stop waits for the other nodes to confirm they received what it sent (see drain()). */
    static final long STOP_DRAIN_WAIT_MILLIS = 2000;

    private final String localNode;
    private final UUID localId;
    private final Config config;
    private final String memberAddress;

    private final LongAdder sent = new LongAdder();
    private final LongAdder received = new LongAdder();
    private final LongAdder dropped = new LongAdder();

    /** Inboxes of the members this node knows, heard from or not, its own included. Written by the view thread. */
    private final ConcurrentHashMap<String, ITopic<ClusterEnvelope>> inboxes = new ConcurrentHashMap<>();
    /**
     * Nodes heard from: their inboxes are registered. Added on Hazelcast's event threads, removed by the view thread
     * when the node leaves (a message still in flight from a departed node adds it back: one id that never shows in a
     * view again, as the departed node never comes back under the same id).
     */
    private final Set<String> greeted = ConcurrentHashMap.newKeySet();

    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private volatile HazelcastInstance hazelcast;
    private volatile Listener listener;
    private volatile ScheduledExecutorService viewThread;
    /** The view last reported (the local node alone before the first report). */
    private volatile List<String> view;
    /** While a graceful stop drains: the nodes whose FLUSHED it still waits for. */
    private volatile Set<String> unflushed;
    /** View thread only: whether views are reported yet (from the end of start(), when the first one is). */
    private boolean reporting;

    /**
     * Prepares the member's configuration from a validated snapshot (the catalog must hold
     * {@link StandaloneSettings#ALL}); nothing touches the network until {@link #start}.
     */
    public static HazelcastClusterTransport create(Settings settings) {
        return new HazelcastClusterTransport(settings);
    }

    private HazelcastClusterTransport(Settings settings) {
        this.localId = UUID.randomUUID();
        this.localNode = localId.toString();
        this.view = List.of(localNode);
        this.config = HazelcastMemberConfig.build(settings, localNode);
        this.memberAddress = settings.get(StandaloneSettings.CLUSTER_BIND_ADDRESS).trim() + ":"
                + settings.get(StandaloneSettings.CLUSTER_PORT);
        HazelcastMemberConfig.routeStaticLoggingToSlf4j();
    }

    @Override
    public String localNode() {
        return localNode;
    }

    @Override
    public List<String> members() {
        return view;
    }

    @Override
    public void send(String node, byte[] message) {
        ITopic<ClusterEnvelope> inbox = inboxes.get(node);
        if (inbox == null || stopped.get()) {
            dropped.increment();
            return;
        }
        try {
            inbox.publish(new ClusterEnvelope(ClusterEnvelope.DATA, localId, message));
            sent.increment();
        } catch (RuntimeException e) {
            // the member is shutting down, or the target left in between: at most once means dropped
            dropped.increment();
            LOG.debug("message to node {} dropped", node, e);
        }
    }

    @Override
    public ClusterMap map(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a cluster map needs a name");
        }
        return new HazelcastClusterMap(() -> {
            HazelcastInstance hz = hazelcast;
            if (hz == null) {
                throw new IllegalStateException("cluster map " + name + " used before the cluster transport started");
            }
            return hz.<String, byte[]>getMap(MAP_PREFIX + name);
        });
    }

    /**
     * Starts the Hazelcast member (joins the cluster through the member list), listens on this node's inbox, greets
     * the members already there and reports the first view.
     *
     * @throws IllegalStateException when the member cannot start (port taken, address not local, ...) or on a
     *         second call
     */
    @Override
    public void start(Listener listener) {
        Objects.requireNonNull(listener, "listener");
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("the cluster transport was already started");
        }
        this.listener = listener;
        ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mucscale-cluster-view");
            t.setDaemon(true);
            return t;
        });
        viewThread = thread;
        HazelcastInstance hz;
        try {
            hz = Hazelcast.newHazelcastInstance(config);
        } catch (RuntimeException e) {
            thread.shutdownNow();
            throw new IllegalStateException("the cluster member could not start on " + memberAddress + " (cluster "
                    + config.getClusterName() + ", members " + config.getNetworkConfig().getJoin().getTcpIpConfig()
                    .getMembers() + "): " + e.getMessage(), e);
        }
        hazelcast = hz;
        try {
            listen(hz, thread);
        } catch (RuntimeException e) {
            end(true);
            throw e;
        }
        LOG.info("cluster member {} started at {} as node {}", hz.getName(), memberAddress, localNode);
    }

    private void listen(HazelcastInstance hz, ScheduledExecutorService thread) {
        ITopic<ClusterEnvelope> own = hz.getTopic(INBOX_PREFIX + localNode);
        own.addMessageListener(this::onMessage);
        inboxes.put(localNode, own);
        hz.getCluster().addMembershipListener(new MembershipListener() {
            @Override
            public void memberAdded(MembershipEvent event) {
                onViewThread(HazelcastClusterTransport.this::update);
            }

            @Override
            public void memberRemoved(MembershipEvent event) {
                onViewThread(HazelcastClusterTransport.this::update);
            }
        });
        thread.scheduleWithFixedDelay(this::greetAndUpdate, 0, GREETING_RETRY_MILLIS, TimeUnit.MILLISECONDS);
        awaitGreetings(hz);
        // the first view, reported before start returns so members() is valid from then on
        Future<?> first = thread.submit(() -> {
            reporting = true;
            report(nodesOf(hz), true);
        });
        try {
            first.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("the first cluster view could not be reported", e.getCause());
        }
    }

    private void awaitGreetings(HazelcastInstance hz) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_GREETING_WAIT_MILLIS);
        List<String> silent = silentMembers(hz);
        while (!silent.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            silent = silentMembers(hz);
        }
        if (!silent.isEmpty()) {
            LOG.warn("nodes {} did not answer within {} ms; each joins this node's view when it does", silent,
                    START_GREETING_WAIT_MILLIS);
        }
    }

    private List<String> silentMembers(HazelcastInstance hz) {
        List<String> silent = new ArrayList<>();
        for (String node : nodesOf(hz).keySet()) {
            if (!node.equals(localNode) && !greeted.contains(node)) {
                silent.add(node);
            }
        }
        return silent;
    }

    /** Leaves the cluster gracefully: Hazelcast moves the partitions this member owns (and their backups) first. */
    @Override
    public void stop() {
        end(false);
    }

    /** False once this member was stopped or terminated here, or Hazelcast shut it down on its own. */
    @Override
    public boolean running() {
        HazelcastInstance hz = hazelcast;
        return !stopped.get() && (hz == null || hz.getLifecycleService().isRunning());
    }

    /**
     * Kills the member without telling anyone (Hazelcast's terminate): the others find out through their failure
     * detector, as after a crash. For tests.
     */
    void terminate() {
        end(true);
    }

    private void end(boolean crash) {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        HazelcastInstance hz = hazelcast;
        if (hz != null && !crash) {
            drain();
        }
        ScheduledExecutorService thread = viewThread;
        if (thread != null) {
            thread.shutdownNow();
        }
        if (hz != null) {
            try {
                if (crash) {
                    hz.getLifecycleService().terminate();
                } else {
                    hz.shutdown();
                }
            } catch (RuntimeException e) {
                LOG.warn("cluster member {} did not stop cleanly", hz.getName(), e);
            }
        }
        if (thread != null) {
            try {
                thread.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits until every node heard from has received what this node sent it. When a member shuts down, Hazelcast
     * closes its connections and clears their write queues (Hazelcast 5.5's {@code NioOutboundPipeline
     * .drainWriteQueues}), so packets not yet written are lost, and the engine sends its hand-offs just before it
     * stops the transport. So a
     * stopping node sends {@code FLUSH} to each of them and waits (up to {@value #STOP_DRAIN_WAIT_MILLIS} ms) for
     * each {@code FLUSHED}. A node answers {@code FLUSH} on its inbox's event thread, where this node's earlier
     * messages came before it on the same connection, so the answer means all of them reached its listener.
     */
    private void drain() {
        Set<String> waiting = ConcurrentHashMap.newKeySet();
        for (String node : inboxes.keySet()) {
            if (!node.equals(localNode) && greeted.contains(node)) {
                waiting.add(node);
            }
        }
        if (waiting.isEmpty()) {
            return;
        }
        unflushed = waiting;
        for (String node : List.copyOf(waiting)) {
            if (!publishControl(node, ClusterEnvelope.FLUSH)) {
                waiting.remove(node);
            }
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_DRAIN_WAIT_MILLIS);
        while (!waiting.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!waiting.isEmpty()) {
            LOG.warn("nodes {} did not confirm within {} ms that they received what this node sent before stopping",
                    waiting, STOP_DRAIN_WAIT_MILLIS);
        }
        unflushed = null;
    }

    /** The embedded member (null before start), for tests that look at partitions. */
    HazelcastInstance hazelcastInstance() {
        return hazelcast;
    }

    /** Messages sent so far (published to a member's inbox). */
    public long sentCount() {
        return sent.sum();
    }

    /** Messages received and handed to the listener. */
    public long receivedCount() {
        return received.sum();
    }

    /** Messages not sent: to a node that is not (or no longer) a member, or while stopping. */
    public long droppedCount() {
        return dropped.sum();
    }

    // ------------------------------------------------------------------------------------------- Hazelcast's threads

    private void onMessage(Message<ClusterEnvelope> message) {
        ClusterEnvelope e = message.getMessageObject();
        String from = e.sender().toString();
        if (!greeted.contains(from) && greeted.add(from)) {
            onViewThread(this::update);
        }
        switch (e.kind) {
            case ClusterEnvelope.DATA -> {
                received.increment();
                Listener l = listener;
                if (l != null && !stopped.get()) {
                    try {
                        l.received(from, e.payload);
                    } catch (RuntimeException ex) {
                        LOG.error("the engine failed on a message from node {}", from, ex);
                    }
                }
            }
            case ClusterEnvelope.HELLO -> onViewThread(() -> greet(from, ClusterEnvelope.HELLO_BACK));
            case ClusterEnvelope.FLUSH -> publishControl(from, ClusterEnvelope.FLUSHED); // here: behind that node's earlier messages
            case ClusterEnvelope.FLUSHED -> {
                Set<String> waiting = unflushed;
                if (waiting != null) {
                    waiting.remove(from);
                }
            }
            default -> {
                // HELLO_BACK: being heard from is all it says
            }
        }
    }

    private void onViewThread(Runnable task) {
        ScheduledExecutorService thread = viewThread;
        if (thread == null || stopped.get()) {
            return;
        }
        try {
            thread.execute(task);
        } catch (RejectedExecutionException e) {
            // stopping
        }
    }

    // ------------------------------------------------------------------------------------------- the view thread

    private void greetAndUpdate() {
        try {
            update();
            for (String node : inboxes.keySet()) {
                if (!node.equals(localNode) && !greeted.contains(node)) {
                    greet(node, ClusterEnvelope.HELLO);
                }
            }
        } catch (RuntimeException e) {
            if (!stopped.get()) {
                LOG.warn("cluster view upkeep failed; retrying", e);
            }
        }
    }

    private void greet(String node, byte kind) {
        if (!stopped.get()) {
            publishControl(node, kind);
        }
    }

    /** Sends a message without payload of the transport's own; returns whether it was handed to Hazelcast. */
    private boolean publishControl(String node, byte kind) {
        ITopic<ClusterEnvelope> inbox = inboxes.get(node);
        HazelcastInstance hz = hazelcast;
        if (inbox == null && hz != null) {
            // from a node this one has not yet seen join: answer anyway
            inbox = hz.getTopic(INBOX_PREFIX + node);
        }
        if (inbox == null) {
            return false;
        }
        try {
            inbox.publish(new ClusterEnvelope(kind, localId, ClusterEnvelope.EMPTY));
            return true;
        } catch (RuntimeException e) {
            LOG.debug("control message {} to node {} failed", kind, node, e);
            return false;
        }
    }

    /** Follows Hazelcast's member list (inboxes of new members, forgetting departed ones), then reports the view. */
    private void update() {
        HazelcastInstance hz = hazelcast;
        if (hz == null || stopped.get()) {
            return;
        }
        Map<String, Member> current = nodesOf(hz);
        for (String node : current.keySet()) {
            if (!inboxes.containsKey(node)) {
                inboxes.put(node, hz.getTopic(INBOX_PREFIX + node));
            }
        }
        for (String node : inboxes.keySet()) {
            if (!current.containsKey(node)) {
                inboxes.remove(node);
                greeted.remove(node);
            }
        }
        report(current, false);
    }

    /** Reports the members heard from (and this node) when that set changed, or always when {@code first}. */
    private void report(Map<String, Member> current, boolean first) {
        if (!reporting || stopped.get()) {
            return;
        }
        List<String> next = new ArrayList<>();
        for (String node : current.keySet()) {
            if (node.equals(localNode) || greeted.contains(node)) {
                next.add(node);
            }
        }
        if (!next.contains(localNode)) {
            return; // shutting down: this member has left its own list
        }
        if (!first && new HashSet<>(next).equals(new HashSet<>(view))) {
            return;
        }
        List<String> v = List.copyOf(next);
        view = v;
        Listener l = listener;
        if (l != null && !stopped.get()) {
            try {
                l.membersChanged(v);
            } catch (RuntimeException e) {
                LOG.error("the engine failed on the cluster view {}", v, e);
            }
        }
    }

    /** Node id of every member running this transport, oldest member first. */
    private Map<String, Member> nodesOf(HazelcastInstance hz) {
        Map<String, Member> nodes = new LinkedHashMap<>();
        for (Member m : hz.getCluster().getMembers()) {
            String node = m.getAttribute(NODE_ATTRIBUTE);
            if (node != null) {
                nodes.put(node, m);
            }
        }
        return nodes;
    }
}
