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
import org.jivesoftware.util.cache.ClusterTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.cluster.ClusterMap;
import org.mucscale.engine.cluster.ClusterTransport;

class OpenfireClusterTransportTest {

    private final FakeOpenfire openfire = new FakeOpenfire("node-a");
    private final Recorder engine = new Recorder();
    private OpenfireClusterTransport transport;

    @AfterEach
    void stop() {
        if (transport != null) {
            transport.stop();
        }
        ClusterMessageTask.install(null);
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
        assertThat(openfire.tasks).hasSize(1);
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
        new ClusterMessageTask("node-b", new byte[1]).run();

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
    void send_toAMember_runsOneTaskThereThatCarriesSenderAndBytes() throws Exception {
        openfire.clustered("node-a", "node-b");
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);
        engine.next();

        transport.send("node-b", new byte[] {4, 2});

        assertThat(openfire.tasks).hasSize(1);
        assertThat(new String(openfire.tasks.get(0).node(), StandardCharsets.UTF_8)).isEqualTo("node-b");
        // the task arrives on node-b: there it finds node-b's transport; here, ours stands in for it
        openfire.tasks.get(0).task().run();
        assertThat(engine.next()).startsWith("received from node-a [4, 2]");
    }

    @Test
    void send_toANodeOutsideTheView_isDroppedWithoutAskingOpenfire() {
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);

        transport.send("node-b", new byte[1]);

        assertThat(openfire.tasks).isEmpty();
        assertThat(transport.dropped()).isEqualTo(1);
    }

    @Test
    void send_whenOpenfireRefusesTheNode_isDroppedQuietly_andNotRetriedUntilTheViewChanges() throws Exception {
        openfire.clustered("node-a", "node-b");
        openfire.refuseTasks = true;
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);
        engine.next();

        transport.send("node-b", new byte[1]);
        transport.send("node-b", new byte[1]);

        assertThat(transport.dropped()).isEqualTo(2);
        assertThat(openfire.attempts).hasValue(1);
        openfire.refuseTasks = false;
        openfire.listeners.get(0).joinedCluster(bytes("node-c"));
        engine.next();
        transport.send("node-b", new byte[1]);
        assertThat(openfire.tasks).hasSize(1);
    }

    @Test
    void send_whenTheClusterFailsOtherwise_isDroppedButTriedAgainNextTime() {
        openfire.clustered("node-a", "node-b");
        openfire.failTasks = true;
        transport = new OpenfireClusterTransport(openfire);
        transport.start(engine);

        transport.send("node-b", new byte[1]);
        transport.send("node-b", new byte[1]);

        assertThat(transport.dropped()).isEqualTo(2);
        assertThat(openfire.attempts).hasValue(2);
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
        assertThat(openfire.tasks).isEmpty();
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
        assertThat(new String(custom.tasks.get(0).node(), StandardCharsets.UTF_8)).isEqualTo("node 2");
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

    /** Openfire's clustering API as {@link OpenfireClusterHost} sees it, in memory. */
    private static final class FakeOpenfire implements OpenfireClusterHost {
        record SentTask(byte[] node, ClusterTask<?> task) {
        }

        final byte[] local;
        final List<ClusterEventListener> listeners = new CopyOnWriteArrayList<>();
        final List<SentTask> tasks = new CopyOnWriteArrayList<>();
        final Map<String, Map<String, byte[]>> caches = new ConcurrentHashMap<>();
        volatile List<byte[]> nodes = List.of();
        volatile boolean refuseTasks;
        volatile boolean failTasks;
        volatile boolean shuttingDown;
        final java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();

        FakeOpenfire(String local) {
            this.local = bytes(local);
        }

        void clustered(String... ids) {
            List<byte[]> n = new ArrayList<>();
            for (String id : ids) {
                n.add(bytes(id));
            }
            nodes = n;
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
        public void runTask(byte[] nodeId, ClusterTask<?> task) {
            attempts.incrementAndGet();
            if (refuseTasks) {
                throw new IllegalArgumentException("Requested node not found in cluster");
            }
            if (failTasks) {
                throw new IllegalStateException("Hazelcast instance is not active");
            }
            tasks.add(new SentTask(nodeId, task));
        }

        @Override
        public Map<String, byte[]> cache(String name) {
            return caches.computeIfAbsent(name, n -> new ConcurrentHashMap<>());
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
