package org.mucscale.openfire;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Messages between Openfire nodes as plain entries of Openfire caches, so that nothing of the plugin's classes crosses
 * the cluster: a node whose plugin was reloaded or upgraded reads what any build sends (docs/cluster.md, "Messages
 * inside Openfire: the mailbox", is the rule; docs/openfire.md has the Openfire and hazelcast-plugin sources).
 *
 * <ul>
 *   <li><b>One inbox per receiving node</b>: the cache {@value #INBOX_PREFIX}{@code <node id>}, String keys,
 *       {@code byte[]} values. The receiving node listens on its own inbox only
 *       ({@code Cache.addClusteredCacheEntryListener}, values included); the hazelcast plugin wraps our listener in
 *       a Hazelcast entry listener of its own on this member, so the listener is never serialized either.</li>
 *   <li><b>Key</b> {@code <format>/<sender node>/<slot>}, format {@value #FORMAT} (frozen; a key of another format is
 *       dropped and said once, below). The value is the engine's message as it was given to {@link #post}: its own
 *       versioning ({@code Wire}, {@code NodeVersions}) is the engine's business.</li>
 *   <li><b>Slots instead of removals</b>: each sender writes its messages to one receiver into {@value #SLOTS}
 *       rotating slots, overwriting what it wrote there before. The entry event carries the value written, so a
 *       message is consumed when its event arrives, whether or not the slot was overwritten since; what stays in an
 *       inbox is at most {@value #SLOTS} entries per sender (and their backups), and no consumed entry is ever
 *       removed one by one (that would be a second map operation, and a second event, per message). An inbox cache
 *       gets Openfire's default lifetime (6 hours, the hazelcast plugin's time-to-live), so slots of a sender that
 *       went away vanish by themselves.</li>
 *   <li><b>Posting</b> is asynchronous for the caller: a map write waits for its backup, and for seconds while
 *       Hazelcast promotes a dead member's partitions. {@link #post} only queues (bounded: {@value #QUEUE_LIMIT_BYTES}
 *       bytes, beyond which messages are dropped and counted, at most once being the transport's promise); one
 *       thread, {@value #WRITER_THREAD}, writes what is queued, up to {@value #SLOTS} messages per receiver in one
 *       {@code putAll} (distinct slots), in the order queued.</li>
 *   <li><b>At most once, any order</b>: a message posted while the receiver does not listen (its plugin reloading,
 *       or between its joining and its listener's registration) is never seen there; entries found in the inbox
 *       when a listener registers are old and are not read. Events arrive on Hazelcast's event threads, several at
 *       once: the receiver must accept calls from any thread (the engine numbers its messages per link).</li>
 * </ul>
 *
 * <p>Threads: {@link #post} from any engine thread (a lock-guarded queue); the writer thread owns the slot counters;
 * {@link #listen}/{@link #close} from the transport's start, stop and cluster-event paths (synchronized); arrivals on
 * Hazelcast's event threads read only immutable fields and the volatile receiver.
 */
final class ClusterMailbox {

    static final String INBOX_PREFIX = "mucscale-inbox-";
    /** The key's format: {@code 1/<sender node>/<slot>}. Frozen: every build reads and writes it. */
    static final int FORMAT = 1;
    /** Rotating slots per sender and receiver: also the most messages one {@code putAll} carries to one receiver. */
    static final int SLOTS = 16;
    /** Queued bytes beyond which {@link #post} drops (a receiver unreachable for long, a stalled cluster). */
    static final long QUEUE_LIMIT_BYTES = 64L * 1024 * 1024;
    static final String WRITER_THREAD = "mucscale-cluster-mailbox";
    private static final Logger LOG = LoggerFactory.getLogger(ClusterMailbox.class);
    private static final long CLOSE_WAIT_MS = 5_000;
    private static final String VERSION_RESOURCE = "/org/mucscale/engine/cluster/version.properties";

    /** Who takes the messages that arrive in this node's inbox. */
    @FunctionalInterface
    interface Receiver {
        void received(String fromNode, byte[] message);
    }

    private final OpenfireClusterHost host;
    private final String localNode;
    private final String keyPrefix;
    private final Map<String, Map<String, byte[]>> inboxes = new ConcurrentHashMap<>();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong unreadable = new AtomicLong();
    private final AtomicBoolean warnedFull = new AtomicBoolean();
    /** Key formats (and malformed keys) already reported, each once. */
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    /** Guarded by itself: what waits for the writer, and its size in bytes. */
    private final ArrayDeque<Outgoing> queue = new ArrayDeque<>();
    private long queuedBytes;
    private boolean closing;
    private Thread writer;

    /** Touched by the writer thread only: the next slot per receiver. */
    private final Map<String, Integer> nextSlot = new HashMap<>();

    private volatile Receiver receiver;
    /** Guarded by this: the registration on this node's inbox, or null. */
    private String listenerId;

    private record Outgoing(String node, byte[] message) {
    }

    ClusterMailbox(OpenfireClusterHost host, String localNode) {
        this.host = Objects.requireNonNull(host);
        this.localNode = Objects.requireNonNull(localNode);
        this.keyPrefix = FORMAT + "/" + localNode + "/";
    }

    static String inboxName(String node) {
        return INBOX_PREFIX + node;
    }

    /** Starts the writer thread; arrivals go to {@code r} once {@link #listen} has registered. */
    void start(Receiver r) {
        receiver = Objects.requireNonNull(r);
        synchronized (queue) {
            writer = new Thread(this::writeLoop, WRITER_THREAD);
            writer.setDaemon(true);
            writer.start();
        }
    }

    /**
     * Registers on this node's inbox, once per cluster membership: Openfire replaces every cache when this node joins
     * a cluster, and a listener does not move to the replacement. Call when clustered (at start, at every
     * {@code joinedCluster()}); a failure is logged and leaves this node deaf until the next join.
     */
    synchronized void listen() {
        Map<String, byte[]> inbox = inbox(localNode);
        if (listenerId != null) {
            // a join that raced with start: the same cache, so one registration must go (else every message twice);
            // after a real join the old id belongs to the replaced cache, and removing it does nothing
            try {
                host.unlisten(inbox, listenerId);
            } catch (RuntimeException e) {
                LOG.debug("MUC Scale's previous inbox listener was already gone: {}", e.toString());
            }
            listenerId = null;
        }
        try {
            listenerId = host.listen(inbox, this::arrived);
            LOG.info("MUC Scale listens on its cluster inbox {}", inboxName(localNode));
        } catch (RuntimeException e) {
            listenerId = null;
            LOG.error("MUC Scale could not listen on its cluster inbox {}: messages from other nodes will not reach "
                    + "this node until it joins the cluster again", inboxName(localNode), e);
        }
    }

    /** Forgets the registration: this node left the cluster, and Openfire dropped the clustered inbox with it. */
    synchronized void forgetListener() {
        listenerId = null;
    }

    /**
     * Queues {@code message} for {@code node}'s inbox; drops it (counted) when the queue is full, or once the writer
     * has ended. While {@link #close} drains, messages are still taken: the engine's threads may send their last ones
     * while it stops.
     */
    void post(String node, byte[] message) {
        synchronized (queue) {
            if (writer == null || queuedBytes + message.length > QUEUE_LIMIT_BYTES) {
                dropped.incrementAndGet();
                if (writer != null && warnedFull.compareAndSet(false, true)) {
                    LOG.warn("MUC Scale's cluster mailbox holds {} bytes that the cluster has not taken yet; messages "
                            + "to other nodes are dropped until it drains (said again only after it has drained)", queuedBytes);
                }
                return;
            }
            queue.addLast(new Outgoing(node, message));
            queuedBytes += message.length;
            queue.notifyAll();
        }
    }

    /**
     * Stops: writes what was queued before (for up to 5 s: the engine's last hand-offs go just before), then stops
     * listening on the inbox. Idempotent.
     */
    void close() {
        Thread w;
        synchronized (queue) {
            closing = true;
            w = writer;
            queue.notifyAll();
        }
        if (w != null) {
            try {
                w.join(CLOSE_WAIT_MS);
                if (w.isAlive()) {
                    LOG.warn("MUC Scale's cluster mailbox did not finish writing within {} ms; interrupting it",
                            CLOSE_WAIT_MS);
                    w.interrupt();
                }
            } catch (InterruptedException e) {
                w.interrupt();
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            if (listenerId != null) {
                try {
                    host.unlisten(inbox(localNode), listenerId);
                } catch (RuntimeException e) {
                    // the clustered inbox went with the cluster: nothing listens any more
                    LOG.debug("MUC Scale's inbox listener was already gone: {}", e.toString());
                }
                listenerId = null;
            }
        }
        receiver = null;
    }

    /** Messages not written (queue full, closed, or the cluster refused the write). */
    long dropped() {
        return dropped.get();
    }

    /** Inbox entries whose key this build cannot read. */
    long unreadable() {
        return unreadable.get();
    }

    /** One entry written to this node's inbox, on a Hazelcast event thread (or Openfire's, alone). */
    void arrived(String key, byte[] value) {
        Receiver r = receiver;
        if (value == null || r == null) {
            return;
        }
        int format = key.indexOf('/');
        int slot = key.lastIndexOf('/');
        if (format > 0 && slot > format + 1 && key.startsWith(FORMAT + "/")) {
            String from = key.substring(format + 1, slot);
            if (!from.equals(localNode)) {
                try {
                    r.received(from, value);
                } catch (RuntimeException e) {
                    // the engine only enqueues here; a failure is a bug of ours, not Hazelcast's to log
                    LOG.error("MUC Scale failed to take a cluster message from node {}", from, e);
                }
            }
            return;
        }
        unreadable.incrementAndGet();
        String seen = format > 0 ? key.substring(0, format) : key;
        if (reported.add(seen)) {
            LOG.warn("MUC Scale cannot read an entry of its cluster inbox {}: key \"{}\" is not of format {} "
                    + "({}/<node>/<slot>), which this build (MUC Scale {}) reads; a node of another MUC Scale build "
                    + "wrote it (the dashboard's cluster view lists each node's build). Such entries are dropped and "
                    + "counted; said once per key format", inboxName(localNode), key, FORMAT, FORMAT, build());
        }
    }

    private Map<String, byte[]> inbox(String node) {
        return inboxes.computeIfAbsent(node, n -> host.plainCache(inboxName(n)));
    }

    private void writeLoop() {
        List<Outgoing> batch = new ArrayList<>();
        for (;;) {
            synchronized (queue) {
                while (queue.isEmpty() && !closing) {
                    try {
                        queue.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (queue.isEmpty()) {
                    writer = null;
                    return;
                }
                while (!queue.isEmpty()) {
                    Outgoing o = queue.pollFirst();
                    queuedBytes -= o.message().length;
                    batch.add(o);
                }
                if (queuedBytes == 0) {
                    warnedFull.set(false);
                }
            }
            write(batch);
            batch.clear();
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
    }

    /** Writes {@code batch} in order: per receiver, runs of at most {@value #SLOTS} messages per {@code putAll}. */
    private void write(List<Outgoing> batch) {
        Map<String, Map<String, byte[]>> round = new LinkedHashMap<>();
        for (Outgoing o : batch) {
            Map<String, byte[]> entries = round.computeIfAbsent(o.node(), n -> new LinkedHashMap<>());
            int slot = nextSlot.merge(o.node(), 1, (a, b) -> (a + b) % SLOTS);
            entries.put(keyPrefix + slot, o.message());
            if (entries.size() == SLOTS) {
                flush(o.node(), round.remove(o.node()));
            }
        }
        round.forEach(this::flush);
    }

    private void flush(String node, Map<String, byte[]> entries) {
        try {
            inbox(node).putAll(entries);
        } catch (RuntimeException e) {
            // the cluster is going away under us, or the node left: at most once allows dropping
            dropped.addAndGet(entries.size());
            LOG.debug("MUC Scale dropped {} cluster messages to node {}: {}", entries.size(), node, e.toString());
        }
    }

    /** This build, as the engine publishes it (the engine's filtered version.properties, in the plugin's lib/). */
    private static String build() {
        try (InputStream in = ClusterMailbox.class.getResourceAsStream(VERSION_RESOURCE)) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
