package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.cluster.Rendezvous;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Three engines, each a real Hazelcast member on loopback, with users' sessions on the node their stanzas enter at
 * (Openfire's shape): rooms and occupants spread over the nodes, every occupant gets every message exactly once and in
 * each sender's order, on its own node only; a graceful leave moves rooms with no error; a member that dies has its
 * rooms taken over, with occupants on the survivors still joined.
 */
class ClusterEnginesTest {
    static final String SERVICE = "muc.example.org";
    static final int NODES = 3;
    static final int USERS = 24;
    static final int ROOMS = 6;
    private static final Pattern BODY = Pattern.compile("<body>([^<]*)</body>");

    private final List<Node> nodes = new ArrayList<>();

    /** One engine and what its host delivered, per recipient, in order. */
    static final class Node implements Delivery {
        final String name;
        final Map<String, List<String>> received = new ConcurrentHashMap<>();
        /** The thread that wrote each of {@link #received}'s entries, in the same order (for failure messages). */
        final Map<String, List<String>> writers = new ConcurrentHashMap<>();
        MucScaleEngine engine;
        HazelcastClusterTransport transport;
        /** The engine's transport: {@link #transport}, except that relays can be withheld (see {@link Withholding}). */
        Withholding withholding;
        Settings settings;

        Node(String name) {
            this.name = name;
        }

        /** While set, the relay writer's deliveries wait for it: a relay writer that lags behind (a descheduled thread). */
        volatile CountDownLatch relayWriterStall;

        @Override
        public void deliver(RenderedStanza stanza, Jid recipient) {
            CountDownLatch stall = relayWriterStall;
            if (stall != null && Thread.currentThread().getName().startsWith("mucscale-cluster-relay-in")) {
                try {
                    stall.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            add(recipient.toString(), stanza.forRecipient(recipient));
        }

        @Override
        public void send(XmlElement stanza) {
            add(stanza.attribute("to"), stanza.toXml());
        }

        private void add(String to, String xml) {
            List<String> l = received.computeIfAbsent(to, k -> Collections.synchronizedList(new ArrayList<>()));
            synchronized (l) {
                l.add(xml);
                writers.computeIfAbsent(to, k -> new ArrayList<>()).add(Thread.currentThread().getName());
            }
        }

        /** Which thread wrote each of room k's messages from sender x to user i ("round by thread"). */
        List<String> writersOf(int i, int k, int x, String tag) {
            List<String> out = new ArrayList<>();
            List<String> l = received.get(user(i));
            if (l == null) {
                return out;
            }
            synchronized (l) {
                List<String> w = writers.get(user(i));
                for (int j = 0; j < l.size(); j++) {
                    Matcher m = BODY.matcher(l.get(j));
                    if (l.get(j).contains("from=\"room" + k + "@") && m.find()
                            && m.group(1).startsWith(tag + "|" + x + "|" + k + "|")) {
                        out.add(m.group(1).substring(m.group(1).lastIndexOf('|') + 1) + " by " + w.get(j));
                    }
                }
            }
            return out;
        }

        List<String> of(String jid) {
            List<String> l = received.get(jid);
            if (l == null) {
                return List.of();
            }
            synchronized (l) {
                return new ArrayList<>(l);
            }
        }
    }

    @AfterEach
    void stopAll() {
        List<Node> all = new ArrayList<>(started);
        nodes.stream().filter(n -> !all.contains(n)).forEach(all::add);
        stopAfterTest(all);
    }

    /**
     * Ends a test's nodes. Nothing is checked once a test is over, so the members are killed at once rather than left
     * one after the other: each graceful leave waits for Hazelcast to move the partitions the member held (seconds
     * per member, twice per test; the tests of a graceful leave do one in their own bodies). Each engine then gives
     * up on handing its rooms to the (gone) others; they are closed side by side.
     */
    static void stopAfterTest(List<Node> nodes) {
        for (Node n : nodes) {
            if (n.transport != null) {
                n.transport.terminate();
            }
        }
        List<Thread> closing = new ArrayList<>();
        for (Node n : nodes) {
            MucScaleEngine engine = n.engine;
            if (engine == null) {
                continue;
            }
            Thread t = new Thread(() -> {
                try {
                    engine.close();
                } catch (RuntimeException ignored) {
                    // already stopped
                }
            }, "test-close-" + n.name);
            t.start();
            closing.add(t);
        }
        for (Thread t : closing) {
            try {
                t.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private Node startNode(String name, List<Integer> ports, int port) {
        Node node = new Node(name);
        Map<String, String> text = nodeSettings(name, ports, port);
        text.putAll(extraSettings);
        Settings settings = Settings.fromText(StandaloneServer.catalog(), text);
        node.settings = settings;
        node.transport = HazelcastClusterTransport.create(settings);
        node.withholding = new Withholding(node.transport);
        node.engine = MucScaleEngine.builder(SERVICE, settings, node).cluster(node.withholding).build();
        node.engine.start();
        nodes.add(node);
        return node;
    }

    /**
     * The real transport, with a switch that keeps relays back instead of sending them (what Hazelcast still has in
     * flight when a member dies, handed over later by the test as Hazelcast would hand it over late), one that drops
     * everything sent, and switches that make reads of the room-state maps fail and writes slow or incomplete.
     */
    static final class Withholding implements org.mucscale.engine.cluster.ClusterTransport {
        /** A relay's first byte (the engine's message kind, docs: Wire). */
        private static final byte RELAY = 2;
        private final HazelcastClusterTransport real;
        volatile boolean withhold;
        final List<Map.Entry<String, byte[]>> withheld = Collections.synchronizedList(new ArrayList<>());

        Withholding(HazelcastClusterTransport real) {
            this.real = real;
        }

        @Override
        public String localNode() {
            return real.localNode();
        }

        @Override
        public List<String> members() {
            return real.members();
        }

        /** While set, this node sends nothing more to other nodes: relays and confirmations die with it. */
        volatile boolean silent;
        /** While set, entries whose value contains it are left out of writes (cut short as the member died). */
        volatile String dropEntriesWith;
        /** Added to every write of the room-state maps: a slow write. */
        volatile long writeDelayMs;

        @Override
        public void send(String node, byte[] message) {
            if (silent) {
                return;
            }
            if (withhold && message.length > 0 && message[0] == RELAY) {
                withheld.add(Map.entry(node, message));
                return;
            }
            real.send(node, message);
        }

        @Override
        public org.mucscale.engine.cluster.ClusterMap map(String name) {
            org.mucscale.engine.cluster.ClusterMap map = real.map(name);
            return name.equals("directory") ? map : new FailingReads(map, this);
        }

        /**
         * While set, stopping only detaches the engine and the member stays in the cluster (inside Openfire: the
         * plugin is reloaded on a running node); a new engine can then start on this transport again.
         */
        volatile boolean keepMembershipOnStop;
        private volatile Listener current;
        private boolean started;

        @Override
        public synchronized void start(Listener listener) {
            current = listener;
            if (started) {
                listener.membersChanged(real.members());
                return;
            }
            started = true;
            real.start(new Listener() {
                @Override
                public void received(String fromNode, byte[] message) {
                    Listener l = current;
                    if (l != null) {
                        l.received(fromNode, message);
                    }
                }

                @Override
                public void membersChanged(List<String> members) {
                    Listener l = current;
                    if (l != null) {
                        l.membersChanged(members);
                    }
                }
            });
        }

        @Override
        public void stop() {
            if (keepMembershipOnStop) {
                current = null;
            } else {
                real.stop();
            }
        }

        @Override
        public boolean running() {
            return real.running();
        }

        /** While above zero, reads of the room-state maps fail (and count it down): Hazelcast failing a read. */
        final java.util.concurrent.atomic.AtomicInteger failReads = new java.util.concurrent.atomic.AtomicInteger();
        /** While set, every read of the room-state maps fails. */
        volatile boolean failAllReads;

        /** The entries of a write as these switches let them through, once its delay is over. */
        Map<String, byte[]> written(Map<String, byte[]> entries) {
            long delay = writeDelayMs;
            if (delay > 0) {
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            String drop = dropEntriesWith;
            if (drop == null) {
                return entries;
            }
            Map<String, byte[]> kept = new HashMap<>();
            entries.forEach((k, v) -> {
                if (!new String(v, java.nio.charset.StandardCharsets.ISO_8859_1).contains(drop)) {
                    kept.put(k, v);
                }
            });
            return kept;
        }

        void readFails() {
            if (failAllReads || failReads.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("injected: the replicated map could not be read");
            }
        }
    }

    /** A real map whose reads fail, and whose writes are slow or incomplete, as its {@link Withholding} says. */
    record FailingReads(org.mucscale.engine.cluster.ClusterMap real, Withholding switches)
            implements org.mucscale.engine.cluster.ClusterMap {
        @Override
        public void putAll(Map<String, byte[]> entries) {
            real.putAll(switches.written(entries));
        }

        @Override
        public Map<String, byte[]> getAll(java.util.Collection<String> keys) {
            switches.readFails();
            return real.getAll(keys);
        }

        @Override
        public byte[] get(String key) {
            switches.readFails();
            return real.get(key);
        }

        @Override
        public void removeAll(java.util.Collection<String> keys) {
            real.removeAll(keys);
        }

        @Override
        public java.util.Set<String> keys() {
            if (switches.failAllReads) {
                // a scan of the whole map outlasts a read of a few keys: the take-over is still under way when the
                // rooms asked for by stanzas are given up on
                try {
                    Thread.sleep(400);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            switches.readFails();
            return real.keys();
        }
    }

    /** Settings every node of a test gets on top of {@link #nodeSettings} (set before the cluster starts). */
    private final Map<String, String> extraSettings = new HashMap<>();

    /** Settings text of cluster member {@code name} on {@code port}: no JMX, HTTP or probe, limits out of reach. */
    static Map<String, String> nodeSettings(String name, List<Integer> ports, int port) {
        Map<String, String> text = new HashMap<>();
        text.put("mucscale.metrics.jmx-enabled", "false");
        text.put("mucscale.metrics.http-port", "0");
        text.put("mucscale.metrics.probe-enabled", "false");
        text.put("mucscale.muc.stanza-id-node", name);
        text.put("mucscale.muc.occupant-messages-per-second", "1000000");
        text.put("mucscale.muc.occupant-burst", "1000000");
        text.put("mucscale.muc.room-messages-per-second", "1000000");
        text.put("mucscale.muc.room-burst", "1000000");
        text.put("mucscale.standalone.cluster-enabled", "true");
        text.put("mucscale.standalone.cluster-port", Integer.toString(port));
        text.put("mucscale.standalone.cluster-members", ports.stream().map(p -> "127.0.0.1:" + p)
                .reduce((a, b) -> a + "," + b).orElseThrow());
        text.put("mucscale.standalone.cluster-name", "engines-" + ports.get(0));
        return text;
    }

    /** The members' Hazelcast ports (set by {@link #startCluster}). */
    private List<Integer> ports;

    private void startCluster() throws Exception {
        ports = List.of(org.mucscale.testkit.FreePort.next(), org.mucscale.testkit.FreePort.next(), org.mucscale.testkit.FreePort.next());
        for (int i = 0; i < NODES; i++) {
            startNode("n" + i, ports, ports.get(i));
        }
        started.addAll(nodes);
        await(() -> nodes.stream().allMatch(n -> n.engine.cluster().members().size() == NODES), "three members");
        awaitPartitionsSafe(nodes);
    }

    /**
     * Every partition backed up: a member killed while Hazelcast still migrates partitions after a join can take
     * entries with it (docs/cluster.md, "A crash right after a join"), which is Hazelcast's limit, not what these
     * tests are about. CI once killed a member mid-migration here and a room came back without an occupant.
     */
    static void awaitPartitionsSafe(List<Node> nodes) throws Exception {
        await(() -> nodes.stream().allMatch(n -> n.transport.hazelcastInstance().getPartitionService()
                .isClusterSafe()), "partitions settled");
    }

    /**
     * The node that owns the most rooms (node ids are random, so which node owns rooms differs from run to run; with
     * 6 rooms over 3 nodes one owns none about once in eleven runs).
     */
    private int busiest() {
        int best = 0;
        for (int i = 1; i < nodes.size(); i++) {
            if (nodes.get(i).engine.muc().roomCount() > nodes.get(best).engine.muc().roomCount()) {
                best = i;
            }
        }
        return best;
    }

    static String user(int i) {
        return "u" + i + "@example.org/r";
    }

    static String room(int k) {
        return "room" + k + "@" + SERVICE;
    }

    /** The three nodes as started (the list above loses the ones a test stops). */
    private final List<Node> started = new ArrayList<>();

    /** User i's session is on node i % NODES, for good. */
    Node home(int i) {
        return started.get(i % NODES);
    }

    /** Rooms of user i. */
    static List<Integer> roomsOf(int i) {
        return List.of(i % ROOMS, (i + 1) % ROOMS);
    }

    /** User {@code owner} creates {@code room} as an instant room through its home node, joined as {@code nick}. */
    private void createInstantRoom(int owner, String room, String nick) throws Exception {
        Node n = home(owner);
        n.engine.process(join(user(owner), room, nick));
        await(() -> n.of(user(owner)).stream().anyMatch(x -> x.contains("code=\"201\"")), "room created");
        n.engine.process(instantRoom(user(owner), room));
        await(() -> n.of(user(owner)).stream().anyMatch(x -> x.contains("type=\"result\"")), "room unlocked");
    }

    private void joinEveryone() throws Exception {
        // the first user of each room creates it as an instant room
        for (int k = 0; k < ROOMS; k++) {
            createInstantRoom(k, room(k), "nick" + k);
        }
        for (int i = 0; i < USERS; i++) {
            for (int k : roomsOf(i)) {
                if (i != k) {
                    home(i).engine.process(join(user(i), room(k), "nick" + i));
                }
            }
        }
        for (int i = 0; i < USERS; i++) {
            int u = i;
            await(() -> selfPresences(home(u), user(u)) >= roomsOf(u).size(), "user " + u + " joined");
        }
    }

    private static int selfPresences(Node n, String jid) {
        int c = 0;
        for (String x : n.of(jid)) {
            if (x.startsWith("<presence") && x.contains("code=\"110\"") && !x.contains("unavailable")) {
                c++;
            }
        }
        return c;
    }

    private void sendMessages(int perRoom, String tag, Predicate<Integer> senders) {
        for (int m = 0; m < perRoom; m++) {
            for (int i = 0; i < USERS; i++) {
                if (!senders.test(i)) {
                    continue;
                }
                for (int k : roomsOf(i)) {
                    home(i).engine.process(groupchat(user(i), room(k), tag + "|" + i + "|" + k + "|" + m));
                }
            }
        }
    }

    /** Bodies of the given tag user i received from room k, per sender, in arrival order. */
    private static Map<Integer, List<Integer>> received(Node n, int i, int k, String tag) {
        Map<Integer, List<Integer>> bySender = new HashMap<>();
        for (String x : n.of(user(i))) {
            if (!x.startsWith("<message") || !x.contains("from=\"room" + k + "@")) {
                continue;
            }
            Matcher m = BODY.matcher(x);
            if (m.find()) {
                String[] p = m.group(1).split("\\|");
                if (p.length == 4 && p[0].equals(tag) && Integer.parseInt(p[2]) == k) {
                    bySender.computeIfAbsent(Integer.parseInt(p[1]), s -> new ArrayList<>()).add(Integer.parseInt(p[3]));
                }
            }
        }
        return bySender;
    }

    private static List<Integer> sendersIn(int room, Predicate<Integer> senders) {
        List<Integer> out = new ArrayList<>();
        for (int s = 0; s < USERS; s++) {
            if (senders.test(s) && roomsOf(s).contains(room)) {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * What user u received of room r with this tag, per sender, once each sender's {@code count} messages are there
     * or the wait timed out (the caller's comparison then says which are missing).
     */
    private Map<Integer, List<Integer>> awaitReceived(int u, int r, String tag, int count, List<Integer> roomSenders)
            throws Exception {
        try {
            await(() -> {
                Map<Integer, List<Integer>> got = received(home(u), u, r, tag);
                return roomSenders.stream().allMatch(s -> got.getOrDefault(s, List.of()).size() >= count);
            }, "user " + u + " got every " + tag + " message of room " + r);
        } catch (AssertionError timedOut) {
            // the comparison that follows fails with the lists
        }
        return received(home(u), u, r, tag);
    }

    private void assertEveryoneGotEverything(String tag, int perRoom, Predicate<Integer> receivers,
                                             Predicate<Integer> senders) throws Exception {
        List<Integer> expectedSeq = new ArrayList<>();
        for (int m = 0; m < perRoom; m++) {
            expectedSeq.add(m);
        }
        for (int i = 0; i < USERS; i++) {
            if (!receivers.test(i)) {
                continue;
            }
            for (int k : roomsOf(i)) {
                int u = i;
                int r = k;
                List<Integer> roomSenders = sendersIn(r, senders);
                Map<Integer, List<Integer>> got = awaitReceived(u, r, tag, perRoom, roomSenders);
                for (int s : roomSenders) {
                    assertThat(got.get(s)).as("user %d, room %d, sender %d: exactly once, in order", u, r, s)
                            .isEqualTo(expectedSeq);
                }
                // and nowhere else: no other node delivered this user anything of this tag
                for (Node other : started) {
                    if (other != home(u)) {
                        assertThat(received(other, u, r, tag)).as("user %d got room %d messages on node %s", u, r,
                                other.name).isEmpty();
                    }
                }
            }
        }
    }

    private long counter(String name) {
        long sum = 0;
        for (Node n : nodes) {
            if (n.engine.metrics() != null) {
                sum += n.engine.metrics().registry().counter(name).getCount();
            }
        }
        return sum;
    }

    @Test
    void messages_roomsAndOccupantsSpreadOverThreeNodes_eachDeliveredExactlyOnceInSenderOrder() throws Exception {
        startCluster();
        joinEveryone();
        // rooms really are spread: every node owns at least one
        Map<String, Integer> perNode = nodes.get(0).engine.cluster().roomsPerNode();
        assertThat(perNode).hasSize(NODES);
        assertThat(nodes.stream().mapToInt(n -> n.engine.muc().roomCount()).sum()).isEqualTo(ROOMS);
        // service discovery from any node lists every public room of the service, wherever it is owned
        for (int i = 0; i < NODES; i++) {
            Node n = nodes.get(i);
            String asker = "disco" + i + "@example.org/r";
            n.engine.process(XmlElement.builder("iq").attribute("type", "get").attribute("id", "items")
                    .attribute("from", asker).attribute("to", SERVICE)
                    .child(XmlElement.builder("query", "http://jabber.org/protocol/disco#items").build()).build());
            await(() -> !n.of(asker).isEmpty(), "disco#items answer");
            String items = n.of(asker).get(0);
            for (int k = 0; k < ROOMS; k++) {
                assertThat(items).as("node %d lists room %d", i, k).contains("jid=\"" + room(k) + "\"");
            }
        }

        long relaysBefore = counter("mucscale.cluster.relays.sent");
        int perRoom = 30;
        sendMessages(perRoom, "a", i -> true);
        assertEveryoneGotEverything("a", perRoom, i -> true, i -> true);
        long broadcasts = (long) USERS * 2 * perRoom;
        long relays = counter("mucscale.cluster.relays.sent") - relaysBefore;
        // at most one relay per remote node per broadcast, and under load several broadcasts share one
        assertThat(relays).isLessThan(broadcasts * (NODES - 1));
        assertThat(counter("mucscale.cluster.forwards")).isGreaterThan(0);
        // no linger by default: every message is a send of its own
        assertThat(counter("mucscale.cluster.sends")).isPositive()
                .isEqualTo(counter("mucscale.cluster.sent.messages"));
    }

    @Test
    void batchLinger_messagesGoInFewerSends_eachDeliveredExactlyOnceInSenderOrder() throws Exception {
        extraSettings.put("mucscale.cluster.batch-linger", "20ms");
        startCluster();
        joinEveryone();
        long sendsBefore = counter("mucscale.cluster.sends");
        long messagesBefore = counter("mucscale.cluster.sent.messages");
        int perRoom = 30;
        sendMessages(perRoom, "a", i -> true);
        assertEveryoneGotEverything("a", perRoom, i -> true, i -> true);
        long sends = counter("mucscale.cluster.sends") - sendsBefore;
        long messages = counter("mucscale.cluster.sent.messages") - messagesBefore;
        // relays, forwards and confirmations to one node share sends: without the linger these two are equal
        assertThat(messages).as("messages between nodes").isGreaterThan(USERS);
        assertThat(sends).as("sends for %d messages", messages).isGreaterThan(0).isLessThan(messages * 3 / 4);
    }

    @Test
    void batchLinger_gracefulLeave_handsOverWithNoErrorAndNothingLost() throws Exception {
        extraSettings.put("mucscale.cluster.batch-linger", "50ms");
        gracefulLeave_movesItsRoomsWithNoError_survivorsStayJoined();
    }

    @Test
    void gracefulLeave_movesItsRoomsWithNoError_survivorsStayJoined() throws Exception {
        startCluster();
        joinEveryone();
        int victim = busiest();
        Node leaving = nodes.get(victim);
        assertThat(leaving.engine.muc().roomCount()).isGreaterThan(0);
        leaving.engine.close();
        nodes.remove(leaving);
        for (Node n : nodes) {
            await(() -> n.engine.cluster().members().size() == 2, "two members");
        }
        assertThat(nodes.stream().mapToInt(n -> n.engine.muc().roomCount()).sum()).isEqualTo(ROOMS);
        // users whose sessions were on the leaving node went with it (status 333); the others stay joined
        Predicate<Integer> survivor = i -> i % NODES != victim;
        sendMessages(20, "b", survivor);
        assertEveryoneGotEverything("b", 20, survivor, survivor);
        for (Node n : nodes) {
            for (Map.Entry<String, List<String>> e : n.received.entrySet()) {
                assertThat(n.of(e.getKey())).as("no error to %s", e.getKey())
                        .noneMatch(x -> x.contains("type=\"error\""));
            }
        }
    }

    /**
     * The engine of a node stops and starts again while the node stays a cluster member (inside Openfire: the plugin
     * is reloaded on a running node, whose clustering is Openfire's). It announced its leave, so the others routed
     * around it; when it starts again they must count it in again and hand its rooms back. Before, they kept routing
     * around it until the membership changed, while it served the rooms its own view gave it: those rooms ran on two
     * nodes. And the others' links to it, numbered before its new run, start there without a gap (L2).
     */
    @Test
    void engineRestartsOnANodeThatStaysAMember_theOthersCountItInAgain_eachRoomOnOneNode() throws Exception {
        startCluster();
        joinEveryone();
        int victim = busiest();
        Node reloaded = nodes.get(victim);
        List<Node> others = new ArrayList<>(nodes);
        others.remove(reloaded);
        reloaded.withholding.keepMembershipOnStop = true;
        reloaded.engine.close();
        for (Node n : others) {
            await(() -> n.engine.cluster().roomsPerNode().size() == NODES - 1, "routed around the leaving engine");
        }
        await(() -> others.stream().mapToInt(n -> n.engine.muc().roomCount()).sum() == ROOMS, "rooms handed over");
        reloaded.engine = MucScaleEngine.builder(SERVICE, reloaded.settings, reloaded).cluster(reloaded.withholding)
                .build();
        reloaded.engine.start();
        reloaded.withholding.keepMembershipOnStop = false; // the test's end stops the member
        for (Node n : nodes) {
            await(() -> n.engine.cluster().roomsPerNode().size() == NODES, "counted in again");
        }
        for (int k = 0; k < ROOMS; k++) {
            Jid r = Jid.parse(room(k));
            await(() -> nodes.stream().filter(n -> n.engine.muc().localRooms().contains(r)).count() == 1,
                    "room " + k + " on exactly one node");
        }
        assertThat(reloaded.engine.muc().roomCount()).as("rooms back on the restarted engine").isGreaterThan(0);
        // users whose sessions were on the node were removed from the rooms when its engine left
        Predicate<Integer> stayed = i -> i % NODES != victim;
        sendMessages(10, "back", stayed);
        assertEveryoneGotEverything("back", 10, stayed, stayed);
        // the others numbered their links to it before its new run (L2): that is a link's start, not a gap. Before,
        // the new run waited out the 2 s gap timeout for each peer and logged it as a lost message.
        Thread.sleep(2_500);
        assertThat(counter("mucscale.cluster.link.gaps")).as("link gaps given up on, on any node").isZero();
    }

    /**
     * The plugin reloaded on a running node (its engine stops and starts again, the member stays) while the others'
     * users keep chatting. Every message sent while the engine leaves and comes back must reach every reader once, in
     * sender order. Before, the leaving owner held a straggler from a node whose view still placed the room there for
     * a hand-off that never came, confirmed it and lost it (RealOpenfireRollingUpgradeIT's one message per reload); and
     * a new owner's own users' stanzas overtook the stragglers the leaving node passed back (StragglerHold rule 4).
     * {@link TwoNodeReloadUnderTrafficTest} covers the two-node case, where the survivor is alone in its view.
     */
    @Test
    void engineRestartsUnderTraffic_everyMessageOnceInOrder() throws Exception {
        startCluster();
        joinEveryone();
        int victim = busiest();
        Node reloaded = nodes.get(victim);
        Predicate<Integer> stayed = i -> i % NODES != victim;
        java.util.concurrent.atomic.AtomicBoolean sending = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicInteger rounds = new java.util.concurrent.atomic.AtomicInteger();
        Thread traffic = new Thread(() -> {
            // bounded: at most 20 s of rounds, one every 10 ms
            for (int m = 0; m < 2_000 && sending.get(); m++) {
                for (int i = 0; i < USERS; i++) {
                    if (stayed.test(i)) {
                        for (int k : roomsOf(i)) {
                            home(i).engine.process(groupchat(user(i), room(k), "t|" + i + "|" + k + "|" + m));
                        }
                    }
                }
                rounds.incrementAndGet();
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "test-traffic");
        traffic.start();
        try {
            Thread.sleep(300);
            reloaded.withholding.keepMembershipOnStop = true;
            reloaded.engine.close();
            reloaded.engine = MucScaleEngine.builder(SERVICE, reloaded.settings, reloaded)
                    .cluster(reloaded.withholding).build();
            reloaded.engine.start();
            reloaded.withholding.keepMembershipOnStop = false;
            for (Node n : nodes) {
                await(() -> n.engine.cluster().roomsPerNode().size() == NODES, "counted in again");
            }
            Thread.sleep(1_000); // traffic once the rooms are back
        } finally {
            sending.set(false);
            traffic.join(10_000);
        }
        int total = rounds.get();
        assertEveryoneGotEverything("t", total, stayed, stayed);
    }

    /**
     * A rolling restart under traffic: a member leaves, and a new member takes its place while the others' users keep
     * sending. The rooms that move to the newcomer reach it as hand-offs; stanzas forwarded to it before a room's
     * hand-off must wait for it. Before, the newcomer (whose previous view was itself alone) did not know the rooms
     * were on their way: their messages were refused with item-not-found and lost.
     */
    @Test
    void memberRejoinsUnderTraffic_roomsMovingToItWaitForTheirHandOff_eachDeliveredOnceInOrder() throws Exception {
        startCluster();
        joinEveryone();
        int victim = busiest();
        Node leaving = nodes.get(victim);
        leaving.engine.close();
        nodes.remove(leaving);
        for (Node n : nodes) {
            await(() -> n.engine.cluster().members().size() == 2, "two members");
        }
        Predicate<Integer> survivor = i -> i % NODES != victim;
        List<Node> joined = Collections.synchronizedList(new ArrayList<>());
        List<Node> survivors = new ArrayList<>(nodes);
        // node ids are random, so a newcomer owns none of the 6 rooms about once in eleven runs: such a one leaves
        // again (gracefully, with nothing to hand over) and another comes, until one takes rooms over
        Thread joiner = new Thread(() -> {
            for (int attempt = 0; attempt < 5 && joined.isEmpty(); attempt++) {
                Node n = startNode("n" + victim + "again" + attempt, ports, ports.get(victim));
                try {
                    for (Node x : survivors) {
                        await(() -> x.engine.cluster().members().size() == NODES, "three members");
                    }
                    await(() -> n.engine.cluster().roomsPerNode().getOrDefault(n.transport.localNode(), 0) > 0
                            || n.engine.cluster().roomsPerNode().size() == NODES, "the newcomer's placement");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                if (n.engine.cluster().roomsPerNode().getOrDefault(n.transport.localNode(), 0) > 0) {
                    joined.add(n);
                } else {
                    n.engine.close();
                    synchronized (nodes) {
                        nodes.remove(n);
                    }
                }
            }
        }, "test-joiner");
        int rounds = 0;
        int roundsAfterJoin = -1;
        while (roundsAfterJoin < 60 && rounds < 2_000) {
            if (rounds == 20) {
                joiner.start();
            }
            if (roundsAfterJoin < 0 && !joined.isEmpty()) {
                roundsAfterJoin = 0;
            }
            for (int i = 0; i < USERS; i++) {
                if (survivor.test(i)) {
                    for (int k : roomsOf(i)) {
                        home(i).engine.process(groupchat(user(i), room(k), "r|" + i + "|" + k + "|" + rounds, "r" + rounds));
                    }
                }
            }
            rounds++;
            if (roundsAfterJoin >= 0) {
                roundsAfterJoin++;
            }
            Thread.sleep(10);
        }
        joiner.join(30_000);
        assertThat(joined).as("a newcomer that owns rooms").hasSize(1);
        Node newcomer = joined.get(0);
        await(() -> newcomer.engine.muc().roomCount() > 0, "rooms moved to the new member");
        // (tag "r": the default filter reads "j|22" as a swear word and masks it)
        assertEveryoneGotEverything("r", rounds, survivor, survivor);
        for (int i = 0; i < USERS; i++) {
            if (survivor.test(i)) {
                assertThat(home(i).of(user(i))).as("errors for user %d", i)
                        .noneMatch(x -> x.startsWith("<message") && x.contains("type=\"error\""));
            }
        }
    }

    @Test
    void batchLinger_memberDies_itsRoomsAreTakenOver_occupantsOnSurvivorsStayJoinedAndHistoryIsKept()
            throws Exception {
        extraSettings.put("mucscale.cluster.batch-linger", "20ms");
        memberDies_itsRoomsAreTakenOver_occupantsOnSurvivorsStayJoinedAndHistoryIsKept();
    }

    @Test
    void memberDies_itsRoomsAreTakenOver_occupantsOnSurvivorsStayJoinedAndHistoryIsKept() throws Exception {
        memberDies(survivors -> {
        });
    }

    /**
     * The survivors' first reads of the replicated state fail (as Hazelcast's can while it promotes the dead member's
     * backups, or inside Openfire while its caches are swapped): they are tried again, and the take-over ends as
     * without the failures. Before, a failed read ended the take-over half done: the dead owner's rooms were never
     * adopted, and their stanzas waited on their room threads for good.
     */
    @Test
    void memberDies_firstReadsOfTheReplicatedStateFail_itsRoomsAreStillTakenOverWithTheirHistory() throws Exception {
        memberDies(survivors -> survivors.forEach(n -> n.withholding.failReads.set(3)));
        assertThat(counter("mucscale.cluster.state-read.failures")).as("failed reads, tried again").isGreaterThan(0);
        assertThat(counter("mucscale.cluster.state-read.given-up")).isZero();
    }

    /**
     * The replicated state cannot be read at all (longer than {@code state-read-timeout}): the dead owner's rooms start
     * here without it, so their stanzas are answered again (a former occupant's message is refused, as it is not in the
     * room) instead of waiting for good, and the room works for whoever joins it again. Before, a room started without
     * state while the take-over was still under way had its replayed stanzas held again by it, for good (as a room
     * with no replicated image could).
     */
    @Test
    void memberDies_replicatedStateUnreadable_itsRoomsStartWithoutItAndAnswerAgain() throws Exception {
        extraSettings.put("mucscale.cluster.state-read-timeout", "500ms");
        startCluster();
        joinEveryone();
        int victim = busiest();
        Node dead = nodes.get(victim);
        String owned = dead.engine.muc().localRooms().get(0).toString();
        int k = Integer.parseInt(owned.substring("room".length(), owned.indexOf('@')));
        List<Node> survivors = new ArrayList<>(nodes);
        survivors.remove(dead);
        survivors.forEach(n -> n.withholding.failAllReads = true);
        dead.transport.terminate();
        nodes.remove(dead);
        for (Node n : nodes) {
            await(() -> n.engine.cluster().members().size() == 2, "two members");
        }
        // a survivor that was in room k sends to it: answered, not held
        int sender = java.util.stream.IntStream.range(0, USERS).filter(i -> i % NODES != victim
                && roomsOf(i).contains(k)).findFirst().orElseThrow();
        Node home = home(sender);
        home.engine.process(groupchat(user(sender), room(k), "after|unreadable", "u1"));
        await(() -> home.of(user(sender)).stream().anyMatch(x -> x.contains("id=\"u1\"") && x.contains("type=\"error\"")),
                "an error for a message to a room whose state could not be read");
        assertThat(counter("mucscale.cluster.state-read.given-up")).as("rooms started without their state")
                .isGreaterThan(0);
        survivors.forEach(n -> n.withholding.failAllReads = false);
        home.engine.process(join(user(sender), room(k), "again"));
        await(() -> home.of(user(sender)).stream().anyMatch(x -> x.contains("from=\"" + room(k) + "/again\"")
                && x.contains("110")), "joined again");
        home.engine.process(groupchat(user(sender), room(k), "after|rejoined", "u2"));
        await(() -> home.of(user(sender)).stream().anyMatch(x -> x.contains("after|rejoined")
                && x.contains("type=\"groupchat\"")), "the room works again");
    }

    /** {@link #memberDies_itsRoomsAreTakenOver_occupantsOnSurvivorsStayJoinedAndHistoryIsKept}, with {@code beforeDeath}. */
    private void memberDies(java.util.function.Consumer<List<Node>> beforeDeath) throws Exception {
        startCluster();
        joinEveryone();
        sendMessages(5, "before", i -> true);
        assertEveryoneGotEverything("before", 5, i -> true, i -> true);
        int victim = busiest();
        Node dead = nodes.get(victim);
        assertThat(dead.engine.muc().roomCount()).isGreaterThan(0);
        List<Node> survivors = new ArrayList<>(nodes);
        survivors.remove(dead);
        beforeDeath.accept(survivors);
        long t0 = System.nanoTime();
        dead.transport.terminate(); // no goodbye: the others see it vanish
        nodes.remove(dead);
        for (Node n : nodes) {
            await(() -> n.engine.cluster().members().size() == 2, "two members");
        }
        await(() -> nodes.stream().mapToInt(n -> n.engine.muc().roomCount()).sum() == ROOMS, "rooms re-homed");
        long rehomedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        System.out.println("member death to all rooms re-homed: " + rehomedMs + " ms");
        // a newcomer gets the history from before the death in every room, those taken over included
        Node n = nodes.get(0);
        for (int k = 0; k < ROOMS; k++) {
            int r = k;
            n.engine.process(join("late@example.org/r", room(r), "late"));
            await(() -> n.of("late@example.org/r").stream().anyMatch(x -> x.contains("from=\"room" + r + "@")
                    && x.contains("before|") && x.contains("urn:xmpp:delay")), "history of room " + r + " after take-over");
        }
        Predicate<Integer> survivor = i -> i % NODES != victim;
        sendMessages(20, "after", survivor);
        assertEveryoneGotEverything("after", 20, survivor, survivor);
        // occupants whose sessions were on the dead node left with status 333, seen by the survivors
        int u = victim == 0 ? 1 : 0;
        assertThat(home(u).of(user(u))).anyMatch(x -> x.contains("type=\"unavailable\"") && x.contains("code=\"333\""));
    }

    @Test
    void retraction_replicatesWithTheTail_aRoomTakenOverAfterItsOwnerDiedShowsTheTombstone() throws Exception {
        startCluster();
        joinEveryone();
        int victim = busiest();
        Node dead = nodes.get(victim);
        String owned = dead.engine.muc().localRooms().get(0).toString();
        int k = Integer.parseInt(owned.substring("room".length(), owned.indexOf('@')));
        int sender = k + ROOMS; // roomsOf(sender) holds k; user k created room k and moderates it
        home(sender).engine.process(groupchat(user(sender), room(k), "abusive|words"));
        await(() -> home(sender).of(user(sender)).stream().anyMatch(x -> x.contains("abusive|words")), "reflection");
        String reflected = home(sender).of(user(sender)).stream().filter(x -> x.contains("abusive|words"))
                .findFirst().orElseThrow();
        Matcher sid = Pattern.compile("<stanza-id[^>]* id=\"([^\"]+)\"").matcher(reflected);
        assertThat(sid.find()).isTrue();
        String id = sid.group(1);
        home(k).engine.process(XmlElement.builder("iq").attribute("type", "set").attribute("id", "mod")
                .attribute("from", user(k)).attribute("to", room(k))
                .child(XmlElement.builder("moderate", "urn:xmpp:message-moderate:1").attribute("id", id)
                        .child(XmlElement.builder("retract", "urn:xmpp:message-retract:1").build()).build())
                .build());
        // deliveries are released only after the run's replication write is confirmed: seen means replicated
        await(() -> home(sender).of(user(sender)).stream().anyMatch(x -> x.contains("<retract") && x.contains(id)),
                "retraction");
        dead.transport.terminate();
        nodes.remove(dead);
        for (Node n : nodes) {
            await(() -> n.engine.cluster().members().size() == 2, "two members");
        }
        await(() -> nodes.stream().mapToInt(n -> n.engine.muc().roomCount()).sum() == ROOMS, "rooms re-homed");
        Node n = nodes.get(0);
        n.engine.process(join("late@example.org/r", room(k), "late"));
        await(() -> n.of("late@example.org/r").stream().anyMatch(x -> x.contains("<retracted") && x.contains(id)),
                "tombstone in the history of the taken-over room");
        assertThat(n.of("late@example.org/r")).noneMatch(x -> x.contains("abusive|words"));
    }

    /**
     * The owner stops handling anything at once while survivors keep sending to its rooms (inside Openfire: a node
     * that is shut down, whose Hazelcast member goes first). What they forwarded in its last moments, and until they
     * noticed, is sent again to the rooms' new owners. What the dead owner had accepted already (it is in the
     * replicated tail) is not accepted again but re-delivered as the dead owner rendered it, and each node writes it
     * only if it had not delivered it: every survivor receives every survivor's message of every round, before and
     * after the stop, once, in order. Without the resend, messages forwarded in the detection window are gone;
     * without the re-delivery, the 3-5 rounds the owner accepted in its last 40-50 ms, whose relays were still in its
     * send buffer, reached history and the room log but not the occupants on other nodes.
     */
    @Test
    void ownerStopsWhileMessagesAreOnTheirWay_unconfirmedOnesAreSentAgain_eachDeliveredOnce() throws Exception {
        ownerDiesUnderTraffic((dead, survivors) -> {
        }, (dead, survivors) -> {
        }, true);
    }

    /**
     * The dying owner's last relays are still in flight when it dies and reach the survivors after its rooms were
     * taken over (and their messages re-delivered from the resends). Each must be written only where it was not yet:
     * before, such a relay waited out the gap timeout on a fresh link and was written again. Order is not asserted:
     * a late relay of a message the dead owner had confirmed can only arrive late.
     */
    @Test
    void ownerDies_itsLastRelaysArriveLate_eachMessageDeliveredExactlyOnce() throws Exception {
        List<Map.Entry<String, byte[]>> late = new ArrayList<>();
        ownerDiesUnderTraffic((dead, survivors) -> dead.withholding.withhold = true, (dead, survivors) -> {
            late.addAll(dead.withholding.withheld);
            String deadId = dead.transport.localNode();
            for (Map.Entry<String, byte[]> e : late) {
                for (Node n : survivors) {
                    if (n.transport.localNode().equals(e.getKey())) {
                        n.engine.cluster().received(deadId, e.getValue());
                    }
                }
            }
            try {
                Thread.sleep(2_500); // past the link gap timeout (2 s), after which such a relay was written before
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }, false);
        assertThat(late).as("relays withheld from the dying owner").isNotEmpty();
        assertThat(counter("mucscale.cluster.late-from-departed")).as("late messages recognised")
                .isEqualTo(late.size());
    }

    /**
     * The survivors' relay writers lag (stalled from shortly before the owner's death until a moment after their views
     * changed), so relays the dead owner sent before it died are still unwritten when its rooms are taken over. The new owner must
     * not deliver those rooms' newer messages (or re-deliver the stalled ones) before the stalled relays are written:
     * without the wait in the take-over, occupants got older messages after newer ones, and some twice.
     */
    @Test
    void ownerDies_whileSurvivorsRelayWritersLag_eachMessageDeliveredOnceInOrder() throws Exception {
        ownerDiesUnderTraffic((dead, survivors) -> stallRelayWriters(survivors, 1_000), (dead, survivors) -> {
        }, true);
    }

    /**
     * As above, but the relay writers stay stalled past the take-over's wait for them ({@code handoff-timeout}, 300 ms
     * here), as a writer descheduled for long under load would be: the new owner re-delivers the dead owner's last
     * messages before the dead owner's relays of them are written. A relay of a node that crashed, taken by the writer
     * after the view switch, is written only where its messages are new: without that, those messages arrived twice
     * (the duplicates RealOpenfireClusterIT met under heavy load, one stanza-id twice). Order is not asserted: a relay
     * written after the wait can only arrive late.
     */
    @Test
    void ownerDies_survivorsRelayWritersStallPastTheTakeoverWait_eachMessageDeliveredOnce() throws Exception {
        extraSettings.put("mucscale.cluster.handoff-timeout", "300ms");
        ownerDiesUnderTraffic((dead, survivors) -> stallRelayWriters(survivors, 2_000), (dead, survivors) -> {
        }, false);
    }

    /**
     * The owner accepted a sender's messages 1 and 2 and confirmed neither before it died, and only message 2's tail
     * record was replicated (a write cut short as its member died). The new owner accepts message 1 afresh and
     * re-delivers message 2; on a third node message 2 must not arrive ahead of message 1, whose relay waits for its
     * replication write (slowed here). Sent at once, the re-delivery overtook it: one sender's rounds 20-22 arrived
     * before round 19 in {@code ownerDies_whileSurvivorsRelayWritersLag_...} under load.
     */
    @Test
    void ownerDies_aMessageItAcceptedLostItsTail_theNextOnesReDeliveryWaitsForItsRelay() throws Exception {
        startCluster();
        List<String> ids = nodes.stream().map(n -> n.transport.localNode()).toList();
        String room = "order@" + SERVICE;
        int dead = ids.indexOf(Rendezvous.owner(room, ids));
        List<String> survivorIds = new ArrayList<>(ids);
        survivorIds.remove(dead);
        int next = ids.indexOf(Rendezvous.owner(room, survivorIds));
        int third = 3 - dead - next;
        // users by home node (user i lives on node i % 3): the sender and a recipient on the third node
        int creator = dead;
        int onNext = next;
        int sender = third;
        int recipient = third + 3;
        Node d = nodes.get(dead);
        createInstantRoom(creator, room, "c");
        for (int u : List.of(onNext, sender, recipient)) {
            home(u).engine.process(join(user(u), room, "n" + u));
            await(() -> home(u).of(user(u)).stream().anyMatch(x -> x.contains("from=\"" + room + "/n" + u + "\"")),
                    "user " + u + " joined");
        }
        d.withholding.silent = true;
        d.withholding.dropEntriesWith = "o|1";
        home(sender).engine.process(groupchat(user(sender), room, "o|1", "o1"));
        home(sender).engine.process(groupchat(user(sender), room, "o|2", "o2"));
        await(() -> bodies(d, creator, room).contains("o|2"), "the owner accepted both");
        nodes.get(next).withholding.writeDelayMs = 300;
        d.transport.terminate();
        nodes.remove(d);
        for (Node n : nodes) {
            await(() -> n.engine.cluster().members().size() == 2, "two members");
        }
        for (int u : List.of(recipient, sender, onNext)) {
            try {
                await(() -> bodies(home(u), u, room).size() >= 2, "user " + u + " got both");
            } catch (AssertionError timedOut) {
                // the comparison says what is missing
            }
            assertThat(bodies(home(u), u, room)).as("user %d on node %d", u, u % NODES)
                    .containsExactly("o|1", "o|2");
        }
        assertThat(counter("mucscale.cluster.redelivered")).as("message 2 re-delivered, not accepted again")
                .isPositive();
    }

    /** The bodies of {@code room}'s groupchat messages user i received on node n, in arrival order. */
    private static List<String> bodies(Node n, int i, String room) {
        List<String> out = new ArrayList<>();
        for (String x : n.of(user(i))) {
            Matcher m = BODY.matcher(x);
            if (x.startsWith("<message") && x.contains("from=\"" + room + "/") && m.find()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    /** Stalls the survivors' relay writers from now until {@code afterViewsMs} after each survivor sees two members. */
    private static void stallRelayWriters(List<Node> survivors, long afterViewsMs) {
        CountDownLatch stall = new CountDownLatch(1);
        survivors.forEach(n -> n.relayWriterStall = stall);
        Thread release = new Thread(() -> {
            try {
                for (Node n : survivors) {
                    await(() -> n.engine.cluster().members().size() == 2, "two members");
                }
                Thread.sleep(afterViewsMs);
            } catch (Exception e) {
                // released below either way
            } finally {
                stall.countDown();
            }
        }, "release-relay-writers");
        release.setDaemon(true);
        release.start();
    }

    /**
     * Survivors keep sending while the busiest owner dies; {@code beforeDeath} runs five rounds (50 ms) before it,
     * {@code afterTraffic} once the survivors see two members after the last round. Every survivor then gets every
     * round of every other survivor once, in the order sent unless {@code inOrder} is false.
     */
    private void ownerDiesUnderTraffic(java.util.function.BiConsumer<Node, List<Node>> beforeDeath,
                                       java.util.function.BiConsumer<Node, List<Node>> afterTraffic, boolean inOrder)
            throws Exception {
        startCluster();
        joinEveryone();
        int victim = busiest();
        Node dead = nodes.get(victim);
        assertThat(dead.engine.muc().roomCount()).isGreaterThan(0);
        Predicate<Integer> survivor = i -> i % NODES != victim;
        int rounds = 150;
        int stopAt = 30;
        List<Node> survivors = new ArrayList<>(nodes);
        survivors.remove(dead);
        for (int m = 0; m < rounds; m++) {
            if (m == stopAt - 5) {
                beforeDeath.accept(dead, survivors);
            }
            if (m == stopAt) {
                // what it sends from now on meets a dead member (a write that fails as it dies still releases its
                // relays): only what it sent while alive can arrive late
                dead.withholding.withhold = false;
                dead.transport.terminate();
                nodes.remove(dead);
            }
            for (int i = 0; i < USERS; i++) {
                if (survivor.test(i)) {
                    for (int k : roomsOf(i)) {
                        home(i).engine.process(groupchat(user(i), room(k), "c|" + i + "|" + k + "|" + m, "c" + m));
                    }
                }
            }
            Thread.sleep(10);
        }
        for (Node n : nodes) {
            await(() -> n.engine.cluster().members().size() == 2, "two members");
        }
        afterTraffic.accept(dead, survivors);
        List<Integer> everyRound = new ArrayList<>();
        for (int m = 0; m < rounds; m++) {
            everyRound.add(m);
        }
        for (int i = 0; i < USERS; i++) {
            if (!survivor.test(i)) {
                continue;
            }
            for (int k : roomsOf(i)) {
                int u = i;
                int r = k;
                List<Integer> roomSenders = sendersIn(r, survivor);
                Map<Integer, List<Integer>> got = awaitReceived(u, r, "c", rounds, roomSenders);
                for (int x : roomSenders) {
                    List<Integer> seq = got.getOrDefault(x, List.of());
                    assertThat(seq).as("user %d, room %d, sender %d: no repeat", u, r, x).doesNotHaveDuplicates();
                    // every round arrives once, in the order sent: what the dead owner never confirmed is sent
                    // again to the new owner ahead of anything newer (ClusterViewLagOrderTest pins the case of a
                    // new owner whose view changes last), and re-delivered where the dead owner had accepted it
                    if (inOrder) {
                        assertThat(seq).as("user %d, room %d, sender %d: every round once, in order (written by %s)",
                                u, r, x, home(u).writersOf(u, r, x, "c")).isEqualTo(everyRound);
                    } else {
                        assertThat(seq).as("user %d, room %d, sender %d: every round once", u, r, x)
                                .containsExactlyInAnyOrderElementsOf(everyRound);
                    }
                }
            }
        }
        assertThat(counter("mucscale.cluster.resent")).as("messages sent again").isGreaterThan(0);
        assertThat(counter("mucscale.cluster.resent.let-go")).isZero();
        // printed for the report: how many re-deliveries were written, and how many nodes already had them
        System.out.println("ownerStops: resent " + counter("mucscale.cluster.resent") + ", duplicates "
                + counter("mucscale.cluster.resent.duplicates") + ", redelivered "
                + counter("mucscale.cluster.redelivered") + ", already had "
                + counter("mucscale.cluster.redelivered.already-had"));
    }

    // ------------------------------------------------------------------------------------------------ helpers

    static XmlElement join(String user, String room, String nick) {
        return XmlElement.builder("presence").attribute("from", user).attribute("to", room + "/" + nick)
                .child(XmlElement.builder("x", "http://jabber.org/protocol/muc").build()).build();
    }

    static XmlElement instantRoom(String owner, String room) {
        return XmlElement.builder("iq").attribute("type", "set").attribute("id", "cfg").attribute("from", owner)
                .attribute("to", room)
                .child(XmlElement.builder("query", "http://jabber.org/protocol/muc#owner")
                        .child(XmlElement.builder("x", "jabber:x:data").attribute("type", "submit").build()).build())
                .build();
    }

    static XmlElement groupchat(String user, String room, String body) {
        return XmlElement.builder("message").attribute("type", "groupchat").attribute("from", user)
                .attribute("to", room).textChild("body", body).build();
    }

    static XmlElement groupchat(String user, String room, String body, String id) {
        return XmlElement.builder("message").attribute("type", "groupchat").attribute("id", id)
                .attribute("from", user).attribute("to", room).textChild("body", body).build();
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static void await(Check check, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!check.ok()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(20);
        }
    }
}
