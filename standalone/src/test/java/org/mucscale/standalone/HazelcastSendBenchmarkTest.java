package org.mucscale.standalone;

import static org.assertj.core.api.Assumptions.assumeThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.cluster.ClusterTransport;
import org.mucscale.standalone.ClusterTestSupport.Cluster;
import org.mucscale.standalone.ClusterTestSupport.Recorder;

/**
 * Messages per second through {@link HazelcastClusterTransport#send} between two members in this JVM on loopback,
 * for 200-byte and 4 KiB payloads: one thread sends as fast as {@code send} returns, and the rate counts what the
 * other member's listener received until the last message arrived. Each size runs a warm-up round and then
 * {@value #ROUNDS} measured rounds; the median is printed. Both members share this machine's cores with the sender.
 *
 * <p>Skipped unless {@code -Dmucscale.bench=true}:
 * {@code mvn -B -ntp -o -pl standalone test -Dtest=HazelcastSendBenchmarkTest -Dmucscale.bench=true}
 */
class HazelcastSendBenchmarkTest {
    private static final int ROUNDS = 5;

    private final List<HazelcastClusterTransport> members = new ArrayList<>();

    @AfterEach
    void stop() {
        members.forEach(HazelcastClusterTransport::stop);
    }

    @Test
    void send_200BytesAnd4KiB_messagesPerSecond() throws Exception {
        assumeThat(Boolean.getBoolean("mucscale.bench")).as("benchmark runs only with -Dmucscale.bench=true").isTrue();
        Cluster cluster = Cluster.of(2);
        AtomicLong received = new AtomicLong();
        Recorder ra = new Recorder();
        HazelcastClusterTransport a = HazelcastClusterTransport.create(cluster.settings(0));
        members.add(a);
        a.start(ra);
        HazelcastClusterTransport b = HazelcastClusterTransport.create(cluster.settings(1));
        members.add(b);
        b.start(new ClusterTransport.Listener() {
            @Override
            public void received(String fromNode, byte[] message) {
                received.incrementAndGet();
            }

            @Override
            public void membersChanged(List<String> view) {
            }
        });
        ra.awaitView(Set.of(a.localNode(), b.localNode()), Duration.ofSeconds(10));

        for (int[] run : new int[][] {{200, 500_000}, {4096, 100_000}}) {
            int size = run[0];
            int n = run[1];
            byte[] payload = new byte[size];
            List<Double> rates = new ArrayList<>();
            List<Double> sendMicros = new ArrayList<>();
            for (int round = 0; round <= ROUNDS; round++) {
                received.set(0);
                long start = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    a.send(b.localNode(), payload);
                }
                long sent = System.nanoTime() - start;
                long deadline = start + Duration.ofSeconds(60).toNanos();
                while (received.get() < n && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                long took = System.nanoTime() - start;
                if (received.get() < n) {
                    throw new AssertionError(received.get() + " of " + n + " messages arrived");
                }
                if (round > 0) {
                    rates.add(n * 1e9 / took);
                    sendMicros.add(sent / 1e3 / n);
                }
            }
            Collections.sort(rates);
            Collections.sort(sendMicros);
            System.out.printf("send %5d B: median %,.0f messages/s (%,.1f MB/s), rounds %s; caller's cost per send "
                            + "median %.2f us%n", size, rates.get(ROUNDS / 2), rates.get(ROUNDS / 2) * size / 1e6,
                    rates.stream().map(r -> String.format("%,.0f", r)).toList(), sendMicros.get(ROUNDS / 2));
        }
        System.out.println("dropped: " + a.droppedCount() + ", sent: " + a.sentCount());
    }
}
