package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.testkit.FreePort;

/**
 * The generator's own limits (issue 8): at most 5 µs of its CPU per received delivery, and 19,000 connections from one
 * process. Measured against {@link FakeMucServer} in a separate process, because a real server on this 2-core machine
 * saturates long before the generator does. Minutes long and machine-hungry, so it runs only with
 * {@code -Dmucscale.loadgen.efficiency=true}; results go to docs/benchmarks/loadgen.md.
 */
class GeneratorEfficiencyTest {

    private static void assumeEnabled() {
        assumeTrue(Boolean.getBoolean("mucscale.loadgen.efficiency"), "set -Dmucscale.loadgen.efficiency=true to run");
    }

    @Test
    @Timeout(600)
    void cpuPerDelivery_atHighDeliveryRate_atMostFiveMicroseconds(@TempDir Path out) throws Exception {
        assumeEnabled();
        try (FakeServerProcess server = FakeServerProcess.start()) {
            // first level warms the JIT; the generator is judged where it is busy (batches of deliveries per read)
            ObjectNode r = run(server, out, "users=1000", "rooms.size=500", "levels.ratesPerSec=50,100,200,400",
                    "levels.durationS=8", "levels.p99ThresholdMs=60000", "connect.connectionsPerSec=500");
            JsonNode levels = r.get("levels");
            JsonNode busiest = null;
            for (JsonNode l : levels) {
                System.out.printf("level %.0f msg/s: %.0f deliveries/s, generator %.2f us/delivery, server %.2f us/delivery%n",
                        l.get("ratePerSec").asDouble(), l.get("deliveriesPerSec").asDouble(),
                        l.get("genCpuUsPerDelivery").asDouble(), l.get("serverCpuUsPerDelivery").asDouble());
                if (busiest == null || l.get("deliveriesPerSec").asDouble() > busiest.get("deliveriesPerSec").asDouble()) {
                    busiest = l;
                }
            }
            // the top levels overload the (single-threaded) fake server, so messages still queued there when the
            // drain time ends count as lost; what is judged here is the generator's cost where it was busiest
            assertThat(r.get("summary").get("duplicates").asLong()).isZero();
            assertThat(busiest.get("deliveriesPerSec").asDouble()).as("deliveries/s at the busiest level").isGreaterThan(20_000);
            assertThat(busiest.get("genCpuUsPerDelivery").asDouble()).as("generator CPU us per delivery at the busiest level")
                    .isLessThanOrEqualTo(5.0);
        }
    }

    /**
     * The same with every client stream-managed (XEP-0198): the fake server asks {@code <r/>} every 5 stanzas, as
     * Openfire does by default, and each is answered with an {@code <a/>} at once; the cost per delivery stays in bound.
     */
    @Test
    @Timeout(600)
    void cpuPerDelivery_streamManagementAckingEveryFifth_atMostFiveMicroseconds(@TempDir Path out) throws Exception {
        assumeEnabled();
        try (FakeServerProcess server = FakeServerProcess.start("sm")) {
            ObjectNode r = run(server, out, "users=1000", "rooms.size=500", "levels.ratesPerSec=50,100,200,400",
                    "levels.durationS=8", "levels.p99ThresholdMs=60000", "connect.connectionsPerSec=500",
                    "clients.streamManagement=on");
            assertThat(r.get("profiles").get("streamManagement").get("enabled").asLong()).isEqualTo(1000);
            JsonNode busiest = null;
            for (JsonNode l : r.get("levels")) {
                System.out.printf("sm level %.0f msg/s: %.0f deliveries/s, generator %.2f us/delivery%n",
                        l.get("ratePerSec").asDouble(), l.get("deliveriesPerSec").asDouble(),
                        l.get("genCpuUsPerDelivery").asDouble());
                if (busiest == null || l.get("deliveriesPerSec").asDouble() > busiest.get("deliveriesPerSec").asDouble()) {
                    busiest = l;
                }
            }
            assertThat(r.get("summary").get("duplicates").asLong()).isZero();
            assertThat(busiest.get("deliveriesPerSec").asDouble()).as("deliveries/s at the busiest level").isGreaterThan(20_000);
            assertThat(busiest.get("genCpuUsPerDelivery").asDouble()).as("generator CPU us per delivery with SM")
                    .isLessThanOrEqualTo(5.0);
        }
    }

    @Test
    @Timeout(900)
    void connections_19000FromOneProcess_allLogInJoinAndReceive(@TempDir Path out) throws Exception {
        assumeEnabled();
        try (FakeServerProcess server = FakeServerProcess.start()) {
            ObjectNode r = run(server, out, "users=19000", "rooms.size=50", "levels.ratesPerSec=200", "levels.durationS=10",
                    "levels.p99ThresholdMs=60000", "connect.connectionsPerSec=1000", "connect.maxPendingLogins=500",
                    "connect.loginTimeoutMs=120000", "run.deadlineS=600");
            JsonNode s = r.get("summary");
            System.out.println(Results.summaryText(r));
            assertThat(s.get("loggedIn").asLong()).isEqualTo(19_000);
            assertThat(s.get("joined").asLong()).isEqualTo(19_000);
            assertThat(s.get("lost").asLong()).isZero();
            assertThat(s.get("deliveries").asLong()).isPositive();
        }
    }

    private static ObjectNode run(FakeServerProcess server, Path out, String... overrides) {
        List<String> o = new ArrayList<>(List.of("server.port=" + server.port, "server.tls=none", "server.sasl=PLAIN",
                "soak.durationS=0", "run.progressIntervalS=10"));
        o.addAll(List.of(overrides));
        Scenario s = ScenarioLoader.load("smoke", o);
        ObjectNode r = new LoadRun(s, java.util.List.of(server.pid()), "fake-server", System.out).run();
        Results.writeJson(r, out.resolve("result.json"));
        return r;
    }

    /** {@link FakeMucServer} in a child JVM; closing its stdin stops it. */
    static final class FakeServerProcess implements AutoCloseable {
        final Process process;
        final int port;

        private FakeServerProcess(Process process, int port) {
            this.process = process;
            this.port = port;
        }

        static FakeServerProcess start(String... options) throws IOException {
            int port = FreePort.next();
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> cmd = new ArrayList<>(List.of(java, "-Xmx1g", "-XX:+UseParallelGC", "-cp",
                    System.getProperty("java.class.path"), FakeMucServer.class.getName(), Integer.toString(port)));
            cmd.addAll(List.of(options));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = in.readLine();
            if (line == null || !line.startsWith("READY")) {
                p.destroyForcibly();
                throw new IllegalStateException("fake server did not start: " + line);
            }
            return new FakeServerProcess(p, port);
        }

        long pid() {
            return process.pid();
        }

        @Override
        public void close() throws IOException {
            process.getOutputStream().close();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
