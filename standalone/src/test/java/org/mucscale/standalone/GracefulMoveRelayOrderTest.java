package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.standalone.ClusterEnginesTest.await;
import static org.mucscale.standalone.ClusterEnginesTest.groupchat;
import static org.mucscale.standalone.ClusterEnginesTest.instantRoom;
import static org.mucscale.standalone.ClusterEnginesTest.join;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;
import org.mucscale.testkit.FreePort;

/**
 * Output order (docs/cluster-protocol.md, I6) across a graceful move. L owns the room and leaves gracefully, N takes it,
 * E is the sender's node; listeners on L and N. L's release thread lags (a descheduled thread: it is stalled in its
 * local deliveries, so the relays of later runs wait behind them on its chain) until N has delivered its first
 * messages. L's hand-off goes out
 * once the room's last write is done, not once its relays have left, so N adopts the room, accepts the sender's next
 * messages and delivers them to its listener before L's relays of the earlier ones arrive. The sender pauses across
 * the move, so input order (F1) plays no part. Finding F6.
 */
class GracefulMoveRelayOrderTest {
    static final String SERVICE = "muc.example.org";
    private static final Pattern BODY = Pattern.compile("<body>g\\|(\\d+)</body>");

    private final List<ClusterEnginesTest.Node> nodes = new ArrayList<>();

    /** The node's delivery, with its room threads' release threads held while {@link #slow} is set (3 s at most). */
    static final class SlowReleases implements Delivery {
        final ClusterEnginesTest.Node node;
        volatile boolean slow;

        SlowReleases(ClusterEnginesTest.Node node) {
            this.node = node;
        }

        @Override
        public void deliver(RenderedStanza stanza, Jid recipient) {
            if (slow && Thread.currentThread().getName().endsWith("-release")) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (slow && System.nanoTime() < deadline) {
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
            node.deliver(stanza, recipient);
        }

        @Override
        public void send(XmlElement stanza) {
            node.send(stanza);
        }
    }

    private final List<SlowReleases> deliveries = new ArrayList<>();

    @AfterEach
    void stopAll() {
        for (ClusterEnginesTest.Node n : nodes) {
            try {
                n.engine.close();
            } catch (RuntimeException ignored) {
                // already stopped
            }
        }
    }

    @Test
    void ownerLeavesWhileItsRelaysLag_theNewOwnersMessagesComeAfterTheOldOnesEverywhere() throws Exception {
        List<Integer> ports = List.of(FreePort.next(), FreePort.next(), FreePort.next());
        for (int i = 0; i < 3; i++) {
            ClusterEnginesTest.Node node = new ClusterEnginesTest.Node("n" + i);
            Map<String, String> text = ClusterEnginesTest.nodeSettings("n" + i, ports, ports.get(i));
            Settings settings = Settings.fromText(StandaloneServer.catalog(), text);
            node.transport = HazelcastClusterTransport.create(settings);
            SlowReleases slow = new SlowReleases(node);
            node.engine = MucScaleEngine.builder(SERVICE, settings, slow).cluster(node.transport).build();
            node.engine.start();
            nodes.add(node);
            deliveries.add(slow);
        }
        await(() -> nodes.stream().allMatch(n -> n.engine.cluster().members().size() == 3), "three members");
        ClusterEnginesTest.awaitPartitionsSafe(nodes);

        SuccessorRoom roles = SuccessorRoom.find(nodes, "move", SERVICE);
        String room = roles.room();
        int li = roles.owner();
        int ei = roles.third();
        int ni = roles.successor();
        ClusterEnginesTest.Node l = nodes.get(li);
        ClusterEnginesTest.Node e = nodes.get(ei);
        ClusterEnginesTest.Node n = nodes.get(ni);
        String sender = "sender@example.org/r";
        String onN = "listener-n@example.org/r";
        String onL = "listener-l@example.org/r";
        String r = room;
        e.engine.process(join(sender, room, "sender"));
        await(() -> e.of(sender).stream().anyMatch(x -> x.contains("code=\"201\"")), "room created");
        e.engine.process(instantRoom(sender, room));
        await(() -> e.of(sender).stream().anyMatch(x -> x.contains("type=\"result\"")), "room unlocked");
        n.engine.process(join(onN, room, "on-n"));
        l.engine.process(join(onL, room, "on-l"));
        await(() -> n.of(onN).stream().anyMatch(x -> x.contains("code=\"110\"")), "listener on N joined");
        await(() -> l.of(onL).stream().anyMatch(x -> x.contains("code=\"110\"")), "listener on L joined");

        deliveries.get(li).slow = true;
        for (int m = 0; m < 20; m++) {
            e.engine.process(groupchat(sender, r, "g|" + m, "g" + m));
            Thread.sleep(2);
        }
        Thread.sleep(100); // L accepted them (its relays to N wait on its release thread)
        Thread leave = new Thread(() -> l.engine.close(), "test-leave");
        leave.start();
        try {
            // E routes to N from now on; N accepts once it has the room (a hand-off that waited for L's relays would
            // keep it from delivering anything until L's release thread catches up, and this wait would time out)
            await(() -> e.engine.cluster().members().size() == 2, "E routes around L");
            for (int m = 20; m < 30; m++) {
                e.engine.process(groupchat(sender, r, "g|" + m, "g" + m));
                Thread.sleep(2);
            }
            await(() -> numbers(n, onN).contains(29), "N delivered its own messages");
        } catch (AssertionError timedOut) {
            // the comparison below decides
        } finally {
            deliveries.get(li).slow = false; // L's release thread catches up
        }
        leave.join(TimeUnit.SECONDS.toMillis(60));
        nodes.remove(l);
        try {
            await(() -> numbers(n, onN).contains(29) && numbers(n, onN).size() >= 30, "every message on N");
        } catch (AssertionError timedOut) {
            // the comparison below shows what arrived
        }
        List<Integer> every = new ArrayList<>();
        for (int m = 0; m < 30; m++) {
            every.add(m);
        }
        assertThat(numbers(n, onN)).as("the listener on N: every message once, in the room's order").isEqualTo(every);
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
