package org.mucscale.openfire;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jivesoftware.openfire.cluster.ClusterEventListener;
import org.mucscale.engine.cluster.ClusterMap;
import org.mucscale.engine.cluster.ClusterTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's {@link ClusterTransport} inside Openfire, on Openfire's own clustering API only: Openfire's hazelcast
 * plugin owns Hazelcast (its classes are private to that plugin), this class never touches it.
 *
 * <ul>
 *   <li><b>Node id</b>: this node's Openfire {@code NodeID} as text ({@link NodeIds}).</li>
 *   <li><b>Members</b>: when this node is clustered, {@code ClusterManager.getNodesInfo()} at start and at every
 *       {@code joinedCluster()}; else this node alone. Changes come from a {@link ClusterEventListener}
 *       ({@link ClusterView} says which event means what) and reach the engine's listener on one thread of ours,
 *       {@value #EVENT_THREAD}, in the order Openfire dispatched them, each time as the whole view. Openfire's
 *       hazelcast plugin starts the cluster only after every plugin has loaded, so on a clustered node the first
 *       view is this node alone and the cluster's view follows when {@code joinedCluster()} fires.</li>
 *   <li><b>Messages</b>: entries of the receiving node's inbox cache ({@link ClusterMailbox}: plain String keys and
 *       {@code byte[]} values, no class of ours in the cluster, so a reloaded or upgraded plugin reads them),
 *       asynchronous, at most once, in any order. This node listens on its inbox whenever it is clustered: at start,
 *       and again at every {@code joinedCluster()}, synchronously on Openfire's dispatcher thread, before the view
 *       that makes the engine talk to the others is reported (Openfire replaces the caches on a join, and the
 *       listener with them). A message to a node outside the view is dropped and counted here; a message to this
 *       node itself is handed over on the event thread.</li>
 *   <li><b>Maps</b>: {@link OpenfireClusterMap} over {@code CacheFactory.createCache("mucscale-" + name)}, set up
 *       never to evict or expire ({@link OpenfireClusterHost#LIVE}). Only JDK types (String, byte[]) go into them, so
 *       no plugin class ends up in Hazelcast.</li>
 *   <li><b>Shutdown</b>: when Openfire (or the JVM) is stopping, this node's {@code leftCluster()} is not
 *       reported as a view of this node alone: the view stays and nothing more is sent to other nodes, which see
 *       this node leave and take its rooms over as from a crashed node.</li>
 *   <li><b>Stop</b>: writes what the mailbox still holds (the engine's last hand-offs, at most 5 s), stops listening
 *       on the inbox, removes the cluster event listener and stops the event thread. Openfire's
 *       cluster membership is left alone (Openfire owns it), and so are the caches when clustered (other nodes use
 *       them); alone, the caches are emptied, so a reload starts from nothing as a first cluster member would.</li>
 * </ul>
 *
 * <p>Concurrency: Openfire calls the {@link ClusterEventListener} on its "ClusterManager events dispatcher" thread;
 * we only enqueue there, and register on the inbox at {@code joinedCluster()}. Messages arrive on Hazelcast's event
 * threads, several at once. {@link #send} and {@link #map} are called from any engine thread. {@link #members()} reads a
 * volatile immutable list.
 */
public final class OpenfireClusterTransport implements ClusterTransport {

    static final String EVENT_THREAD = "mucscale-cluster-events";
    static final String CACHE_PREFIX = "mucscale-";
    private static final Logger LOG = LoggerFactory.getLogger(OpenfireClusterTransport.class);
    private static final long STOP_WAIT_MS = 5_000;

    private final OpenfireClusterHost host;
    private final String localNode;
    private final Map<String, OpenfireClusterMap> maps = new ConcurrentHashMap<>();
    private final AtomicLong dropped = new AtomicLong();
    private final ClusterEventListener clusterEvents = new ClusterEvents();
    private final ClusterMailbox mailbox;
    /** Guards enqueueing onto {@link #events}, so nothing is queued before the first view or after stop. */
    private final Object queueLock = new Object();

    private volatile List<String> members;
    /** Openfire is shutting down and this node left the cluster: nothing goes to other nodes any more. */
    private volatile boolean leaving;
    private volatile Listener listener;
    private ExecutorService events;
    /** Touched by the event thread only (and by start() before that thread has any work). */
    private ClusterView view;
    private boolean started;
    private boolean stopped;

    /** The transport of this Openfire node. */
    public OpenfireClusterTransport() {
        this(OpenfireClusterHost.LIVE);
    }

    OpenfireClusterTransport(OpenfireClusterHost host) {
        this.host = Objects.requireNonNull(host);
        this.localNode = NodeIds.engineId(host.localNodeId());
        this.members = List.of(localNode);
        this.mailbox = new ClusterMailbox(host, localNode);
    }

    @Override
    public String localNode() {
        return localNode;
    }

    @Override
    public List<String> members() {
        return members;
    }

    @Override
    public void start(Listener l) {
        Objects.requireNonNull(l, "listener");
        synchronized (queueLock) {
            if (started) {
                throw new IllegalStateException("a cluster transport starts once");
            }
            started = true;
            listener = l;
            events = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, EVENT_THREAD);
                t.setDaemon(true);
                return t;
            });
            view = new ClusterView(localNode);
            mailbox.start(this::received);
            // Listener first, then the first view: a join racing with start() is then either in the snapshot or
            // queued after it (both are fine: the view ignores what it already has). Cluster events wait for
            // queueLock, so the first view is the first thing on the event thread.
            host.addListener(clusterEvents);
            if (host.clusteringStarted()) {
                mailbox.listen();
            }
            List<String> first = host.clusteringStarted() ? view.reset(engineIds(host.clusterNodeIds())) : null;
            List<String> initial = first == null ? view.current() : first;
            members = initial;
            events.execute(() -> report(initial));
        }
        LOG.info("MUC Scale cluster transport started on node {}; members {}", localNode, members);
    }

    @Override
    public void stop() {
        ExecutorService ex;
        synchronized (queueLock) {
            if (stopped) {
                return;
            }
            stopped = true;
            ex = events;
            if (started) {
                host.removeListener(clusterEvents);
                ex.shutdown();
            }
        }
        if (started) {
            mailbox.close();
        }
        if (ex != null) {
            try {
                if (!ex.awaitTermination(STOP_WAIT_MS, TimeUnit.MILLISECONDS)) {
                    LOG.warn("MUC Scale's cluster event thread did not finish within {} ms; interrupting it",
                            STOP_WAIT_MS);
                    ex.shutdownNow();
                }
            } catch (InterruptedException e) {
                ex.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
        List<Map<String, byte[]>> caches = new ArrayList<>();
        maps.values().forEach(m -> caches.add(m.cache()));
        if (!caches.isEmpty() && host.clearIfNotClustered(caches)) {
            LOG.debug("MUC Scale emptied its {} local cluster maps (not clustered: nobody else uses them)",
                    caches.size());
        }
        listener = null;
        members = List.of(localNode);
        LOG.info("MUC Scale cluster transport stopped on node {} ({} messages dropped while running)", localNode,
                dropped());
    }

    @Override
    public void send(String node, byte[] message) {
        Objects.requireNonNull(message, "message");
        if (listener == null) {
            dropped.incrementAndGet();
            return;
        }
        if (node.equals(localNode)) {
            byte[] copy = message.clone();
            enqueue(() -> received(localNode, copy));
            return;
        }
        if (leaving || !members.contains(node)) {
            dropped.incrementAndGet();
            return;
        }
        // a copy: the mailbox writes it later, on its own thread
        mailbox.post(node, message.clone());
    }

    @Override
    public ClusterMap map(String name) {
        Objects.requireNonNull(name, "name");
        return maps.computeIfAbsent(name, n -> new OpenfireClusterMap(n, host.cache(CACHE_PREFIX + n)));
    }

    /** Messages not handed over (to a node outside the view, after stop, or not written by the mailbox). */
    long dropped() {
        return dropped.get() + mailbox.dropped();
    }

    /** Inbox entries this build could not read (a key of another format). */
    long unreadable() {
        return mailbox.unreadable();
    }

    private void received(String fromNode, byte[] message) {
        Listener l = listener;
        if (l != null) {
            l.received(fromNode, message);
        }
    }

    private void report(List<String> next) {
        Listener l = listener;
        if (next == null || l == null) {
            return;
        }
        members = next;
        LOG.info("MUC Scale cluster members now {} (this node {})", next, localNode);
        try {
            l.membersChanged(next);
        } catch (RuntimeException e) {
            LOG.error("MUC Scale's engine failed to take the cluster view {}", next, e);
        }
    }

    /** Runs {@code task} on the event thread, unless stopped (late Openfire events are then ignored). */
    private void enqueue(Runnable task) {
        synchronized (queueLock) {
            if (!started || stopped) {
                return;
            }
            try {
                events.execute(task);
            } catch (RejectedExecutionException e) {
                // shut down concurrently: nothing to report any more
            }
        }
    }

    private boolean relaying() {
        synchronized (queueLock) {
            return started && !stopped;
        }
    }

    private static List<String> engineIds(List<byte[]> nodeIds) {
        List<String> ids = new ArrayList<>(nodeIds.size());
        for (byte[] id : nodeIds) {
            ids.add(NodeIds.engineId(id));
        }
        return ids;
    }

    /** Openfire's cluster events, on Openfire's dispatcher thread: turned into views on ours. */
    private final class ClusterEvents implements ClusterEventListener {
        @Override
        public void joinedCluster() {
            // here, on Openfire's dispatcher thread: the others may write to our inbox as soon as they see us, and
            // the sooner we listen the less is lost (Openfire has replaced the caches before calling listeners)
            if (relaying()) {
                mailbox.listen();
            }
            enqueue(() -> report(view.reset(engineIds(host.clusterNodeIds()))));
        }

        @Override
        public void joinedCluster(byte[] nodeID) {
            String node = NodeIds.engineId(nodeID);
            enqueue(() -> report(view.joined(node)));
        }

        @Override
        public void leftCluster() {
            // Openfire fires this while it leaves, after CacheFactory.leftCluster() has replaced the clustered caches
            // with local ones (ClusterManager.java:102-109), so nothing can be handed over any more (docs/cluster.md)
            if (host.shuttingDown()) {
                // Leaving the cluster is the first step of Openfire's shutdown. Reported as "alone", it made this
                // node adopt every room and write to the other nodes' occupants through Openfire's routing while
                // those nodes took its rooms over and re-delivered the same messages (RealOpenfireClusterIT under
                // load: one or two messages twice). The view stays; nothing more goes to other nodes, which treat
                // this node as crashed: they resend what it never confirmed and re-deliver what it accepted.
                leaving = true;
                mailbox.forgetListener();
                LOG.info("MUC Scale: Openfire is shutting down and left the cluster; this node keeps its view {} "
                        + "and sends nothing more to the other nodes, which take its rooms over", members);
                return;
            }
            mailbox.forgetListener();
            enqueue(() -> report(view.alone()));
        }

        @Override
        public void leftCluster(byte[] nodeID) {
            String node = NodeIds.engineId(nodeID);
            enqueue(() -> report(view.left(node)));
        }

        @Override
        public void markedAsSeniorClusterMember() {
            // seniority means nothing to the engine
        }
    }
}
