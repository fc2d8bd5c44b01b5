package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.config.Settings;
import org.mucscale.standalone.StandaloneServer;
import org.mucscale.testkit.ProsodyServer;

/**
 * Issue 18.2's attacks through real parts: the {@code abuse} scenario (shortened) through a real Prosody to mucscale
 * standalone. Every kind of attack must be refused with its error, the normal occupants must lose nothing, and both
 * windows (without and with the attack) must be reported.
 */
class AbuseAgainstMucscaleTest {

    @Test
    @Timeout(300)
    void abuseScenario_everyAttackRefused_normalOccupantsLoseNothing(@TempDir Path dir) throws Exception {
        try (ProsodyServer xmpp = ProsodyServer.builder().allowRegistration(true).externalComponent("muc", "abuse-secret")
                .globalConfig("network_settings = { nagle = false }").start()) {
            Settings settings = Settings.fromText(StandaloneServer.catalog(), Map.of(
                    "mucscale.standalone.server-port", Integer.toString(xmpp.componentPort()),
                    "mucscale.standalone.component-domain", xmpp.componentDomain("muc"),
                    "mucscale.standalone.component-secret", "abuse-secret",
                    "mucscale.store.jdbc-url", "jdbc:hsqldb:file:" + dir.resolve("db/mucscale") + ";shutdown=true",
                    "mucscale.store.spill-directory", dir.resolve("spill").toString(),
                    "mucscale.metrics.http-port", "0",
                    "mucscale.metrics.jmx-enabled", "false",
                    // small enough that the short attack reaches the per-user room cap too
                    "mucscale.muc.max-rooms-per-user", "10"));
            try (StandaloneServer mucscale = StandaloneServer.start(settings)) {
                ByteArrayOutputStream console = new ByteArrayOutputStream();
                PrintStream stdout = new PrintStream(console, true, StandardCharsets.UTF_8);
                Path out = dir.resolve("out");
                List<String> args = new ArrayList<>(List.of("run", "abuse", "--server",
                        xmpp.host() + ":" + xmpp.c2sPort(), "--domain", xmpp.domain(), "--muc",
                        xmpp.componentDomain("muc"), "--label", "abuse-test", "--out", out.toString(),
                        "--require-zero-loss"));
                for (String set : List.of("users=20", "rooms.count=2", "rooms.largest=12", "levels.warmupS=1",
                        "abuse.attackers=6", "abuse.windowS=6", "abuse.normalRatePerSec=20", "abuse.ratePerSec=240")) {
                    args.add("--set");
                    args.add(set);
                }
                int code = Main.run(args.toArray(new String[0]), stdout, stdout);
                String text = console.toString(StandardCharsets.UTF_8);
                System.out.println(text);
                assertThat(code).as(text + "\n" + xmpp.tail()).isZero();
                assertThat(text).contains("abuse: normal occupants' p99");

                ObjectNode result;
                try (Stream<Path> files = Files.list(out)) {
                    result = Results.readJson(files.filter(p -> p.toString().endsWith(".json")).findFirst().orElseThrow());
                }
                JsonNode s = result.get("summary");
                assertThat(s.get("lost").asLong()).isZero();
                assertThat(s.get("deliveries").asLong()).isEqualTo(s.get("expectedDeliveries").asLong());
                List<String> windows = new ArrayList<>();
                result.get("levels").forEach(l -> windows.add(l.get("kind").asText()));
                assertThat(windows).contains("abuse-baseline", "abuse-attack-onset", "abuse-attack-sustained");

                JsonNode abuse = result.get("abuse");
                assertThat(abuse.get("stanzasSent").asLong()).isPositive();
                List<String> refused = new ArrayList<>();
                abuse.get("refusedByKindStanzaCondition").fieldNames().forEachRemaining(refused::add);
                assertThat(refused).as(abuse.toPrettyString())
                        .anyMatch(k -> k.startsWith("rejoin ") && k.endsWith(" resource-constraint"))
                        .anyMatch(k -> k.equals("churn presence resource-constraint"))
                        .anyMatch(k -> k.equals("nick presence resource-constraint"))
                        .anyMatch(k -> k.equals("invite message resource-constraint"))
                        .anyMatch(k -> k.equals("decline message not-acceptable"))
                        .anyMatch(k -> k.equals("create presence not-allowed")
                                || k.equals("create presence resource-constraint"));
                // the server refused every forged decline (none relayed) and counted each on its metrics (the
                // dashboard's flood line); the attacker got an error for the first user-error-burst (20) of its
                // refusals and then one per second (60 per minute): each error would cross Prosody again, so past
                // that budget a refusal is only counted
                long declines = abuse.get("sentByKind").get("decline").asLong();
                assertThat(declines).isGreaterThan(100);
                assertThat(mucscale.engine().metrics().floodRejections("UNSOLICITED_DECLINE")).isEqualTo(declines);
                long declineErrors = abuse.get("refusedByKindStanzaCondition").get("decline message not-acceptable")
                        .asLong();
                long attackSeconds = 2L * 6 + 5; // the two attack windows, plus the drain
                assertThat(declineErrors).isBetween(19L, 20L + attackSeconds);
                assertThat(mucscale.engine().metrics().registry().counter("mucscale.muc.errors-withheld").getCount())
                        .isGreaterThanOrEqualTo(declines - declineErrors);
            }
        }
    }
}
