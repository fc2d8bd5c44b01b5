package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * A server that stops reading: the component's outbound bytes stay bounded by write-queue-max-bytes and every
 * stanza beyond it is counted (DROP_NEWEST) or makes the component reconnect (RECONNECT); none is lost silently.
 */
class WriteQueueOverflowTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    private static ComponentConnection connect(FakeComponentServer xmpp, String policy) throws Exception {
        return connect(xmpp, policy, "30000");
    }

    private static ComponentConnection connect(FakeComponentServer xmpp, String policy, String keepaliveMs)
            throws Exception {
        Map<String, String> text = new HashMap<>();
        text.put(StandaloneSettings.KEEPALIVE_INTERVAL.key(), keepaliveMs);
        text.put(StandaloneSettings.SERVER_PORT.key(), Integer.toString(xmpp.port()));
        text.put(StandaloneSettings.COMPONENT_DOMAIN.key(), "muc.example.test");
        text.put(StandaloneSettings.COMPONENT_SECRET.key(), "s");
        text.put(StandaloneSettings.WRITE_QUEUE_MAX_BYTES.key(), "65536");
        text.put(StandaloneSettings.WRITE_QUEUE_OVERFLOW.key(), policy);
        text.put(StandaloneSettings.RECONNECT_INITIAL_DELAY.key(), "20");
        text.put(StandaloneSettings.RECONNECT_MAX_DELAY.key(), "100");
        ComponentConnection c = new ComponentConnection(ComponentConfig.from(
                Settings.fromText(StandaloneSettings.ALL, text)));
        c.connect(s -> { });
        xmpp.awaitHandshakes(1, WAIT);
        return c;
    }

    private static RenderedStanza big() {
        return RenderedStanza.render(XmlElement.builder("message").attribute("type", "groupchat")
                .attribute("from", "r@muc.example.test/n").textChild("body", "x".repeat(10_000)).build());
    }

    @Test
    void idleStream_keepaliveInterval_whitespaceSent() throws Exception {
        try (FakeComponentServer xmpp = new FakeComponentServer("s");
             ComponentConnection c = connect(xmpp, "DROP_NEWEST", "1000")) {
            long before = xmpp.bytesReceived.get();
            Thread.sleep(3500);
            long keepalives = xmpp.bytesReceived.get() - before;
            assertThat(keepalives).as("single-space keepalives in 3.5 s at 1 s").isBetween(1L, 5L);
            assertThat(xmpp.received).isEmpty();
            assertThat(c.isReady()).isTrue();
        }
    }

    @Test
    void deliver_serverStopsReading_dropNewestBoundsQueueAndCountsEveryDrop() throws Exception {
        try (FakeComponentServer xmpp = new FakeComponentServer("s");
             ComponentConnection c = connect(xmpp, "DROP_NEWEST")) {
            xmpp.paused = true;
            RenderedStanza m = big();
            Jid to = Jid.parse("a@example.test/r");
            int attempts = 3000; // 30 MB offered, far beyond socket buffers plus the 64 KiB queue
            for (int i = 0; i < attempts; i++) {
                c.deliver(m, to);
                assertThat(c.stats().queuedBytes()).isLessThanOrEqualTo(65_536 + 10_100);
            }
            ComponentStats s = c.stats();
            assertThat(s.outboundDroppedQueueFull()).isPositive();
            assertThat(s.stanzasSent() + s.outboundDroppedQueueFull()).isEqualTo(attempts);
            assertThat(c.isReady()).isTrue();
        }
    }

    @Test
    void deliver_serverStopsReading_reconnectPolicyReopensTheStream() throws Exception {
        try (FakeComponentServer xmpp = new FakeComponentServer("s");
             ComponentConnection c = connect(xmpp, "RECONNECT")) {
            xmpp.paused = true;
            RenderedStanza m = big();
            Jid to = Jid.parse("a@example.test/r");
            for (int i = 0; i < 3000 && c.stats().outboundDroppedQueueFull() == 0; i++) {
                c.deliver(m, to);
            }
            assertThat(c.stats().outboundDroppedQueueFull()).isPositive();
            xmpp.paused = false;
            xmpp.awaitHandshakes(2, WAIT);
            assertThat(c.isReady()).isTrue();
        }
    }
}
