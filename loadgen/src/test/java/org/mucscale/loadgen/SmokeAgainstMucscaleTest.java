package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.config.Settings;
import org.mucscale.standalone.StandaloneServer;
import org.mucscale.testkit.ProsodyServer;

/**
 * Issue 8's CI run against mucscale itself: the smoke scenario through a real Prosody (Prosody's own MUC off) to
 * mucscale standalone as its XEP-0114 external component, with the whole engine (filter, HSQLDB room log, metrics)
 * behind it: every expected delivery arrives exactly once and the report holds data.
 */
class SmokeAgainstMucscaleTest {

    @Test
    @Timeout(240)
    void smokeScenario_mucscaleStandalone_zeroLossAndReportsWithData(@TempDir Path dir) throws Exception {
        try (ProsodyServer xmpp = ProsodyServer.builder().allowRegistration(true).externalComponent("muc", "smoke-secret")
                .globalConfig("network_settings = { nagle = false }").start()) {
            Settings settings = Settings.fromText(StandaloneServer.catalog(), Map.of(
                    "mucscale.standalone.server-port", Integer.toString(xmpp.componentPort()),
                    "mucscale.standalone.component-domain", xmpp.componentDomain("muc"),
                    "mucscale.standalone.component-secret", "smoke-secret",
                    "mucscale.store.jdbc-url", "jdbc:hsqldb:file:" + dir.resolve("db/mucscale") + ";shutdown=true",
                    "mucscale.store.spill-directory", dir.resolve("spill").toString(),
                    "mucscale.metrics.http-port", "0",
                    "mucscale.metrics.jmx-enabled", "false"));
            try (StandaloneServer mucscale = StandaloneServer.start(settings)) {
                ObjectNode result = SmokeAgainstProsodyTest.runSmokeAndCheck(xmpp, xmpp.componentDomain("muc"),
                        "mucscale-standalone", dir.resolve("out"));
                // the filter saw the generator's listed words, and the room log holds what was delivered
                assertThat(result.get("summary").get("wordMessagesSent").asLong()).isPositive();
                assertThat(mucscale.engine().store().writer().awaitIdle(10_000)).isTrue();
                long sent = result.get("summary").get("messagesSent").asLong();
                assertThat(mucscale.engine().store().stats().committed()).as("room log rows").isGreaterThanOrEqualTo(sent);
            }
        }
    }
}
