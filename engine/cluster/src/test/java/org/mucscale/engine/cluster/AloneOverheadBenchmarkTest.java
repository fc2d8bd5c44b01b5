package org.mucscale.engine.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * What clustering costs a node that is alone (issue 14: "with clustering off, no measurable cost"): inside Openfire the
 * plugin always hands the engine its cluster transport, and on a single node Openfire's clustering API is local
 * (caches are local maps, cluster tasks go nowhere), so the engine runs with a one-member view. Measured per delivery
 * in thread CPU time: 427 deliveries of one rendered stanza into a copying transport, straight vs through the
 * {@link ClusterDelivery} of a one-member {@link ClusterNode}, plus the per-stanza placement calls a room makes.
 * Same JVM, same run, alternating rounds. Run with {@code -Dmucscale.bench=true} (docs/benchmarks/cluster.md).
 */
@EnabledIfSystemProperty(named = "mucscale.bench", matches = "true")
class AloneOverheadBenchmarkTest {

    /** A single node as Openfire's clustering API presents it when clustering is off. */
    static final class SingleNode implements ClusterTransport {
        private final Map<String, ClusterMap> maps = new HashMap<>();

        @Override
        public String localNode() {
            return "alone";
        }

        @Override
        public List<String> members() {
            return List.of("alone");
        }

        @Override
        public void send(String node, byte[] message) {
        }

        @Override
        public synchronized ClusterMap map(String name) {
            return maps.computeIfAbsent(name, n -> new ClusterMap() {
                final Map<String, byte[]> m = new ConcurrentHashMap<>();

                public void putAll(Map<String, byte[]> entries) {
                    m.putAll(entries);
                }

                public Map<String, byte[]> getAll(Collection<String> keys) {
                    Map<String, byte[]> out = new HashMap<>();
                    keys.forEach(k -> {
                        if (m.containsKey(k)) {
                            out.put(k, m.get(k));
                        }
                    });
                    return out;
                }

                public byte[] get(String key) {
                    return m.get(key);
                }

                public void removeAll(Collection<String> keys) {
                    keys.forEach(m::remove);
                }

                public Set<String> keys() {
                    return m.keySet();
                }
            });
        }

        @Override
        public void start(Listener listener) {
            listener.membersChanged(members());
        }

        @Override
        public void stop() {
        }
    }

    static final class CopyingDelivery implements Delivery {
        final byte[] buffer = new byte[64 * 1024];
        long written;

        @Override
        public void deliver(RenderedStanza stanza, Jid recipient) {
            byte[] p = stanza.prefixUtf8();
            byte[] s = stanza.suffixUtf8();
            System.arraycopy(p, 0, buffer, 0, p.length);
            int n = p.length;
            String to = recipient.toString();
            for (int i = 0, len = to.length(); i < len; i++) {
                buffer[n++] = (byte) to.charAt(i);
            }
            System.arraycopy(s, 0, buffer, n, s.length);
            written += n + s.length;
        }

        @Override
        public void send(XmlElement stanza) {
        }
    }

    @Test
    void aloneNode_perDeliveryCpu_straightVersusThroughClusterDelivery() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        Settings settings = Settings.defaults(ClusterSettings.ALL);
        ClusterNode node = new ClusterNode(new SingleNode(), settings, 20, new ClusterListener() { });
        CopyingDelivery host = new CopyingDelivery();
        Delivery wrapped = node.wrap(host);
        RenderedStanza stanza = RenderedStanza.render(XmlElement.builder("message")
                .attribute("from", "big@muc.example.org/sender").attribute("type", "groupchat")
                .textChild("body", "a typical chat line of about sixty characters, give or take").build());
        Jid room = Jid.parse("big@muc.example.org");
        Jid[] occupants = new Jid[427];
        for (int i = 0; i < occupants.length; i++) {
            occupants[i] = Jid.parse("user" + i + "@example.org/game");
            occupants[i].toString();
        }
        wrapped.flush(); // this thread now gathers, like a room thread
        int messages = 5_000;
        int rounds = 9;
        double[] straight = new double[rounds];
        double[] alone = new double[rounds];
        long tid = Thread.currentThread().getId();
        long allocStraight = 0;
        long allocAlone = 0;
        for (int r = -3; r < rounds; r++) { // 3 warm-up rounds
            long c0 = mx.getCurrentThreadCpuTime();
            long a0 = mx.getThreadAllocatedBytes(tid);
            for (int m = 0; m < messages; m++) {
                for (Jid o : occupants) {
                    host.deliver(stanza, o);
                }
                host.flush();
            }
            long c1 = mx.getCurrentThreadCpuTime();
            long a1 = mx.getThreadAllocatedBytes(tid);
            for (int m = 0; m < messages; m++) {
                // what a room does per stanza with clustering attached: the placement check and the sender's node
                if (!node.servesHere(room)) {
                    throw new AssertionError("a node alone serves every room");
                }
                node.sessionSeen(occupants[m % occupants.length], null);
                for (Jid o : occupants) {
                    wrapped.deliver(stanza, o);
                }
                wrapped.flush();
            }
            long c2 = mx.getCurrentThreadCpuTime();
            long a2 = mx.getThreadAllocatedBytes(tid);
            if (r >= 0) {
                straight[r] = (c1 - c0) / (double) (messages * occupants.length);
                alone[r] = (c2 - c1) / (double) (messages * occupants.length);
                allocStraight += a1 - a0;
                allocAlone += a2 - a1;
            }
        }
        Arrays.sort(straight);
        Arrays.sort(alone);
        String report = String.format(
                "per delivery, 427 occupants, %d rounds x %d messages, thread CPU: straight median %.1f ns (best %.1f),"
                        + " through a one-member cluster node median %.1f ns (best %.1f), ratio %.3f;"
                        + " allocation per delivery straight %.3f B, alone-clustered %.3f B%n",
                rounds, messages, straight[rounds / 2], straight[0], alone[rounds / 2], alone[0],
                alone[rounds / 2] / straight[rounds / 2],
                allocStraight / (double) ((long) rounds * messages * occupants.length),
                allocAlone / (double) ((long) rounds * messages * occupants.length));
        System.out.print(report);
        File dir = new File(System.getProperty("mucscale.bench.dir", "target"));
        dir.mkdirs();
        Files.writeString(new File(dir, "cluster-alone-overhead.txt").toPath(), report);
        assertThat(host.written).isPositive();
        node.close();
    }
}
