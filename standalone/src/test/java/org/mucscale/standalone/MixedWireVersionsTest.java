package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.standalone.ClusterEnginesTest.await;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.cluster.Rendezvous;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.standalone.ClusterEnginesTest.Node;

/**
 * Two builds that differ in version and in one wire-format field serve rooms together
 * ({@link #twoBuildsThatDifferInAWireField_serveRoomsTogether_eachMessageOnceInOrder}). And two engines and a third
 * member that speaks the wire by hand, as a node of a newer build would (real Hazelcast members on loopback). Its
 * messages are written here byte by byte from the format drawn in {@code Wire}'s Javadoc, so this also pins wire
 * version 1: a {@code FORWARD} written that way is understood (this build speaks 4; a FORWARD's origin, of wire
 * version 2, goes only to members that published 2 or more). A message of a kind this build
 * does not know is counted as unreadable and takes its place on the link, so the sender's next message is handled at
 * once (before, the link waited for it the 2 s gap timeout); a forward with a flag of a later version is refused with an
 * error to its sender (before: no answer); every node publishes its build and wire version.
 */
class MixedWireVersionsTest {
    private static final int RELAY = 2;

    private final List<Node> nodes = new ArrayList<>();
    private HazelcastClusterTransport newer;
    /** The transport of the node that runs as a newer build, if a test starts one. */
    private NewerWire newerWire;

    @AfterEach
    void stopAll() {
        ClusterEnginesTest.stopAfterTest(nodes);
        if (newer != null) {
            newer.stop();
        }
    }

