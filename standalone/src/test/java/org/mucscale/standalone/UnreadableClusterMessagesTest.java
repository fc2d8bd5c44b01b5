package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.standalone.ClusterEnginesTest.await;
import static org.mucscale.standalone.MixedWireVersionsTest.element;
import static org.mucscale.standalone.MixedWireVersionsTest.forward;
import static org.mucscale.standalone.MixedWireVersionsTest.header;
import static org.mucscale.standalone.MixedWireVersionsTest.join;
import static org.mucscale.standalone.MixedWireVersionsTest.message;
import static org.mucscale.standalone.MixedWireVersionsTest.string;
import static org.mucscale.standalone.MixedWireVersionsTest.varint;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.cluster.Rendezvous;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.standalone.ClusterEnginesTest.Node;

/**
 * A cluster message whose body a node cannot read, that carries a client's stanza, is answered: its sender gets
 * {@code service-unavailable} (relayed to the node its session is on, or written here if that is this node) instead
 * of no answer at all; every such message is counted ({@code mucscale.cluster.unreadable}, and
 * {@code .unreadable.answered}), and the log says so once per peer node and wire version, naming both wire versions.
 * One case per way a body does not read: a kind this build does not know, a body cut short, and a FORWARD of a later
 * wire version whose stanza's children have a layout this build does not read. Two engines and a third member that
 * speaks the wire by hand (real Hazelcast members on loopback; {@link MixedWireVersionsTest}'s byte writers). Before,
 * each of these was counted and dropped, and the client waited for an answer that never came.
 */
class UnreadableClusterMessagesTest {
    private final List<Node> nodes = new ArrayList<>();
    private HazelcastClusterTransport hand;
    private final ClusterTestSupport.Recorder handGot = new ClusterTestSupport.Recorder();
    private Node owner;
    private String ownerId;
    private String handId;
    private String room;
    private final StderrCopy log = new StderrCopy(System.err);
    private PrintStream stderr;

