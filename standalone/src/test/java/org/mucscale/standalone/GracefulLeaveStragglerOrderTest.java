package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.standalone.ClusterEnginesTest.await;
import static org.mucscale.standalone.ClusterEnginesTest.groupchat;
import static org.mucscale.standalone.ClusterEnginesTest.instantRoom;
import static org.mucscale.standalone.ClusterEnginesTest.join;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.testkit.FreePort;

/**
 * Sender order (docs/cluster-protocol.md, I2) across a graceful leave. Three engines, each a real Hazelcast member:
 * L (owns the room, leaves gracefully), E (the sender's node) and N (owns the room once L is gone). L announces its
 * leave (LEAVING), switches at once and forwards what still reaches it to N; E switches only when it has handled L's
 * LEAVING and from then on forwards to N directly. So the sender's stanzas reach N on two links, L's and E's, and
 * nothing orders the last ones L passes on against the first ones E sends itself. The test widens the window within
 * what the transport promises (no bound on a message's delay): E's LEAVING arrives 300 ms late, L's forwards take
 * 150 ms. docs/cluster-protocol.md, finding F1.
 */
class GracefulLeaveStragglerOrderTest {
    static final String SERVICE = "muc.example.org";
    private static final Pattern BODY = Pattern.compile("<body>s\\|(\\d+)</body>");
    private static final byte FORWARD = 1;
    private static final byte LEAVING = 4;

    private final List<ClusterEnginesTest.Node> nodes = new ArrayList<>();
    private final List<Delaying> transports = new ArrayList<>();

    /** The real transport, with forwards it sends and leave announcements it receives delayed while set. */
    static final class Delaying extends ForwardingTransport {
        private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "test-delay");
            t.setDaemon(true);
            return t;
        });
        volatile long forwardDelayMs;
        volatile long leavingDelayMs;

        Delaying(HazelcastClusterTransport real) {
            super(real);
        }

        @Override
        public void send(String node, byte[] message) {
            long delay = forwardDelayMs;
            if (delay > 0 && message.length > 0 && message[0] == FORWARD) {
                later.schedule(() -> real.send(node, message), delay, TimeUnit.MILLISECONDS);
            } else {
                real.send(node, message);
            }
        }

        @Override
        public void start(Listener listener) {
            real.start(new Listener() {
                @Override
                public void received(String fromNode, byte[] message) {
                    long delay = leavingDelayMs;
                    if (delay > 0 && message.length > 0 && message[0] == LEAVING) {
                        later.schedule(() -> listener.received(fromNode, message), delay, TimeUnit.MILLISECONDS);
                    } else {
                        listener.received(fromNode, message);
                    }
                }

                @Override
                public void membersChanged(List<String> members) {
                    listener.membersChanged(members);
                }
            });
        }

        @Override
        public void stop() {
            real.stop();
            later.shutdownNow();
        }
    }

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

    private ClusterEnginesTest.Node startNode(String name, List<Integer> ports, int port) {
        ClusterEnginesTest.Node node = new ClusterEnginesTest.Node(name);
        Map<String, String> text = ClusterEnginesTest.nodeSettings(name, ports, port);
        Settings settings = Settings.fromText(StandaloneServer.catalog(), text);
        node.transport = HazelcastClusterTransport.create(settings);
        Delaying delaying = new Delaying(node.transport);
        node.engine = MucScaleEngine.builder(SERVICE, settings, node).cluster(delaying).build();
        node.engine.start();
        nodes.add(node);
        transports.add(delaying);
        return node;
    }

    @Test
    void ownerLeavesGracefully_itsStragglersAndTheEntryNodesDirectForwards_stillArriveInTheOrderSent()
            throws Exception {
        List<Integer> ports = List.of(FreePort.next(), FreePort.next(), FreePort.next());
        for (int i = 0; i < 3; i++) {
            startNode("n" + i, ports, ports.get(i));
        }
        await(() -> nodes.stream().allMatch(n -> n.engine.cluster().members().size() == 3), "three members");
        ClusterEnginesTest.awaitPartitionsSafe(nodes);

        // roles: a room L owns now that N owns once L is gone, with E a third node
        SuccessorRoom roles = SuccessorRoom.find(nodes, "leave", SERVICE);
        String room = roles.room();
        int li = roles.owner();
        int ei = roles.third();
        int ni = roles.successor();
        ClusterEnginesTest.Node l = nodes.get(li);
        ClusterEnginesTest.Node e = nodes.get(ei);
        ClusterEnginesTest.Node n = nodes.get(ni);
        String sender = "sender@example.org/r";
        String onN = "listener-n@example.org/r";
        String r = room;
        e.engine.process(join(sender, room, "sender"));
        await(() -> e.of(sender).stream().anyMatch(x -> x.contains("code=\"201\"")), "room created");
        e.engine.process(instantRoom(sender, room));
        await(() -> e.of(sender).stream().anyMatch(x -> x.contains("type=\"result\"")), "room unlocked");
        n.engine.process(join(onN, room, "on-n"));
        await(() -> n.of(onN).stream().anyMatch(x -> x.contains("code=\"110\"")), "listener on N joined");
        assertThat(l.engine.muc().roomCount()).as("L owns the room").isEqualTo(1);

        transports.get(li).forwardDelayMs = 150;
        transports.get(ei).leavingDelayMs = 300;
        Thread leave = new Thread(() -> l.engine.close(), "test-leave");
        int sent = 0;
        // bounded: 300 messages 5 ms apart (about 1.5 s; L drains stragglers for 1 s after its hand-offs)
        for (int m = 0; m < 300; m++) {
            if (m == 50) {
                leave.start();
            }
            e.engine.process(groupchat(sender, r, "s|" + m, "s" + m));
            sent = m + 1;
            Thread.sleep(5);
        }
        leave.join(TimeUnit.SECONDS.toMillis(60));
        nodes.remove(l);
        int last = sent - 1;
        try {
            await(() -> numbers(n, onN).contains(last), "the last message on N");
        } catch (AssertionError timedOut) {
            // the comparison below shows what arrived
        }
        List<Integer> every = new ArrayList<>();
        for (int m = 0; m < sent; m++) {
            every.add(m);
        }
        assertThat(numbers(n, onN)).as("the listener on N: every message once, in the order sent").isEqualTo(every);
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