    /**
     * A node of a "newer build" (this engine behind {@link NewerWire}, which publishes build 0.2.0-newer with wire
     * version 5 and appends a field of that version to every message it sends) and a node of this build, users on
     * both, a room owned by each: every user gets every message once and in per-sender order, nothing is unreadable,
     * and each node shows the other's versions. Wire versions 1 and 2 refused such a message whole (bytes after its
     * end), so every stanza the newer node forwarded was lost.
     */
    @Test
    void twoBuildsThatDifferInAWireField_serveRoomsTogether_eachMessageOnceInOrder() throws Exception {
        List<Integer> ports = List.of(org.mucscale.testkit.FreePort.next(), org.mucscale.testkit.FreePort.next());
        Node older = startNode("n0", ports, ports.get(0));
        Node newerNode = startNode("n1", ports, ports.get(1), true);
        await(() -> nodes.stream().allMatch(n -> n.engine.cluster().members().size() == 2), "two members");
        List<String> members = older.engine.cluster().members();
        String olderId = older.transport.localNode();
        String newerId = newerNode.transport.localNode();
        String[] rooms = new String[2]; // rooms[0] owned by the older node, rooms[1] by the newer one
        for (int k = 0; rooms[0] == null || rooms[1] == null; k++) {
            String r = "versions" + k + "@" + ClusterEnginesTest.SERVICE;
            int at = Rendezvous.owner(r, members).equals(olderId) ? 0 : 1;
            if (rooms[at] == null) {
                rooms[at] = r;
            }
        }
        int users = 4; // user i's session is on node i % 2
        for (int r = 0; r < 2; r++) {
            // each room created by a user whose session is on the other node than the room's owner
            Node home = nodes.get((r + 1) % 2);
            String creator = ClusterEnginesTest.user((r + 1) % 2);
            home.engine.process(ClusterEnginesTest.join(creator, rooms[r], "nick" + ((r + 1) % 2)));
            await(() -> home.of(creator).stream().anyMatch(x -> x.contains("code=\"201\"")), "room created");
            home.engine.process(ClusterEnginesTest.instantRoom(creator, rooms[r]));
            await(() -> home.of(creator).stream().anyMatch(x -> x.contains("type=\"result\"")), "room unlocked");
        }
        for (int i = 0; i < users; i++) {
            for (int r = 0; r < 2; r++) {
                if (i != (r + 1) % 2) {
                    nodes.get(i % 2).engine.process(ClusterEnginesTest.join(ClusterEnginesTest.user(i), rooms[r],
                            "nick" + i));
                }
            }
        }
        for (int i = 0; i < users; i++) {
            Node home = nodes.get(i % 2);
            String u = ClusterEnginesTest.user(i);
            await(() -> home.of(u).stream().filter(x -> x.startsWith("<presence") && x.contains("code=\"110\""))
                    .count() >= 2, "user " + u + " in both rooms");
        }
        int perSender = 20;
        long t0 = System.nanoTime();
        for (int m = 0; m < perSender; m++) {
            for (int i = 0; i < users; i++) {
                for (String room : rooms) {
                    nodes.get(i % 2).engine.process(ClusterEnginesTest.groupchat(ClusterEnginesTest.user(i), room,
                            "v|" + i + "|" + m));
                }
            }
        }
        List<Integer> all = java.util.stream.IntStream.range(0, perSender).boxed().toList();
        for (int i = 0; i < users; i++) {
            Node home = nodes.get(i % 2);
            String u = ClusterEnginesTest.user(i);
            for (String room : rooms) {
                await(() -> bodies(home, u, room).size() >= users * perSender, u + " got every message of " + room);
                Map<Integer, List<Integer>> bySender = new java.util.TreeMap<>();
                for (String b : bodies(home, u, room)) {
                    String[] f = b.split("\\|");
                    bySender.computeIfAbsent(Integer.parseInt(f[1]), x -> new ArrayList<>()).add(Integer.parseInt(f[2]));
                }
                for (int s = 0; s < users; s++) {
                    assertThat(bySender.get(s)).as("%s in %s, from user %d: once each, in order", u, room, s)
                            .isEqualTo(all);
                }
            }
        }
        System.out.println("mixed builds: every message delivered in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        // at least the forwards of the newer node's users to the room the older node owns (relays come in batches)
        assertThat(newerWire.appended.get()).as("messages with the newer field")
                .isGreaterThanOrEqualTo(users / 2 * perSender);
        for (Node n : nodes) {
            assertThat(n.engine.metrics().registry().counter("mucscale.cluster.unreadable").getCount())
                    .as("unreadable messages on %s", n.name).isZero();
            assertThat(n.engine.metrics().registry().counter("mucscale.cluster.link.gaps").getCount())
                    .as("link gaps on %s", n.name).isZero();
        }
        await(() -> older.engine.cluster().versionsPerNode().size() == 2, "versions of both members");
        assertThat(older.engine.cluster().versionsPerNode()).containsEntry(newerId, "0.2.0-newer (wire version 5)");
        assertThat(newerNode.engine.cluster().versionsPerNode()).containsEntry(olderId,
                "0.1.0-SNAPSHOT (wire version 4)");
    }

    /** The bodies of groupchat messages from {@code room} that {@code user} received on {@code n}, in order. */
    private static List<String> bodies(Node n, String user, String room) {
        List<String> out = new ArrayList<>();
        for (String x : n.of(user)) {
            int b = x.indexOf("<body>v|");
            if (x.startsWith("<message") && x.contains("from=\"" + room + "/") && b >= 0) {
                out.add(x.substring(b + 6, x.indexOf("</body>", b)));
            }
        }
        return out;
    }

    /**
     * This engine as a newer build would run it: it publishes build 0.2.0-newer with wire version 5 in the versions
     * map, and sends every message with a field of that version appended after the fields this build knows (in a
     * batch, after each message's). Only the bytes between the engine and the real transport are changed.
     */
    static final class NewerWire extends ForwardingTransport {
        private static final int BATCH = 7;
        /** The newer version's field: a varint and a string, as a later build might append. */
        private static final byte[] FIELD = {3, 12, 'p', 'r', 'i', 'o', 'r', 'i', 't', 'y', '=', '5'};
        final java.util.concurrent.atomic.AtomicLong appended = new java.util.concurrent.atomic.AtomicLong();

        NewerWire(HazelcastClusterTransport real) {
            super(real);
        }

        @Override
        public void send(String node, byte[] message) {
            real.send(node, withField(message));
        }

        private byte[] withField(byte[] message) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            if (message.length > 0 && (message[0] & 0xff) == BATCH) {
                int[] pos = {1};
                long n = readVarint(message, pos);
                out.write(BATCH);
                varint(out, n);
                for (long i = 0; i < n; i++) {
                    int len = (int) readVarint(message, pos);
                    varint(out, len + FIELD.length);
                    out.write(message, pos[0], len);
                    out.writeBytes(FIELD);
                    pos[0] += len;
                    appended.incrementAndGet();
                }
                return out.toByteArray();
            }
            out.writeBytes(message);
            out.writeBytes(FIELD);
            appended.incrementAndGet();
            return out.toByteArray();
        }

        private static long readVarint(byte[] b, int[] pos) {
            long v = 0;
            for (int shift = 0; ; shift += 7) {
                int x = b[pos[0]++] & 0xff;
                v |= (long) (x & 0x7F) << shift;
                if ((x & 0x80) == 0) {
                    return v;
                }
            }
        }

        @Override
        public org.mucscale.engine.cluster.ClusterMap map(String name) {
            org.mucscale.engine.cluster.ClusterMap map = real.map(name);
            if (!name.equals("versions")) {
                return map;
            }
            String local = real.localNode();
            return new org.mucscale.engine.cluster.ClusterMap() {
                @Override
                public void putAll(Map<String, byte[]> entries) {
                    Map<String, byte[]> copy = new java.util.HashMap<>(entries);
                    copy.computeIfPresent(local, (k, v) -> newerVersions());
                    map.putAll(copy);
                }

                @Override
                public Map<String, byte[]> getAll(java.util.Collection<String> keys) {
                    return map.getAll(keys);
                }

                @Override
                public byte[] get(String key) {
                    return map.get(key);
                }

                @Override
                public void removeAll(java.util.Collection<String> keys) {
                    map.removeAll(keys);
                }

                @Override
                public java.util.Set<String> keys() {
                    return map.keys();
                }
            };
        }

        /** {@code u8 format 1, varint wireVersion 5, string build}, and a field a later format appends. */
        private static byte[] newerVersions() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(1);
            varint(out, 5);
            string(out, "0.2.0-newer");
            out.writeBytes(FIELD);
            return out.toByteArray();
        }
    }

    @Test
    void aMessageOfAnUnknownKind_isCountedAndSkipped_theSendersNextMessageIsHandledAtOnce() throws Exception {
        List<Integer> ports = List.of(org.mucscale.testkit.FreePort.next(), org.mucscale.testkit.FreePort.next(),
                org.mucscale.testkit.FreePort.next());
        startNode("n0", ports, ports.get(0));
        startNode("n1", ports, ports.get(1));
        newer = HazelcastClusterTransport.create(Settings.fromText(StandaloneServer.catalog(),
                ClusterEnginesTest.nodeSettings("newer", ports, ports.get(2))));
        ClusterTestSupport.Recorder got = new ClusterTestSupport.Recorder();
        newer.start(got);
        ClusterTestSupport.writeStartMark(newer); // as the engine of another build does at its start
        await(() -> nodes.stream().allMatch(n -> n.engine.cluster().members().size() == 3), "three members");
        String c = newer.localNode();
        List<String> members = nodes.get(0).engine.cluster().members();
        Node owner = nodes.get(1);
        String ownerId = owner.transport.localNode();
        String room = null;
        for (int k = 0; room == null; k++) {
            String r = "mixed" + k + "@" + ClusterEnginesTest.SERVICE;
            if (Rendezvous.owner(r, members).equals(ownerId)) {
                room = r;
            }
        }
        await(() -> owner.engine.cluster().versionsPerNode().size() == 3, "versions of three members");
        assertThat(owner.engine.cluster().versionsPerNode())
                .containsEntry(ownerId, "0.1.0-SNAPSHOT (wire version 4)")
                .containsEntry(nodes.get(0).transport.localNode(), "0.1.0-SNAPSHOT (wire version 4)")
                .containsEntry(c, "a build older than the versions map (wire version 1)");

        long epoch = 4242L;
        // a user of the newer node creates the room (its answer is relayed to that node) ...
        newer.send(ownerId, forward(epoch, 1, room, c, join("c0@example.org/r", room, "carol")));
        await(() -> relayedTo(got, "c0@example.org/r"), "the creation's answer relayed");
        // ... then a message this build cannot read, then another user's join behind it on the same link
        long t0 = System.nanoTime();
        newer.send(ownerId, message(42, epoch, 2, "a body of a kind from a later wire version"));
        newer.send(ownerId, forward(epoch, 3, room, c, join("c1@example.org/r", room, "dave")));
        await(() -> relayedTo(got, "c1@example.org/r"), "the join's answer relayed");
        long answeredMs = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("mixed versions: the join after an unreadable message answered in " + answeredMs + " ms");
        assertThat(answeredMs).as("the link did not wait out its 2 s gap timeout").isLessThan(1500);
        assertThat(owner.engine.metrics().registry().counter("mucscale.cluster.unreadable").getCount()).isEqualTo(1);

        // a forward with a flag of a later version, which this build must not ignore: its sender gets an error
        int occupants = owner.engine.muc().occupantCount();
        newer.send(ownerId, forward(epoch, 4, room, c, 4, join("c2@example.org/r", room, "erin")));
        await(() -> got.messages.stream().anyMatch(m -> m.text().charAt(0) == RELAY
                && m.text().contains("c2@example.org/r") && m.text().contains("service-unavailable")),
                "the refusal relayed to the sender's node");
        assertThat(owner.engine.metrics().registry().counter("mucscale.cluster.unreadable").getCount()).isEqualTo(2);
        assertThat(owner.engine.muc().occupantCount()).as("the refused join not handled").isEqualTo(occupants);
    }

    private static boolean relayedTo(ClusterTestSupport.Recorder got, String user) {
        // any answer will do (the second join meets a room still locked by its creator: an error presence)
        return got.messages.stream().anyMatch(m -> m.text().charAt(0) == RELAY && m.text().contains(user));
    }

    // ------------------------------------------------------------------------------------------------ wire by hand

    /** {@code u8 kind, i64 epoch, varint seq}, then a string body. */
    static byte[] message(int kind, long epoch, long seq, String body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        header(out, kind, epoch, seq);
        string(out, body);
        return out.toByteArray();
    }

    /** FORWARD := string room, string entryNode, u8 hops, u8 flags, element stanza (present: u8 1). */
    static byte[] forward(long epoch, long seq, String room, String entryNode, Map<String, Object> stanza) {
        return forward(epoch, seq, room, entryNode, 0, stanza);
    }

    static byte[] forward(long epoch, long seq, String room, String entryNode, int flags,
                                  Map<String, Object> stanza) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        header(out, 1, epoch, seq);
        string(out, room);
        string(out, entryNode);
        out.write(0);
        out.write(flags);
        out.write(1);
        element(out, stanza);
        return out.toByteArray();
    }

    static Map<String, Object> join(String from, String room, String nick) {
        return Map.of("name", "presence", "attrs", List.of("from", from, "to", room + "/" + nick),
                "children", List.of(Map.of("name", "x", "ns", "http://jabber.org/protocol/muc")));
    }

    /** element := string name, string namespace, varint attrs, (string, string)*, varint children, (u8 1 element)*. */
    @SuppressWarnings("unchecked")
    static void element(ByteArrayOutputStream out, Map<String, Object> e) {
        string(out, (String) e.get("name"));
        string(out, (String) e.get("ns"));
        List<String> attrs = (List<String>) e.getOrDefault("attrs", List.of());
        varint(out, attrs.size() / 2);
        for (String a : attrs) {
            string(out, a);
        }
        List<Map<String, Object>> children = (List<Map<String, Object>>) e.getOrDefault("children", List.of());
        varint(out, children.size());
        for (Map<String, Object> child : children) {
            out.write(1);
            element(out, child);
        }
    }

    static void header(ByteArrayOutputStream out, int kind, long epoch, long seq) {
        out.write(kind);
        for (int i = 7; i >= 0; i--) {
            out.write((int) (epoch >>> (i * 8)));
        }
        varint(out, seq);
    }

    /** varint(len + 1) utf8; varint 0 is null. */
    static void string(ByteArrayOutputStream out, String s) {
        if (s == null) {
            varint(out, 0);
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        varint(out, b.length + 1L);
        out.writeBytes(b);
    }

    static void varint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    private Node startNode(String name, List<Integer> ports, int port) {
        return startNode(name, ports, port, false);
    }

    private Node startNode(String name, List<Integer> ports, int port, boolean newerBuild) {
        Node node = new Node(name);
        Settings settings = Settings.fromText(StandaloneServer.catalog(),
                ClusterEnginesTest.nodeSettings(name, ports, port));
        node.settings = settings;
        node.transport = HazelcastClusterTransport.create(settings);
        node.withholding = new ClusterEnginesTest.Withholding(node.transport);
        if (newerBuild) {
            newerWire = new NewerWire(node.transport);
        }
        node.engine = MucScaleEngine.builder(ClusterEnginesTest.SERVICE, settings, node)
                .cluster(newerBuild ? newerWire : node.withholding).build();
        node.engine.start();
        nodes.add(node);
        return node;
    }
}
