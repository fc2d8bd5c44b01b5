package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.standalone.ClusterEnginesTest.await;
import static org.mucscale.standalone.ClusterEnginesTest.groupchat;
import static org.mucscale.standalone.ClusterEnginesTest.instantRoom;
import static org.mucscale.standalone.ClusterEnginesTest.join;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.testkit.FreePort;

/**
 * A confirmation means handled (docs/cluster-protocol.md, I4): an entry node lets go of a forwarded message only once
 * the node it sent it to has handled it. Three engines as in {@link ClusterViewLagOrderTest}: A (the sender's node),
 * O (the room's owner, killed) and N (the owner once O is gone), N's view change held back. A resends what O never
 * confirmed to N, which keeps those resends as early forwards until its view makes it the owner; but N's link progress
 * for A moves past them as they arrive, so N's next confirmation covers them. finding F2: A holds nothing any more
 * while N has handled none of them (if N died now they would be lost although no node has them).
 */
class EarlyForwardConfirmTest {
    static final String SERVICE = "muc.example.org";
    private static final Pattern BODY = Pattern.compile("<body>o\\|(\\d+)</body>");

    private final List<ClusterEnginesTest.Node> nodes = new ArrayList<>();
    private final List<ClusterViewLagOrderTest.HeldViews> views = new ArrayList<>();

    @AfterEach
    void stopAll() {
        views.forEach(ClusterViewLagOrderTest.HeldViews::release);
        for (ClusterEnginesTest.Node n : nodes) {
            try {
                n.engine.close();
            } catch (RuntimeException ignored) {
                // already stopped
            }
        }
    }

    private ClusterEnginesTest.Node startNode(String name, List<Integer> ports, int port) {
        ClusterEnginesTest.Node node = new ClusterEnginesTest.Node(name);
        Map<String, String> text = ClusterEnginesTest.nodeSettings(name, ports, port);
        text.put("mucscale.cluster.handoff-timeout", "30000"); // the resends wait for N's view however long it is held
        Settings settings = Settings.fromText(StandaloneServer.catalog(), text);
        node.transport = HazelcastClusterTransport.create(settings);
        ClusterViewLagOrderTest.HeldViews held =
                new ClusterViewLagOrderTest.HeldViews(new ClusterEnginesTest.Withholding(node.transport));
        node.engine = MucScaleEngine.builder(SERVICE, settings, node).cluster(held).build();
        node.engine.start();
        nodes.add(node);
        views.add(held);
        return node;
    }

    @Test
    void resendsWaitForTheNewOwnersView_theSenderKeepsThemUntilTheyAreHandled() throws Exception {
        List<Integer> ports = List.of(FreePort.next(), FreePort.next(), FreePort.next());
        for (int i = 0; i < 3; i++) {
            startNode("n" + i, ports, ports.get(i));
        }
        await(() -> nodes.stream().allMatch(n -> n.engine.cluster().members().size() == 3), "three members");
        ClusterEnginesTest.awaitPartitionsSafe(nodes);

        SuccessorRoom roles = SuccessorRoom.find(nodes, "confirm", SERVICE);
        String room = roles.room();
        int oi = roles.owner();
        int ai = roles.third();
        int ni = roles.successor();
        ClusterEnginesTest.Node a = nodes.get(ai);
        ClusterEnginesTest.Node n = nodes.get(ni);
        ClusterEnginesTest.Node o = nodes.get(oi);
        String sender = "sender@example.org/r";
        String onN = "listener-n@example.org/r";
        String r = room;
        a.engine.process(join(sender, room, "sender"));
        await(() -> a.of(sender).stream().anyMatch(x -> x.contains("code=\"201\"")), "room created");
        a.engine.process(instantRoom(sender, room));
        await(() -> a.of(sender).stream().anyMatch(x -> x.contains("type=\"result\"")), "room unlocked");
        n.engine.process(join(onN, room, "on-n"));
        await(() -> n.of(onN).stream().anyMatch(x -> x.contains("code=\"110\"")), "listener on N joined");

        views.get(ni).hold();
        int killAt = 20;
        int sentAfterSwitch = 0;
        // bounded: at most 2,000 messages 20 ms apart; until five after A switched
        for (int m = 0; m < 2000 && sentAfterSwitch < 5; m++) {
            if (m == killAt) {
                o.transport.terminate();
                nodes.remove(o);
            }
            a.engine.process(groupchat(sender, r, "o|" + m, "o" + m));
            if (m > killAt && a.engine.cluster().members().size() == 2) {
                sentAfterSwitch++;
            }
            Thread.sleep(20);
        }
        assertThat(sentAfterSwitch).as("A saw the crash").isEqualTo(5);
        // N's view is still held: N has handled none of the resends (they wait for its view)
        long deadline = System.nanoTime() + 1_000_000_000L;
        while (a.engine.cluster().unconfirmedMessages() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        boolean aLetGo = a.engine.cluster().unconfirmedMessages() == 0;
        List<Integer> onNSoFar = numbers(n, onN);
        views.get(ni).release();
        if (aLetGo) {
            assertThat(onNSoFar).as("A let go of every message it forwarded, so N handled them: message %d, which "
                    + "O never confirmed and A resent to N, reached the listener on N", killAt).contains(killAt);
        }
    }

    private static List<Integer> numbers(ClusterEnginesTest.Node node, String jid) {
        List<Integer> out = new ArrayList<>();
        for (String x : node.of(jid)) {
            Matcher m = BODY.matcher(x);
            if (x.startsWith("<message") && m.find()) {
                out.add(Integer.parseInt(m.group(1)));
            }
        }
        return out;
    }
}
