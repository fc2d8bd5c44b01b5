package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.testkit.ProsodyServer;

/**
 * The built-in smoke scenario through the command line against a real Prosody (started here, its own MUC, in-band
 * registration on): every expected delivery arrives, and the JSON, CSV and HTML outputs hold data.
 */
class SmokeAgainstProsodyTest {

    @Test
    @Timeout(180)
    void smokeScenario_prosodyOwnMuc_zeroLossAndReportsWithData(@TempDir Path out) throws IOException {
        try (ProsodyServer xmpp = ProsodyServer.builder().allowRegistration(true).prosodyMuc(true)
                .globalConfig("network_settings = { nagle = false }").start()) {
            runSmokeAndCheck(xmpp, xmpp.prosodyMucDomain(), "prosody-muc", out);
        }
    }

    /**
     * Runs the built-in smoke scenario through the command line against {@code xmpp} with rooms on {@code mucDomain}
     * (Prosody's own MUC, or an external MUC component such as mucscale standalone) and checks zero loss and the
     * three output files; returns the results document. Needs in-band registration on the server.
     */
    static ObjectNode runSmokeAndCheck(ProsodyServer xmpp, String mucDomain, String label, Path out) throws IOException {
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        PrintStream stdout = new PrintStream(console, true, StandardCharsets.UTF_8);
        String[] args = {"run", "smoke", "--server", xmpp.host() + ":" + xmpp.c2sPort(), "--domain", xmpp.domain(),
                "--muc", mucDomain, "--server-pid", Long.toString(prosodyPid(xmpp)),
                "--label", label, "--out", out.toString(), "--require-zero-loss"};
        int code = Main.run(args, stdout, stdout);
        String text = console.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        assertThat(code).as(text + "\n" + xmpp.tail()).isZero();
        assertThat(text).contains("[", "level 1/2", "report:");

        Path json = single(out, ".json");
        ObjectNode result = Results.readJson(json);
        JsonNode s = result.get("summary");
        assertThat(s.get("joined").asLong()).isEqualTo(20);
        assertThat(s.get("messagesSent").asLong()).isPositive();
        assertThat(s.get("expectedDeliveries").asLong()).isGreaterThan(s.get("messagesSent").asLong());
        assertThat(s.get("deliveries").asLong()).isEqualTo(s.get("expectedDeliveries").asLong());
        assertThat(s.get("lost").asLong()).isZero();
        assertThat(s.get("duplicates").asLong()).isZero();
        assertThat(s.get("latencyMs").get("count").asLong()).isEqualTo(s.get("deliveries").asLong());
        assertThat(s.get("serverRssMbMax").asDouble()).isPositive();
        assertThat(s.get("wordMessagesSent").asLong()).isPositive();
        assertThat(result.get("stoppedBy").asText()).isEqualTo("completed");
        assertThat(result.get("levels")).hasSizeGreaterThanOrEqualTo(2);
        assertThat(result.get("series").size()).isGreaterThan(5);
        assertExactJoinRate(s);

        List<String> csv = Files.readAllLines(single(out, ".csv"));
        assertThat(csv.get(0)).startsWith("t,phase,connections");
        assertThat(csv).hasSizeGreaterThan(5);
        String html = Files.readString(single(out, ".html"));
        assertThat(html).contains("window.RUNS = [", "\"label\":\"" + label + "\"", "function lineChart")
                .doesNotContain("src=\"http");

        // the comparison view over two runs (the same run twice is enough to exercise it)
        Path compare = out.resolve("compare.html");
        assertThat(Main.run(new String[] {"compare", json.toString(), json.toString(), "--out", compare.toString()},
                stdout, stdout)).isZero();
        assertThat(Files.readString(compare)).contains("window.RUNS = [{", "},{\"tool\":\"mucscale-loadgen\"");
        return result;
    }

