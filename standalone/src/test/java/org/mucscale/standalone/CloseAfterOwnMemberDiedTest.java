package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.standalone.ClusterEnginesTest.await;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.standalone.ClusterEnginesTest.Node;

/**
 * A node whose own Hazelcast member is already gone when it learns that the other member left (a member that died
 * or was shut down under the engine, the engine closed after it). The take-over that view starts cannot read the
 * replicated maps on a dead member, ever; its reads used to be retried for the whole
 * {@code mucscale.cluster.state-read-timeout} (30 s) and the engine's close waited behind them on the cluster
 * thread (issue 39: {@code MixedWireVersionsTest} took 30 s more in some runs, its tear-down had this order). Now a
 * read is not retried once the transport says its member is not running, and the close is quick.
 * Real Hazelcast members on loopback.
 */
class CloseAfterOwnMemberDiedTest {
    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void stopAll() {
        ClusterEnginesTest.stopAfterTest(nodes);
    }

    @Test
    void theOtherMemberLeavesAfterOurOwnDied_closeDoesNotWaitOutTheStateReadTimeout() throws Exception {
        List<Integer> ports = List.of(org.mucscale.testkit.FreePort.next(), org.mucscale.testkit.FreePort.next());
        HeldViews[] held = new HeldViews[1];
        Node n0 = startNode("n0", ports, 0, held);
        Node n1 = startNode("n1", ports, 1, null);
        await(() -> nodes.stream().allMatch(n -> n.engine.cluster().members().size() == 2), "two members");
        // a room on each node, so both have replicated state
        for (int i = 0; i < 2; i++) {
            Node home = nodes.get(i);
            String user = ClusterEnginesTest.user(i);
            String room = "dead" + i + "@" + ClusterEnginesTest.SERVICE;
            home.engine.process(ClusterEnginesTest.join(user, room, "nick" + i));
            await(() -> home.of(user).stream().anyMatch(x -> x.contains("code=\"201\"")), "room created");
        }

        held[0].hold = true;
        n1.transport.terminate();
        await(() -> n0.transport.members().size() == 1, "n0's member saw n1 go");
        n0.transport.terminate();
        assertThat(n0.transport.running()).as("a terminated member is not running").isFalse();
        held[0].release(); // the engine learns of n1's departure now: a take-over on a dead member

        long t0 = System.nanoTime();
        n0.engine.close();
        long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        System.out.println("close after the own member died: " + closeMs + " ms");
        // the leave's own pause is 1 s; before, the take-over's reads were retried for 30 s first
        assertThat(closeMs).as("close waited for reads on a dead member").isLessThan(10_000);
    }

    /** Holds back the views Hazelcast reports while {@link #hold} is set; {@link #release} hands the last one on. */
    static final class HeldViews extends ForwardingTransport {
        volatile boolean hold;
        private volatile Listener listener;
        private volatile List<String> last;
        /** The view the engine was last given. */
        private volatile List<String> seen;

        HeldViews(HazelcastClusterTransport real) {
            super(real);
        }

        @Override
        public void start(Listener engine) {
            listener = engine;
            real.start(new Listener() {
                @Override
                public void received(String fromNode, byte[] message) {
                    engine.received(fromNode, message);
                }

                @Override
                public void membersChanged(List<String> members) {
                    if (hold) {
                        last = members;
                    } else {
                        seen = members;
                        engine.membersChanged(members);
                    }
                }
            });
        }

        @Override
        public List<String> members() {
            List<String> s = seen;
            return hold && s != null ? s : real.members();
        }

        void release() {
            hold = false;
            List<String> l = last;
            if (l != null) {
                seen = l;
                listener.membersChanged(l);
            }
        }
    }

    private Node startNode(String name, List<Integer> ports, int i, HeldViews[] held) {
        Node node = new Node(name);
        Settings settings = Settings.fromText(StandaloneServer.catalog(),
                ClusterEnginesTest.nodeSettings(name, ports, ports.get(i)));
        node.settings = settings;
        node.transport = HazelcastClusterTransport.create(settings);
        node.withholding = new ClusterEnginesTest.Withholding(node.transport);
        org.mucscale.engine.cluster.ClusterTransport t = node.withholding;
        if (held != null) {
            held[0] = new HeldViews(node.transport);
            t = held[0];
        }
        node.engine = MucScaleEngine.builder(ClusterEnginesTest.SERVICE, settings, node).cluster(t).build();
        node.engine.start();
        nodes.add(node);
        return node;
    }
}
