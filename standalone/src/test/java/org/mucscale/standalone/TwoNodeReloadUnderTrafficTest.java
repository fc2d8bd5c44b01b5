package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.standalone.ClusterEnginesTest.await;
import static org.mucscale.standalone.ClusterEnginesTest.groupchat;
import static org.mucscale.standalone.ClusterEnginesTest.instantRoom;
import static org.mucscale.standalone.ClusterEnginesTest.join;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.cluster.Rendezvous;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.testkit.FreePort;

/**
 * The rolling upgrade of README "Rolling upgrade" at engine level, as RealOpenfireRollingUpgradeIT does it inside
 * Openfire: two nodes, L owning three rooms, E with the sender and the reader of all three. L's engine stops and
 * starts again while its member stays (a plugin reload) and the sender keeps sending every 10 ms. Each room moves to E
 * (the entry node is the new owner) and back. The reader must get every message once and in the order sent.
 *
 * <p>What it pins (docs/cluster-protocol.md, I2 and I5 across a graceful leave, StragglerHold rule 4):
 * <ul>
 *   <li>a leaving node passes on what still reaches it for the rooms it gave away; before, it held such a forward for
 *   a hand-off that never came (the sender's view still placed the room at L), confirmed it and lost it;</li>
 *   <li>E's user's next stanzas wait until L has passed E's earlier ones back;</li>
 *   <li>E, alone in its view, takes L's stragglers at once; before, they waited as "early forwards" (a view ahead of
 *   ours) for the hand-off timeout and came seconds late, after the sender's later messages.</li>
 * </ul>
 */
class TwoNodeReloadUnderTrafficTest {
    static final String SERVICE = "muc.example.org";
    private static final Pattern BODY = Pattern.compile("<body>r\\|(\\d+)\\|(\\d+)</body>");
    private static final int ROOMS = 3;

    private final List<ClusterEnginesTest.Node> nodes = new ArrayList<>();

    @AfterEach
    void stopAll() {
        ClusterEnginesTest.stopAfterTest(nodes);
    }

    private ClusterEnginesTest.Node startNode(String name, List<Integer> ports, int port) {
        ClusterEnginesTest.Node node = new ClusterEnginesTest.Node(name);
        Map<String, String> text = ClusterEnginesTest.nodeSettings(name, ports, port);
        node.settings = Settings.fromText(StandaloneServer.catalog(), text);
        node.transport = HazelcastClusterTransport.create(node.settings);
        node.withholding = new ClusterEnginesTest.Withholding(node.transport);
        node.engine = MucScaleEngine.builder(SERVICE, node.settings, node).cluster(node.withholding).build();
        node.engine.start();
        nodes.add(node);
        return node;
    }

    @Test
    void ownerReloadsWhileTheEntryNodesUserSends_everyMessageOnceInOrder() throws Exception {
        List<Integer> ports = List.of(FreePort.next(), FreePort.next());
        startNode("n0", ports, ports.get(0));
        startNode("n1", ports, ports.get(1));
        await(() -> nodes.stream().allMatch(n -> n.engine.cluster().members().size() == 2), "two members");
        ClusterEnginesTest.awaitPartitionsSafe(nodes);
        ClusterEnginesTest.Node l = nodes.get(0);
        ClusterEnginesTest.Node e = nodes.get(1);
        List<String> ids = List.of(l.engine.cluster().localNode(), e.engine.cluster().localNode());
        List<String> rooms = new ArrayList<>();
        for (int k = 0; rooms.size() < ROOMS; k++) {
            String candidate = "reload" + k + "@" + SERVICE;
            if (Rendezvous.owner(candidate, ids).equals(ids.get(0))) {
                rooms.add(candidate);
            }
        }
        String sender = "sender@example.org/r";
        String reader = "reader@example.org/r";
        for (String room : rooms) {
            e.engine.process(join(sender, room, "sender"));
            await(() -> e.of(sender).stream().anyMatch(x -> x.contains("code=\"201\"") && x.contains(room)),
                    "room " + room + " created");
            e.engine.process(instantRoom(sender, room));
            e.engine.process(join(reader, room, "reader"));
            await(() -> e.of(reader).stream().anyMatch(x -> x.contains("code=\"110\"") && x.contains(room)),
                    "reader in " + room);
        }
        assertThat(l.engine.muc().roomCount()).as("rooms on L").isEqualTo(ROOMS);

        AtomicBoolean sending = new AtomicBoolean(true);
        AtomicInteger rounds = new AtomicInteger();
        Thread traffic = new Thread(() -> {
            for (int m = 0; m < 2_000 && sending.get(); m++) { // bounded: 20 s at most
                for (int r = 0; r < ROOMS; r++) {
                    e.engine.process(groupchat(sender, rooms.get(r), "r|" + r + "|" + m));
                }
                rounds.incrementAndGet();
                try {
                    Thread.sleep(10);
                } catch (InterruptedException ex) {
                    return;
                }
            }
        }, "test-traffic");
        traffic.start();
        try {
            Thread.sleep(300);
            l.withholding.keepMembershipOnStop = true;
            l.engine.close();
            l.engine = MucScaleEngine.builder(SERVICE, l.settings, l).cluster(l.withholding).build();
            l.engine.start();
            l.withholding.keepMembershipOnStop = false;
            await(() -> l.engine.muc().roomCount() == ROOMS, "the rooms back on L");
            Thread.sleep(500); // traffic once the rooms are back
        } finally {
            sending.set(false);
            traffic.join(10_000);
        }
        int total = rounds.get();
        List<Integer> every = new ArrayList<>();
        for (int m = 0; m < total; m++) {
            every.add(m);
        }
        for (int r = 0; r < ROOMS; r++) {
            int room = r;
            try {
                await(() -> received(e, reader, room).size() >= total, "every message of room " + room);
            } catch (AssertionError timedOut) {
                // the comparison below says what is missing
            }
        }
        for (int r = 0; r < ROOMS; r++) {
            assertThat(received(e, reader, r)).as("room %d: every message once, in the order sent", r)
                    .isEqualTo(every);
        }
    }

    private static List<Integer> received(ClusterEnginesTest.Node n, String jid, int room) {
        List<Integer> out = new ArrayList<>();
        for (String x : n.of(jid)) {
            Matcher m = BODY.matcher(x);
            if (x.startsWith("<message") && m.find() && Integer.parseInt(m.group(1)) == room) {
                out.add(Integer.parseInt(m.group(2)));
            }
        }
        return out;
    }
}
