package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.standalone.ClusterEnginesTest.await;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.testkit.FreePort;

/**
 * One writer per room (docs/cluster-protocol.md, I1) when a membership change is reported between a node's receipt
 * of a LEAVING and the moment its cluster thread handles it (finding F7). Four engines, each a real Hazelcast member:
 * L leaves gracefully while D joins. E's transport reports D's join only once L's LEAVING is in (a transport reports
 * views on its own threads, in no order with the messages), right after it: the view E applies must still leave L
 * out, since L has handed its rooms away; before the fix E filtered the membership on the transport thread, before its
 * cluster thread had recorded L as leaving, and put L back into its view until the next membership change.
 */
class LeaveThenJoinViewTest {
    static final String SERVICE = "muc.example.org";
    private static final byte LEAVING = 4;

    private final List<ClusterEnginesTest.Node> nodes = new ArrayList<>();

    /** The real transport; while {@code hold} is set, membership reports wait for the next LEAVING and follow it. */
    static final class HoldingViews extends ForwardingTransport {
        volatile boolean hold;
        volatile List<String> held;
        volatile boolean leavingThenView;

        HoldingViews(HazelcastClusterTransport real) {
            super(real);
        }

        @Override
        public void start(Listener listener) {
            real.start(new Listener() {
                @Override
                public void received(String fromNode, byte[] message) {
                    listener.received(fromNode, message);
                    synchronized (HoldingViews.this) {
                        if (hold && held != null && message.length > 0 && message[0] == LEAVING) {
                            hold = false;
                            listener.membersChanged(held); // at once: E's cluster thread may not have run onLeaving
                            leavingThenView = true;
                        }
                    }
                }

                @Override
                public void membersChanged(List<String> members) {
                    synchronized (HoldingViews.this) {
                        if (hold) {
                            held = List.copyOf(members);
                            return;
                        }
                    }
                    listener.membersChanged(members);
                }
            });
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

    private HoldingViews startNode(String name, List<Integer> ports, int port) {
        ClusterEnginesTest.Node node = new ClusterEnginesTest.Node(name);
        Map<String, String> text = ClusterEnginesTest.nodeSettings(name, ports, port);
        Settings settings = Settings.fromText(StandaloneServer.catalog(), text);
        node.transport = HazelcastClusterTransport.create(settings);
        HoldingViews holding = new HoldingViews(node.transport);
        node.engine = MucScaleEngine.builder(SERVICE, settings, node).cluster(holding).build();
        node.engine.start();
        nodes.add(node);
        return holding;
    }

    @Test
    void joinReportedRightAfterALeaving_theLeavingNodeStaysOutOfTheView() throws Exception {
        List<Integer> ports = List.of(FreePort.next(), FreePort.next(), FreePort.next(), FreePort.next());
        startNode("n0", ports, ports.get(0));
        HoldingViews onE = startNode("n1", ports, ports.get(1));
        startNode("n2", ports, ports.get(2));
        await(() -> nodes.stream().allMatch(n -> n.engine.cluster().members().size() == 3), "three members");
        ClusterEnginesTest.awaitPartitionsSafe(nodes);
        ClusterEnginesTest.Node l = nodes.get(0);
        ClusterEnginesTest.Node e = nodes.get(1);
        String lId = l.transport.localNode();

        onE.hold = true;
        startNode("n3", ports, ports.get(3));
        String dId = nodes.get(3).transport.localNode();
        await(() -> onE.held != null && onE.held.contains(dId), "E's transport reported D's join (held)");
        assertThat(e.engine.cluster().members()).as("E has not applied D's join yet").doesNotContain(dId);

        Thread leave = new Thread(() -> l.engine.close(), "test-leave");
        leave.start();
        await(() -> onE.leavingThenView && e.engine.cluster().members().contains(dId),
                "E applied L's LEAVING and then D's join");
        List<String> view = e.engine.cluster().members();
        boolean lStillAMember = e.transport.members().contains(lId);
        assertThat(lStillAMember).as("L is still a Hazelcast member (it drains before it stops)").isTrue();
        assertThat(view).as("E's view after D's join").doesNotContain(lId).contains(dId);
        leave.join(60_000);
        nodes.remove(l);
    }
}
