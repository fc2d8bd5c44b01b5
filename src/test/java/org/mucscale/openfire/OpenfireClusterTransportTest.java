package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jivesoftware.openfire.cluster.ClusterEventListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.cluster.ClusterMap;
import org.mucscale.engine.cluster.ClusterTransport;

class OpenfireClusterTransportTest {

    private final FakeOpenfire openfire = new FakeOpenfire("node-a");
    private final Recorder engine = new Recorder();
    private OpenfireClusterTransport transport;
    private OpenfireClusterTransport peer;

    @AfterEach
    void stop() {
        if (transport != null) {
            transport.stop();
        }
        if (peer != null) {
            peer.stop();
        }
    }

    @Test
    void start_notClustered_reportsThisNodeAloneOnceOnTheEventThread() throws Exception {
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);

        assertThat(transport.localNode()).isEqualTo("node-a");
        assertThat(transport.members()).containsExactly("node-a");
        assertThat(engine.next()).isEqualTo("members [node-a] on " + OpenfireClusterTransport.EVENT_THREAD);
        assertThat(engine.nothingMore()).isTrue();
        assertThat(openfire.listeners).hasSize(1);
    }

    @Test
    void start_clustered_reportsOpenfiresMembersAtOnce() throws Exception {
        openfire.clustered("node-a", "node-b");
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);

        assertThat(transport.members()).containsExactly("node-a", "node-b");
        assertThat(engine.next()).startsWith("members [node-a, node-b]");
    }

    @Test
    void clusterEvents_reachTheEngineAsWholeViewsInOrder_withoutRepeats() throws Exception {
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);
        engine.next();
        ClusterEventListener events = openfire.listeners.get(0);

        openfire.clustered("node-a", "node-b");     // the hazelcast plugin starts the cluster after plugins load
        events.joinedCluster();
        events.markedAsSeniorClusterMember();
        events.joinedCluster(bytes("node-b"));        // already in the snapshot: no new view
        events.joinedCluster(bytes("node-c"));
        events.leftCluster(bytes("node-b"));
        events.leftCluster();                        // this node lost the cluster

        assertThat(engine.next()).startsWith("members [node-a, node-b] on " + OpenfireClusterTransport.EVENT_THREAD);
        assertThat(engine.next()).startsWith("members [node-a, node-b, node-c]");
        assertThat(engine.next()).startsWith("members [node-a, node-c]");
        assertThat(engine.next()).startsWith("members [node-a]");
        assertThat(engine.nothingMore()).isTrue();
        assertThat(transport.members()).containsExactly("node-a");
    }

    @Test
    void leftCluster_whileOpenfireShutsDown_keepsTheViewAndSendsNothingMoreToOtherNodes() throws Exception {
        openfire.clustered("node-a", "node-b");
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);
        engine.next();
        transport.send("node-b", new byte[1]);

        openfire.shuttingDown = true;
        openfire.listeners.get(0).leftCluster();
        transport.send("node-b", new byte[1]);
        transport.send("node-a", new byte[] {3});

        // not "alone": that would make this node adopt every room and write to the other nodes' occupants
        assertThat(engine.next()).isEqualTo("received from node-a [3] on " + OpenfireClusterTransport.EVENT_THREAD);
        assertThat(engine.nothingMore()).isTrue();
        assertThat(transport.members()).containsExactly("node-a", "node-b");
        waitFor(() -> openfire.written.get() == 1);
        assertThat(transport.dropped()).isEqualTo(1);
    }

    @Test
    void liveHost_outsideOpenfireAndOutsideAShutdown_isNotShuttingDown() {
        assertThat(OpenfireClusterHost.LIVE.shuttingDown()).isFalse();
    }

    @Test
    void stop_unregistersEverythingAndIgnoresLateEvents() throws Exception {
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);
        engine.next();
        ClusterEventListener events = openfire.listeners.get(0);

        transport.stop();
        transport.stop();
        events.joinedCluster(bytes("node-b"));

        assertThat(openfire.listeners).isEmpty();
        assertThat(engine.nothingMore()).isTrue();
        assertThat(eventThreadGone()).as("event thread ended").isTrue();
    }

    @Test
    void start_twice_isRefused() {
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);

        assertThatThrownBy(() -> transport.start(engine)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void send_toAMember_arrivesThroughItsInbox_withSenderAndBytes_asACopy() throws Exception {
        Recorder other = startPair();
        byte[] message = {4, 2};

        transport.send("node-b", message);
        message[0] = 0;

        assertThat(other.next()).startsWith("received from node-a [4, 2]");
        assertThat(engine.nothingMore()).as("nothing comes back to the sender").isTrue();
        assertThat(openfire.caches).containsKey(ClusterMailbox.inboxName("node-b"));
    }

    @Test
    void manyMessages_allArrive_whileTheInboxKeepsAtMostOneSlotRingPerSender() throws Exception {
        Recorder other = startPair();

        for (int i = 0; i < 3 * ClusterMailbox.SLOTS + 5; i++) {
            transport.send("node-b", new byte[] {(byte) i});
        }

        java.util.Set<String> got = new java.util.HashSet<>();
        for (int i = 0; i < 3 * ClusterMailbox.SLOTS + 5; i++) {
            got.add(other.next().replaceAll(" on .*", ""));
        }
        assertThat(got).hasSize(3 * ClusterMailbox.SLOTS + 5).contains("received from node-a [52]");
        assertThat(openfire.caches.get(ClusterMailbox.inboxName("node-b"))).hasSizeLessThanOrEqualTo(ClusterMailbox.SLOTS)
                .allSatisfy((key, value) -> assertThat(key).startsWith("1/node-a/"));
        assertThat(other.nothingMore()).isTrue();
    }

    @Test
    void bothWays_eachNodeHearsOnlyWhatWasWrittenToItsOwnInbox() throws Exception {
        Recorder other = startPair();

        transport.send("node-b", new byte[] {1});
        peer.send("node-a", new byte[] {2});

        assertThat(other.next()).startsWith("received from node-a [1]");
        assertThat(engine.next()).startsWith("received from node-b [2]");
        assertThat(other.nothingMore()).isTrue();
        assertThat(engine.nothingMore()).isTrue();
    }

    @Test
    void anInboxEntryOfAnotherKeyFormat_isDroppedAndCounted_andLaterMessagesArrive() throws Exception {
        Recorder other = startPair();
        Map<String, byte[]> inbox = openfire.caches.get(ClusterMailbox.inboxName("node-b"));

        inbox.put("2/node-c/0/zstd", new byte[] {9});
        inbox.put("2/node-c/1/zstd", new byte[] {9});
        inbox.put("no-format", new byte[] {9});
        transport.send("node-b", new byte[] {3});

        assertThat(other.next()).startsWith("received from node-a [3]");
        assertThat(other.nothingMore()).isTrue();
        assertThat(peer.unreadable()).isEqualTo(3);
    }

    @Test
    void joinedCluster_listensAgainOnTheReplacedInbox_exactlyOnce() throws Exception {
        Recorder other = startPair();
        transport.send("node-b", new byte[] {1});
        assertThat(other.next()).startsWith("received from node-a [1]");

        openfire.replaceCaches(); // Openfire swaps every cache as a node (re)joins: listeners do not carry over
        transport.send("node-b", new byte[] {2});
        waitFor(() -> openfire.written.get() == 2); // written while nobody listens
        openfire.listeners.get(1).joinedCluster();
        openfire.listeners.get(1).joinedCluster(); // a repeated join registers once, not twice
        transport.send("node-b", new byte[] {3});

        assertThat(other.next()).startsWith("received from node-a [3]");
        assertThat(other.nothingMore()).as("[2] was written while nobody listened; [3] arrives once").isTrue();
        assertThat(openfire.caches.get(ClusterMailbox.inboxName("node-b")).listeners).hasSize(1);
    }

    @Test
    void stop_writesWhatWasQueued_thenStopsListening() throws Exception {
        Recorder other = startPair();
        for (int i = 0; i < 10; i++) {
            transport.send("node-b", new byte[] {(byte) i});
        }

        transport.stop();
        for (int i = 0; i < 10; i++) {
            assertThat(other.next()).startsWith("received from node-a");
        }
        peer.stop();

        assertThat(openfire.caches.get(ClusterMailbox.inboxName("node-b")).listeners).isEmpty();
        assertThat(openfire.caches.get(ClusterMailbox.inboxName("node-a")).listeners).isEmpty();
    }

    @Test
    void send_whenTheClusterRefusesTheWrite_isDroppedAndCounted_andTheNextOneIsTried() throws Exception {
        Recorder other = startPair();
        openfire.failWrites = true;

        transport.send("node-b", new byte[1]);
        waitFor(() -> transport.dropped() == 1);
        openfire.failWrites = false;
        transport.send("node-b", new byte[] {5});

        assertThat(other.next()).startsWith("received from node-a [5]");
        assertThat(transport.dropped()).isEqualTo(1);
    }

    @Test
    void send_toANodeOutsideTheView_isDroppedWithoutWritingAnything() {
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);

        transport.send("node-b", new byte[1]);

        assertThat(openfire.written).hasValue(0);
        assertThat(transport.dropped()).isEqualTo(1);
    }

    @Test
    void send_toThisNode_isDeliveredOnTheEventThreadAsACopy() throws Exception {
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);
        engine.next();
        byte[] message = {7};

        transport.send("node-a", message);
        message[0] = 0;

        assertThat(engine.next()).isEqualTo("received from node-a [7] on " + OpenfireClusterTransport.EVENT_THREAD);
        assertThat(openfire.written).hasValue(0);
    }

    @Test
    void send_beforeStartOrAfterStop_isDropped() {
        transport = new OpenfireClusterTransport(openfire);
        transport.send("node-a", new byte[1]);
        transport.start(engine);
        transport.stop();
        transport.send("node-a", new byte[1]);

        assertThat(transport.dropped()).isEqualTo(2);
    }

    @Test
    void nodeIdsOutsideTheEngineAlphabet_areEncodedAndSentToTheRightBytes() throws Exception {
        FakeOpenfire custom = new FakeOpenfire("node 1");
        custom.clustered("node 1", "node 2");
        transport = new OpenfireClusterTransport(custom);
        transport.start(engine);

        assertThat(transport.localNode()).isEqualTo("x:6e6f64652031");
        assertThat(transport.members()).containsExactly("x:6e6f64652031", "x:6e6f64652032");
        transport.send("x:6e6f64652032", new byte[1]);
        waitFor(() -> custom.written.get() == 1);
        assertThat(custom.caches).containsKey("mucscale-inbox-x:6e6f64652032");
    }

    @Test
    void map_isOneOpenfireCachePerName_prefixed() {
        transport = new OpenfireClusterTransport(openfire);

        ClusterMap rooms = transport.map("rooms");

        assertThat(transport.map("rooms")).isSameAs(rooms);
        assertThat(openfire.caches).containsOnlyKeys("mucscale-rooms");
    }

    @Test
    void map_operations_copyValuesInAndOut() {
        transport = new OpenfireClusterTransport(openfire);
        ClusterMap map = transport.map("rooms");
        byte[] value = {1, 2};

        map.putAll(Map.of("r1", value, "r2", new byte[] {3}));
        value[0] = 9;
        byte[] got = map.get("r1");
        got[1] = 9;

        assertThat(map.get("r1")).containsExactly(1, 2);
        byte[] single = {5};
        map.putAll(Map.of("r4", single)); // one entry: a put of its own
        single[0] = 6;
        assertThat(map.get("r4")).containsExactly(5);
        map.removeAll(List.of("r4"));
        assertThat(map.getAll(List.of("r1", "r2", "r3"))).containsOnlyKeys("r1", "r2");
        assertThat(map.keys()).containsExactlyInAnyOrder("r1", "r2");
        map.removeAll(List.of("r1", "r3"));
        assertThat(map.keys()).containsExactly("r2");
        assertThat(map.get("r1")).isNull();
    }

    @Test
    void map_putAllOfANullValue_isRefusedNamingTheKey() {
        transport = new OpenfireClusterTransport(openfire);
        Map<String, byte[]> entries = new java.util.HashMap<>();
        entries.put("r1", null);

        assertThatThrownBy(() -> transport.map("rooms").putAll(entries)).hasMessageContaining("r1");
    }

    @Test
    void stop_notClustered_emptiesTheMaps_nobodyElseUsesThem() {
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);
        transport.map("rooms").putAll(Map.of("r1", new byte[1]));

        transport.stop();

        assertThat(openfire.caches.get("mucscale-rooms")).isEmpty();
    }

    @Test
    void stop_clustered_leavesTheMapsToTheOtherNodes() {
        openfire.clustered("node-a", "node-b");
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);
        transport.map("rooms").putAll(Map.of("r1", new byte[1]));

        transport.stop();

        assertThat(openfire.caches.get("mucscale-rooms")).containsOnlyKeys("r1");
    }

    private static boolean eventThreadGone() throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            boolean alive = Thread.getAllStackTraces().keySet().stream()
                    .anyMatch(t -> t.getName().equals(OpenfireClusterTransport.EVENT_THREAD) && t.isAlive());
            if (!alive) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    private static byte[] bytes(String id) {
        return id.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Two nodes, node-a (this test's transport) and node-b ({@link #peer}), clustered over the same caches, each
     * started and past its first view; returns node-b's engine.
     */
    private Recorder startPair() throws Exception {
        openfire.clustered("node-a", "node-b");
        FakeOpenfire b = openfire.sameCluster("node-b");
        Recorder other = new Recorder();
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);
        peer = new OpenfireClusterTransport(b);
        peer.start(other);
        assertThat(engine.next()).startsWith("members [node-a, node-b]");
        assertThat(other.next()).startsWith("members [node-a, node-b]");
        return other;
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 250 && !condition.getAsBoolean(); i++) {
            Thread.sleep(20);
        }
        assertThat(condition.getAsBoolean()).as("condition within 5 s").isTrue();
    }

    /**
     * A cache as the hazelcast plugin's is seen through Openfire's API: a map whose writes are reported to every
     * registered entry listener with the value written, on the writer's thread (Hazelcast: on its event threads).
     */
    static final class FakeCache extends ConcurrentHashMap<String, byte[]> {
        final Map<String, java.util.function.BiConsumer<String, byte[]>> listeners = new ConcurrentHashMap<>();

        @Override
        public byte[] put(String key, byte[] value) {
            byte[] old = super.put(key, value.clone());
            listeners.values().forEach(l -> l.accept(key, value.clone()));
            return old;
        }

        @Override
        public void putAll(Map<? extends String, ? extends byte[]> m) {
            m.forEach(this::put);
        }
    }

    /** Openfire's clustering API as {@link OpenfireClusterHost} sees it, in memory; {@link #sameCluster} shares it. */
    private static final class FakeOpenfire implements OpenfireClusterHost {
        final byte[] local;
        final List<ClusterEventListener> listeners;
        final Map<String, FakeCache> caches;
        final java.util.concurrent.atomic.AtomicInteger written;
        volatile List<byte[]> nodes = List.of();
        volatile boolean failWrites;
        volatile boolean shuttingDown;
        private final java.util.concurrent.atomic.AtomicInteger ids = new java.util.concurrent.atomic.AtomicInteger();

        FakeOpenfire(String local) {
            this(local, new CopyOnWriteArrayList<>(), new ConcurrentHashMap<>(),
                    new java.util.concurrent.atomic.AtomicInteger());
        }

        private FakeOpenfire(String local, List<ClusterEventListener> listeners, Map<String, FakeCache> caches,
                java.util.concurrent.atomic.AtomicInteger written) {
            this.local = bytes(local);
            this.listeners = listeners;
            this.caches = caches;
            this.written = written;
        }

        /** Another node of the same cluster: the same caches and members, the same list of cluster listeners. */
        FakeOpenfire sameCluster(String id) {
            FakeOpenfire other = new FakeOpenfire(id, listeners, caches, written);
            other.nodes = nodes;
            return other;
        }

        void clustered(String... ids) {
            List<byte[]> n = new ArrayList<>();
            for (String id : ids) {
                n.add(bytes(id));
            }
            nodes = n;
        }

        /** What Openfire does to every cache as a node joins: emptied, and its listeners gone. */
        void replaceCaches() {
            caches.values().forEach(c -> {
                c.listeners.clear();
                c.clear();
            });
        }

        @Override
        public byte[] localNodeId() {
            return local;
        }

        @Override
        public boolean clusteringStarted() {
            return !nodes.isEmpty();
        }

        @Override
        public List<byte[]> clusterNodeIds() {
            return nodes;
        }

        @Override
        public boolean shuttingDown() {
            return shuttingDown;
        }

        @Override
        public void addListener(ClusterEventListener listener) {
            listeners.add(listener);
        }

        @Override
        public void removeListener(ClusterEventListener listener) {
            listeners.remove(listener);
        }

        @Override
        public Map<String, byte[]> cache(String name) {
            return caches.computeIfAbsent(name, n -> new FakeCache());
        }

        @Override
        public Map<String, byte[]> plainCache(String name) {
            return new PlainView(caches.computeIfAbsent(name, n -> new FakeCache()));
        }

        /** What {@link #plainCache} hands out: writes fail while {@link #failWrites}, and are counted. */
        private final class PlainView extends java.util.AbstractMap<String, byte[]> {
            final FakeCache cache;

            PlainView(FakeCache cache) {
                this.cache = cache;
            }

                @Override
                public java.util.Set<Entry<String, byte[]>> entrySet() {
                    return cache.entrySet();
                }

                @Override
                public void putAll(Map<? extends String, ? extends byte[]> m) {
                    if (failWrites) {
                        throw new IllegalStateException("Hazelcast instance is not active");
                    }
                    written.addAndGet(m.size());
                    cache.putAll(m);
                }

                @Override
                public byte[] put(String key, byte[] value) {
                    return cache.put(key, value);
                }
        }

        @Override
        public String listen(Map<String, byte[]> cache, java.util.function.BiConsumer<String, byte[]> w) {
            if (!clusteringStarted()) {
                throw new UnsupportedOperationException(); // Openfire's DefaultCache
            }
            String id = "listener-" + ids.incrementAndGet();
            fake(cache).listeners.put(id, w);
            return id;
        }

        @Override
        public void unlisten(Map<String, byte[]> cache, String id) {
            fake(cache).listeners.remove(id);
        }

        private static FakeCache fake(Map<String, byte[]> view) {
            return ((PlainView) view).cache;
        }

        @Override
        public boolean clearIfNotClustered(Collection<Map<String, byte[]>> all) {
            if (clusteringStarted()) {
                return false;
            }
            all.forEach(Map::clear);
            return true;
        }
    }

    /** The engine's side: every call as a line, with the thread it came on. */
    private static final class Recorder implements ClusterTransport.Listener {
        private final BlockingQueue<String> calls = new LinkedBlockingQueue<>();

        @Override
        public void received(String fromNode, byte[] message) {
            calls.add("received from " + fromNode + " " + java.util.Arrays.toString(message) + " on "
                    + Thread.currentThread().getName());
        }

        @Override
        public void membersChanged(List<String> members) {
            calls.add("members " + members + " on " + Thread.currentThread().getName());
        }

        String next() throws InterruptedException {
            String call = calls.poll(5, TimeUnit.SECONDS);
            assertThat(call).as("a call from the transport within 5 s").isNotNull();
            return call;
        }

        boolean nothingMore() throws InterruptedException {
            return calls.poll(200, TimeUnit.MILLISECONDS) == null;
        }
    }
}