    @BeforeEach
    void startCluster() throws Exception {
        stderr = System.err;
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8)); // slf4j-simple looks System.err up each time
        List<Integer> ports = List.of(org.mucscale.testkit.FreePort.next(), org.mucscale.testkit.FreePort.next(),
                org.mucscale.testkit.FreePort.next());
        startNode("n0", ports, ports.get(0));
        startNode("n1", ports, ports.get(1));
        hand = HazelcastClusterTransport.create(Settings.fromText(StandaloneServer.catalog(),
                ClusterEnginesTest.nodeSettings("hand", ports, ports.get(2))));
        hand.start(handGot);
        ClusterTestSupport.writeStartMark(hand); // as the engine of another build does at its start
        await(() -> nodes.stream().allMatch(n -> n.engine.cluster().members().size() == 3), "three members");
        handId = hand.localNode();
        owner = nodes.get(1);
        ownerId = owner.transport.localNode();
        List<String> members = owner.engine.cluster().members();
        for (int k = 0; room == null; k++) {
            String r = "unreadable" + k + "@" + ClusterEnginesTest.SERVICE;
            if (Rendezvous.owner(r, members).equals(ownerId)) {
                room = r;
            }
        }
    }

    @AfterEach
    void stopAll() {
        System.setErr(stderr);
        ClusterEnginesTest.stopAfterTest(nodes);
        if (hand != null) {
            hand.stop();
        }
    }

    @Test
    void messagesOfAnUnknownKindCarryingStanzas_sendersAnsweredServiceUnavailable_oneWarn_counted() throws Exception {
        List<String> senders = List.of("kind0@example.org/r", "kind1@example.org/r", "kind2@example.org/r");
        long seq = 1;
        for (String s : senders) {
            // a later kind that carries a stanza, as the wire rule asks: its body begins as a FORWARD's does
            byte[] b = forward(5150, seq++, room, handId, join(s, room, "k" + seq));
            b[0] = 42;
            hand.send(ownerId, withLaterField(b));
        }
        hand.send(ownerId, message(43, 5150, seq, "a later kind that carries no stanza"));
        assertAnswered(senders, 4, "a build older than the versions map (wire version 1)");
    }

    @Test
    void forwardsCutShort_sendersAnsweredServiceUnavailable_hereToo_oneWarn_counted() throws Exception {
        List<String> senders = List.of("cut0@example.org/r", "cut1@example.org/r");
        long seq = 1;
        for (String s : senders) {
            byte[] b = forward(5151, seq++, room, handId, join(s, room, "c" + seq));
            hand.send(ownerId, Arrays.copyOf(b, b.length - 3)); // cut inside the join's <x/>
        }
        // one whose sender's session is on the room's owner itself (it entered there, and came back here)
        String local = "cut-here@example.org/r";
        byte[] b = forward(5151, seq++, room, ownerId, join(local, room, "h"));
        hand.send(ownerId, Arrays.copyOf(b, b.length - 3));
        // cut before the stanza's attributes end: nothing to answer, counted
        byte[] early = forward(5151, seq, room, handId, join("cut-early@example.org/r", room, "e"));
        hand.send(ownerId, Arrays.copyOf(early, early.length - 40));
        await(() -> owner.of(local).stream().anyMatch(x -> x.contains("service-unavailable")
                && x.contains("type=\"error\"")), "the answer written to the session on the owner");
        assertAnswered(senders, 4, "a build older than the versions map (wire version 1)");
        assertThat(answered()).as("answered, with the one on the owner").isEqualTo(3);
        assertThat(handGot.messages.stream().anyMatch(m -> m.text().contains("cut-early@example.org/r")))
                .as("the one cut before its stanza's attributes ended is not answered").isFalse();
    }

    @Test
    void forwardsOfAHigherWireVersionWithALaterLayout_sendersAnsweredServiceUnavailable_oneWarn_counted()
            throws Exception {
        hand.map("versions").putAll(Map.of(handId, versions(9, "0.9.0-later")));
        await(() -> "0.9.0-later (wire version 9)".equals(owner.engine.cluster().versionsPerNode().get(handId)),
                "the later build's versions seen by the owner");
        List<String> senders = List.of("later0@example.org/r", "later1@example.org/r", "later2@example.org/r");
        long seq = 1;
        for (String s : senders) {
            hand.send(ownerId, laterLayoutForward(5152, seq++, s));
        }
        assertAnswered(senders, 3, "0.9.0-later (wire version 9)");
    }

    /**
     * Each sender answered service-unavailable on the hand member's node, {@code unreadable} messages counted, and
     * one WARN about the hand member that names its version and this build's.
     */
    private void assertAnswered(List<String> senders, int unreadable, String theirs) throws Exception {
        for (String s : senders) {
            await(() -> handGot.messages.stream().anyMatch(m -> m.text().contains(s)
                    && m.text().contains("service-unavailable")), "the refusal of " + s + " relayed to its node");
        }
        await(() -> count("mucscale.cluster.unreadable") == unreadable, unreadable + " unreadable messages counted");
        await(() -> !warnings().isEmpty(), "the warning");
        Thread.sleep(200); // a second warning, if there were one, would be written by now
        String ours = owner.engine.cluster().versionsPerNode().get(ownerId);
        assertThat(warnings()).as("one WARN for all of them").hasSize(1);
        assertThat(warnings().get(0)).contains("which runs " + theirs).contains("this node " + ownerId + " runs " + ours)
                .contains("service-unavailable");
        assertThat(count("mucscale.cluster.unreadable")).isEqualTo(unreadable);
        assertThat(answered()).isGreaterThanOrEqualTo(senders.size());
        for (Node n : nodes) {
            assertThat(n.engine.metrics().registry().counter("mucscale.cluster.link.gaps").getCount())
                    .as("the link went on past them on %s", n.name).isZero();
        }
    }

    private long count(String name) {
        return owner.engine.metrics().registry().counter(name).getCount();
    }

    private long answered() {
        return count("mucscale.cluster.unreadable.answered");
    }

    private List<String> warnings() {
        return log.text().lines().filter(l -> l.contains(" WARN ")
                && l.contains("cannot read cluster messages from node " + handId + ",")).toList();
    }

    /**
     * A FORWARD as a later wire version might write it: the same fields up to the stanza's attributes (the rule), then
     * a child of a tag this build does not know (2), say a compressed body.
     */
    private byte[] laterLayoutForward(long epoch, long seq, String from) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        header(out, 1, epoch, seq);
        string(out, room);
        string(out, handId);
        out.write(0); // hops
        out.write(0); // flags
        out.write(1); // a stanza
        string(out, "message");
        string(out, null);
        varint(out, 3);
        for (String a : List.of("from", from, "to", room, "type", "groupchat")) {
            string(out, a);
        }
        varint(out, 1);
        out.write(2);
        out.writeBytes(new byte[] {17, 0x78, (byte) 0x9c, 3, 0, 0, 0, 0, 1});
        return out.toByteArray();
    }

    /** A field a later version appends (a reader of this version ignores it). */
    private static byte[] withLaterField(byte[] message) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(message);
        varint(out, 7);
        element(out, Map.of("name", "later"));
        return out.toByteArray();
    }

    /** The versions map's value: {@code u8 format 1, varint wireVersion, string build}. */
    private static byte[] versions(int wire, String build) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(1);
        varint(out, wire);
        string(out, build);
        return out.toByteArray();
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

    /** What is written to stderr (the log, slf4j-simple's), kept for the test and passed on. */
    private static final class StderrCopy extends OutputStream {
        private final PrintStream original;
        private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

        StderrCopy(PrintStream original) {
            this.original = original;
        }

        @Override
        public synchronized void write(int b) {
            original.write(b);
            copy.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            original.write(b, off, len);
            copy.write(b, off, len);
        }

        @Override
        public void flush() {
            original.flush();
        }

        synchronized String text() {
            return copy.toString(StandardCharsets.UTF_8);
        }
    }
}
