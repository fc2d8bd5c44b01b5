package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.partition.PartitionService;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.cluster.ClusterMap;
import org.mucscale.standalone.ClusterTestSupport.Cluster;
import org.mucscale.standalone.ClusterTestSupport.Recorder;

/**
 * A member in another JVM ({@link ClusterMemberProcess}) that crashes (SIGKILL) or hangs (SIGSTOP): the survivors'
 * views drop it within {@code cluster-failure-timeout} + 2 s, and the map entries it wrote are all still readable.
 * The failing member is the oldest one (Hazelcast's master), the harder case: the survivors also elect a new master.
 */
class HazelcastClusterKillTest {
    private static final int ENTRIES = 1000;

    @TempDir
    Path dir;

    private final List<HazelcastClusterTransport> members = new ArrayList<>();
    private Process child;

    @AfterEach
    void stopEverything() {
        if (child != null) {
            child.destroyForcibly();
        }
        for (HazelcastClusterTransport t : members) {
            t.terminate();
        }
    }

    @Test
    void killedMemberInAnotherJvm_leavesTheViewWithinTheFailureTimeout_andItsEntriesSurvive() throws Exception {
        failOldestMember("SIGKILL", Process::destroyForcibly);
    }

    /**
     * A hung member (SIGSTOP) keeps its TCP connections open, so only the missing heartbeats give it away: this is
     * where {@code cluster-failure-timeout} decides. (A killed process is noticed sooner: its kernel closes the
     * connections, and Hazelcast suspects a member it cannot reconnect to.)
     */
    @Test
    void hungMemberInAnotherJvm_leavesTheViewWithinTheFailureTimeout_andItsEntriesSurvive() throws Exception {
        failOldestMember("SIGSTOP", p -> signal(p, "STOP"));
    }

    private void failOldestMember(String how, Consumer<Process> fail) throws Exception {
        Cluster cluster = Cluster.of(3);
        Duration failureTimeout = StandaloneSettings.CLUSTER_FAILURE_TIMEOUT.defaultValue();
        BlockingQueue<String> lines = launch(cluster);
        String failed = expectLine(lines, "NODE ", Duration.ofSeconds(30));

        Recorder ra = new Recorder();
        Recorder rb = new Recorder();
        HazelcastClusterTransport a = HazelcastClusterTransport.create(cluster.settings(1));
        members.add(a);
        a.start(ra);
        HazelcastClusterTransport b = HazelcastClusterTransport.create(cluster.settings(2));
        members.add(b);
        b.start(rb);
        Set<String> all = Set.of(failed, a.localNode(), b.localNode());
        ra.awaitView(all, Duration.ofSeconds(10));
        rb.awaitView(all, Duration.ofSeconds(10));
        assertThat(expectLine(lines, "WROTE ", Duration.ofSeconds(30))).isEqualTo(Integer.toString(ENTRIES));

        PartitionService partitions = a.hazelcastInstance().getPartitionService();
        long ownedByFailed = 0;
        for (int i = 0; i < ENTRIES; i++) {
            if (failed.equals(partitions.getPartition("key" + i).getOwner()
                    .getAttribute(HazelcastClusterTransport.NODE_ATTRIBUTE))) {
                ownedByFailed++;
            }
        }
        assertThat(ownedByFailed).as("entries whose primary copy is in the JVM that fails").isGreaterThan(100);

        long failedAt = System.nanoTime();
        fail.accept(child);
        Duration bound = failureTimeout.plusSeconds(2);
        Set<String> survivors = Set.of(a.localNode(), b.localNode());
        long seenByA = ra.awaitView(survivors, bound.plusSeconds(10));
        long seenByB = rb.awaitView(survivors, bound.plusSeconds(10));
        System.out.printf("%s of the oldest member: views dropped it after %d ms (A) and %d ms (B); "
                + "failure timeout %d ms%n", how, (seenByA - failedAt) / 1_000_000, (seenByB - failedAt) / 1_000_000,
                failureTimeout.toMillis());
        assertThat(Duration.ofNanos(Math.max(seenByA, seenByB) - failedAt))
                .as("time until both survivors' views dropped the member after " + how).isLessThanOrEqualTo(bound);

        ClusterMap map = a.map("kill");
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < ENTRIES; i++) {
            keys.add("key" + i);
        }
        long readStart = System.nanoTime();
        Map<String, byte[]> read = map.getAll(keys);
        System.out.printf("%s: read back %d entries in %d ms after the view change%n", how, read.size(),
                (System.nanoTime() - readStart) / 1_000_000);
        assertThat(read).hasSize(ENTRIES);
        for (int i = 0; i < ENTRIES; i++) {
            assertThat(new String(read.get("key" + i), StandardCharsets.UTF_8)).isEqualTo("value" + i);
        }
        assertThat(new HashSet<>(b.map("kill").keys())).hasSize(ENTRIES);
    }

    private static void signal(Process p, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start();
            assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill -" + signal).isTrue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private BlockingQueue<String> launch(Cluster cluster) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ClusterMemberProcess.class.getName());
        cmd.add("3");
        cmd.add(Integer.toString(ENTRIES));
        cluster.text(0).forEach((k, v) -> cmd.add(k + "=" + v));
        Path log = dir.resolve("member.log");
        child = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(
                    new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process went away
            }
        }, "member-process-stdout");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    private String expectLine(BlockingQueue<String> lines, String prefix, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
            if (line == null && !child.isAlive()) {
                break;
            }
        }
        Path log = dir.resolve("member.log");
        throw new AssertionError("the member process did not print '" + prefix + "' within " + timeout + "; its log:\n"
                + (Files.exists(log) ? Files.readString(log) : "(none)"));
    }
}
