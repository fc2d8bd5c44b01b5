package org.mucscale.standalone;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.mucscale.engine.cluster.ClusterTransport;
import org.mucscale.engine.config.Settings;
import org.mucscale.testkit.FreePort;

/**
 * Real Hazelcast members for the cluster transport tests: settings for members on free loopback ports (a cluster name
 * of their own, so concurrent builds on this machine never meet), and a listener that records what it is told.
 */
final class ClusterTestSupport {
    private ClusterTestSupport() {
    }

    /** Ports for {@code n} members and a cluster name no other test run uses. */
    record Cluster(String name, List<Integer> ports) {
        static Cluster of(int n) {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ports.add(FreePort.next());
            }
            return new Cluster("test-" + Long.toHexString(ThreadLocalRandom.current().nextLong()), ports);
        }

        String memberList() {
            return ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
        }

        /** Text settings of member {@code i} (what a config file would hold). */
        Map<String, String> text(int i) {
            Map<String, String> text = new HashMap<>();
            text.put(StandaloneSettings.CLUSTER_ENABLED.key(), "true");
            text.put(StandaloneSettings.CLUSTER_MEMBERS.key(), memberList());
            text.put(StandaloneSettings.CLUSTER_PORT.key(), Integer.toString(ports.get(i)));
            text.put(StandaloneSettings.CLUSTER_NAME.key(), name);
            return text;
        }

        Settings settings(int i) {
            return Settings.fromText(StandaloneSettings.ALL, text(i));
        }
    }

    /** What a transport reported: every view (with the thread it came on) and every message. */
    static final class Recorder implements ClusterTransport.Listener {
        record View(Set<String> members, String thread, long nanos) {
        }

        record Received(String from, String text) {
        }

        final List<View> views = new CopyOnWriteArrayList<>();
        final ConcurrentLinkedQueue<Received> messages = new ConcurrentLinkedQueue<>();

        @Override
        public void received(String fromNode, byte[] message) {
            messages.add(new Received(fromNode, new String(message, StandardCharsets.UTF_8)));
        }

        @Override
        public void membersChanged(List<String> members) {
            views.add(new View(Set.copyOf(members), Thread.currentThread().getName(), System.nanoTime()));
        }

        Set<String> lastView() {
            return views.isEmpty() ? Set.of() : views.get(views.size() - 1).members();
        }

        /** Waits until the last view is exactly {@code expected}; returns when it became so (nanoTime). */
        long awaitView(Set<String> expected, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                if (!views.isEmpty()) {
                    View last = views.get(views.size() - 1);
                    if (last.members().equals(expected)) {
                        return last.nanos();
                    }
                }
                Thread.sleep(5);
            }
            throw new AssertionError("view never became " + expected + " within " + timeout + "; views: "
                    + views.stream().map(View::members).toList());
        }

        boolean hasMessage(String from, String text) {
            return messages.contains(new Received(from, text));
        }

        Set<String> threads() {
            return new HashSet<>(views.stream().map(View::thread).toList());
        }
    }

    /**
     * Writes {@code t}'s start mark as an engine does at its start (a run number in the map {@code starts}): a member
     * that speaks the wire by hand counts as running the engine from then on, not only once it has sent something
     * (docs/cluster-protocol.md, rule J).
     */
    static void writeStartMark(ClusterTransport t) {
        t.map("starts").putAll(Map.of(t.localNode(),
                java.nio.ByteBuffer.allocate(Long.BYTES).putLong(ThreadLocalRandom.current().nextLong()).array()));
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static void await(String what, Duration timeout, BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " did not happen within " + timeout);
            }
            Thread.sleep(5);
        }
    }
}
