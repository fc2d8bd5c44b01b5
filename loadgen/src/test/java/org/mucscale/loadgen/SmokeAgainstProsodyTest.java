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