    /**
     * A small join storm (20 users into one room, all joins sent at once), run twice against the same server as
     * bench/e2e/run.sh's warm-up runs do: the second run's in-band registrations answer {@code conflict} and its
     * clients log in with the accounts the first registered; the room, destroyed when its last occupant left, is
     * created again. Each run's join rate is exact (joins over first join sent to last join answered), so a storm
     * that completes in well under a second reports more than users per second, which the old 1 s sampler-based
     * figure (at most joined ÷ 1 s) could never show.
     */
    @Test
    @Timeout(180)
    void joinStorm_runTwiceAgainstSameServer_exactJoinRateNotCappedBySampler(@TempDir Path out) throws IOException {
        int users = 20;
        try (ProsodyServer xmpp = ProsodyServer.builder().allowRegistration(true).prosodyMuc(true)
                .globalConfig("network_settings = { nagle = false }").start()) {
            for (int runNo = 1; runNo <= 2; runNo++) {
                Path dir = Files.createDirectories(out.resolve("run" + runNo));
                ByteArrayOutputStream console = new ByteArrayOutputStream();
                PrintStream stdout = new PrintStream(console, true, StandardCharsets.UTF_8);
                String[] args = {"run", "joinstorm", "--server", xmpp.host() + ":" + xmpp.c2sPort(),
                        "--domain", xmpp.domain(), "--muc", xmpp.prosodyMucDomain(),
                        "--label", "storm" + runNo, "--out", dir.toString(), "--require-zero-loss",
                        "--set", "users=" + users, "--set", "rooms.largest=" + users, "--set", "levels.durationS=1",
                        "--set", "levels.warmupS=0", "--set", "rampDown.drainMs=1000"};
                int code = Main.run(args, stdout, stdout);
                String text = console.toString(StandardCharsets.UTF_8);
                System.out.println(text);
                assertThat(code).as("run " + runNo + ": " + text + "\n" + xmpp.tail()).isZero();
                JsonNode s = Results.readJson(single(dir, ".json")).get("summary");
                assertThat(s.get("loggedIn").asLong()).as("run " + runNo).isEqualTo(users);
                assertThat(s.get("joined").asLong()).as("run " + runNo).isEqualTo(users);
                assertThat(s.get("registered").asLong()).as("run %d registrations", runNo)
                        .isEqualTo(runNo == 1 ? users : 0);
                assertExactJoinRate(s);
                // 20 joins into an empty Prosody room take tens of ms; the sampler-based figure could not exceed 20/s
                assertThat(s.get("joinSpanMs").asDouble()).as("run " + runNo).isLessThan(1000);
                assertThat(s.get("joinsPerSec").asDouble()).as("run " + runNo).isGreaterThan(users);
            }
        }
    }

    /** joinsPerSec is joined ÷ joinSpanMs (both rounded to 0.001), and the span is a real, positive window. */
    static void assertExactJoinRate(JsonNode s) {
        double spanMs = s.get("joinSpanMs").asDouble();
        long joined = s.get("joined").asLong();
        assertThat(joined).isPositive();
        assertThat(spanMs).as("joinSpanMs").isPositive();
        assertThat(s.get("joinsPerSec").asDouble()).as("joinsPerSec vs joined %d / %s ms", joined, spanMs)
                .isCloseTo(joined * 1000.0 / spanMs, Percentage.withPercentage(0.5));
    }

    /** Prosody runs as a child of this JVM (a Lua interpreter with the generated config on its command line). */
    static long prosodyPid(ProsodyServer xmpp) {
        String config = xmpp.configFile().toString();
        return ProcessHandle.current().descendants()
                .filter(p -> p.info().arguments().map(a -> String.join(" ", a).contains(config)).orElse(false)
                        || p.info().commandLine().map(c -> c.contains(config)).orElse(false))
                .mapToLong(ProcessHandle::pid).findFirst()
                .orElseThrow(() -> new IllegalStateException("prosody process not found"));
    }

    private static Path single(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> found = files.filter(p -> p.getFileName().toString().endsWith(suffix)
                    && !p.getFileName().toString().startsWith("compare")).toList();
            assertThat(found).as("files ending " + suffix + " in " + dir).hasSize(1);
            return found.get(0);
        }
    }
}
