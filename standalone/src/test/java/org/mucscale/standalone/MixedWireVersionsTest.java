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
 * Two engines and a third member that speaks the wire by hand, as a node of a newer build would (real Hazelcast
 * members on loopback). Its messages are written here byte by byte from the format drawn in {@code Wire}'s Javadoc,
 * so this also pins wire version 1: a {@code FORWARD} written that way is understood (this build speaks 2, which a
 * FORWARD's origin needs, and sends one only to members that published 2). A message of a kind this build
 * does not know is counted as unreadable and takes its place on the link, so the sender's next message is handled at
 * once (before, the link waited for it the 2 s gap timeout); every node publishes its build and wire version.
 */
class MixedWireVersionsTest {
    private static final int RELAY = 2;

    private final List<Node> nodes = new ArrayList<>();
    private HazelcastClusterTransport newer;

    @AfterEach
    void stopAll() {
        ClusterEnginesTest.stopAfterTest(nodes);
        if (newer != null) {
            newer.stop();
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
                .containsEntry(ownerId, "0.1.0-SNAPSHOT (wire version 2)")
                .containsEntry(nodes.get(0).transport.localNode(), "0.1.0-SNAPSHOT (wire version 2)")
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
    }

    private static boolean relayedTo(ClusterTestSupport.Recorder got, String user) {
        // any answer will do (the second join meets a room still locked by its creator: an error presence)
        return got.messages.stream().anyMatch(m -> m.text().charAt(0) == RELAY && m.text().contains(user));
    }

    // ------------------------------------------------------------------------------------------------ wire by hand

    /** {@code u8 kind, i64 epoch, varint seq}, then a string body. */
    private static byte[] message(int kind, long epoch, long seq, String body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        header(out, kind, epoch, seq);
        string(out, body);
        return out.toByteArray();
    }

    /** FORWARD := string room, string entryNode, u8 hops, u8 flags, element stanza (present: u8 1). */
    private static byte[] forward(long epoch, long seq, String room, String entryNode, Map<String, Object> stanza) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        header(out, 1, epoch, seq);
        string(out, room);
        string(out, entryNode);
        out.write(0);
        out.write(0);
        out.write(1);
        element(out, stanza);
        return out.toByteArray();
    }

    private static Map<String, Object> join(String from, String room, String nick) {
        return Map.of("name", "presence", "attrs", List.of("from", from, "to", room + "/" + nick),
                "children", List.of(Map.of("name", "x", "ns", "http://jabber.org/protocol/muc")));
    }

    /** element := string name, string namespace, varint attrs, (string, string)*, varint children, (u8 1 element)*. */
    @SuppressWarnings("unchecked")
    private static void element(ByteArrayOutputStream out, Map<String, Object> e) {
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

    private static void header(ByteArrayOutputStream out, int kind, long epoch, long seq) {
        out.write(kind);
        for (int i = 7; i >= 0; i--) {
            out.write((int) (epoch >>> (i * 8)));
        }
        varint(out, seq);
    }

    /** varint(len + 1) utf8; varint 0 is null. */
    private static void string(ByteArrayOutputStream out, String s) {
        if (s == null) {
            varint(out, 0);
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        varint(out, b.length + 1L);
        out.writeBytes(b);
    }

    private static void varint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    private void startNode(String name, List<Integer> ports, int port) {
        Node node = new Node(name);
        Settings settings = Settings.fromText(StandaloneServer.catalog(),
                ClusterEnginesTest.nodeSettings(name, ports, port));
        node.settings = settings;
        node.transport = HazelcastClusterTransport.create(settings);
        node.withholding = new ClusterEnginesTest.Withholding(node.transport);
        node.engine = MucScaleEngine.builder(ClusterEnginesTest.SERVICE, settings, node).cluster(node.withholding)
                .build();
        node.engine.start();
        nodes.add(node);
    }
}
