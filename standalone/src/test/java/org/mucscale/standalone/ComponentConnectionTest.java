package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;
import org.mucscale.testkit.FreePort;
import org.mucscale.testkit.ProsodyServer;

/** The XEP-0114 connection against a real Prosody: handshake, both directions, and the startup errors. */
class ComponentConnectionTest {
    private static ProsodyServer prosody;

    @BeforeAll
    static void startProsody() {
        prosody = ProsodyServer.builder().domain("example.test").externalComponent("muc", "s3cret")
                .externalComponent("other", "x").user("alice", "pw").start();
    }

    @AfterAll
    static void stopProsody() {
        prosody.close();
    }

    static Settings settings(int port, String domain, String secret) {
        return settings(port, domain, secret, 50, 200);
    }

    static Settings settings(int port, String domain, String secret, long reconnectInitialMs, long reconnectMaxMs) {
        Map<String, String> text = new HashMap<>();
        text.put(StandaloneSettings.SERVER_PORT.key(), Integer.toString(port));
        text.put(StandaloneSettings.COMPONENT_DOMAIN.key(), domain);
        text.put(StandaloneSettings.COMPONENT_SECRET.key(), secret);
        text.put(StandaloneSettings.CONNECT_TIMEOUT.key(), "2000");
        text.put(StandaloneSettings.HANDSHAKE_TIMEOUT.key(), "2000");
        text.put(StandaloneSettings.RECONNECT_INITIAL_DELAY.key(), Long.toString(reconnectInitialMs));
        text.put(StandaloneSettings.RECONNECT_MAX_DELAY.key(), Long.toString(reconnectMaxMs));
        return Settings.fromText(StandaloneSettings.ALL, text);
    }

    @Test
    void connect_rightSecret_stanzasFlowBothWays() throws Exception {
        BlockingQueue<XmlElement> received = new LinkedBlockingQueue<>();
        try (ComponentConnection c = new ComponentConnection(ComponentConfig.from(
                settings(prosody.componentPort(), "muc.example.test", "s3cret")));
             RawXmppClient alice = RawXmppClient.login(prosody.c2sPort(), "example.test", "alice", "pw", "r1")) {
            c.connect(received::add);
            assertThat(c.isReady()).isTrue();

            alice.write("<message to='room@muc.example.test' type='groupchat' id='m1'><body>hi &amp; bye</body>"
                    + "</message>");
            XmlElement in = received.poll(10, TimeUnit.SECONDS);
            assertThat(in).isNotNull();
            assertThat(in.attribute("from")).isEqualTo("alice@example.test/r1");
            assertThat(in.childText("body")).isEqualTo("hi & bye");

            XmlElement reply = XmlElement.builder("message").attribute("from", "room@muc.example.test/alice")
                    .attribute("type", "groupchat").attribute("id", "m1").textChild("body", "hi & <bye> \u00e9\u2603")
                    .build();
            c.deliver(RenderedStanza.render(reply), Jid.parse(alice.jid()));
            XmlElement out = alice.expect(e -> e.name().equals("message"), "reflected message");
            assertThat(out.attribute("to")).isEqualTo("alice@example.test/r1");
            assertThat(out.attribute("from")).isEqualTo("room@muc.example.test/alice");
            assertThat(out.childText("body")).isEqualTo("hi & <bye> \u00e9\u2603");

            c.send(XmlElement.builder("message").attribute("to", alice.jid()).attribute("from", "muc.example.test")
                    .textChild("body", "direct").build());
            assertThat(alice.expect(e -> e.name().equals("message"), "direct").childText("body")).isEqualTo("direct");
            assertThat(c.stats().stanzasSent()).isEqualTo(2);
            assertThat(c.stats().stanzasReceived()).isEqualTo(1);
        }
    }

    @Test
    void serverRestart_componentReconnectsWithBackoff_andStanzasFlowAgain() throws Exception {
        BlockingQueue<XmlElement> received = new LinkedBlockingQueue<>();
        try (ProsodyServer own = ProsodyServer.builder().domain("example.test").externalComponent("muc", "k")
                .user("bob", "pw").start();
             ComponentConnection c = new ComponentConnection(ComponentConfig.from(
                     settings(own.componentPort(), "muc.example.test", "k")))) {
            c.connect(received::add);
            own.restart();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (c.stats().handshakes() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(c.stats().handshakes()).isEqualTo(2);
            assertThat(c.isReady()).isTrue();
            try (RawXmppClient bob = RawXmppClient.login(own.c2sPort(), "example.test", "bob", "pw", "b")) {
                bob.write("<message to='x@muc.example.test' type='groupchat'><body>after restart</body></message>");
                XmlElement in = received.poll(10, TimeUnit.SECONDS);
                assertThat(in).isNotNull();
                assertThat(in.childText("body")).isEqualTo("after restart");
            }
        }
    }

    @Test
    void connect_wrongSecret_failsNamingTheDomain() {
        ComponentConnection c = new ComponentConnection(ComponentConfig.from(
                settings(prosody.componentPort(), "muc.example.test", "wrong")));
        assertThatThrownBy(() -> c.connect(s -> { }))
                .isInstanceOf(ComponentException.class)
                .hasMessage("the server refused the component secret for muc.example.test");
    }

    @Test
    void connect_nothingListening_failsWithCannotConnect() {
        int port = FreePort.next();
        ComponentConnection c = new ComponentConnection(ComponentConfig.from(
                settings(port, "muc.example.test", "s3cret")));
        assertThatThrownBy(() -> c.connect(s -> { }))
                .isInstanceOf(ComponentException.class)
                .hasMessageStartingWith("cannot connect to 127.0.0.1:" + port + ": ")
                .hasMessageContaining("refused");
    }

    @Test
    void connect_domainTheServerDoesNotKnow_failsNamingTheDomain() {
        ComponentConnection c = new ComponentConnection(ComponentConfig.from(
                settings(prosody.componentPort(), "nosuch.example.test", "s3cret")));
        assertThatThrownBy(() -> c.connect(s -> { }))
                .isInstanceOf(ComponentException.class)
                .hasMessageContaining("nosuch.example.test");
    }

    /**
     * A cluster node behind Prosody (one link per component address) stands by while another node holds the link,
     * and must not back off: with the shipped maximum of 30 s its attempts would thin out to one every 30 s, and a
     * holder that died then would leave its rooms without a link for that long. With back-off from 200 ms the
     * standby's first 5 s see 5 refusals (attempts at 0, 0.2, 0.6, 1.4 and 3.0 s, the next at 6.2 s); standing by,
     * one every 200 ms (±20 %).
     */
    @Test
    void connectInBackground_whileAnotherNodeHoldsTheLink_retriesWithoutBackOff_andTakesTheLinkOver() throws Exception {
        Settings s = settings(prosody.componentPort(), "other.example.test", "x", 200, 30_000);
        try (ComponentConnection holder = new ComponentConnection(ComponentConfig.from(s));
             ComponentConnection standby = new ComponentConnection(ComponentConfig.from(s))) {
            holder.connect(x -> { });
            standby.connectInBackground(x -> { });
            // 12 refusals within 5 s, which back-off (5 in 5 s) cannot reach: waited for, not slept for
            long standingBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (standby.stats().streamErrorsReceived() < 12 && System.nanoTime() < standingBy) {
                Thread.sleep(10);
            }
            assertThat(standby.isReady()).isFalse();
            assertThat(standby.stats().streamErrorsReceived()).as("conflicts while standing by").isGreaterThanOrEqualTo(12);
            assertThat(holder.isReady()).isTrue();

            holder.close();
            long closedAt = System.nanoTime();
            long deadline = closedAt + TimeUnit.SECONDS.toNanos(10);
            while (!standby.isReady() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(standby.isReady()).as("standby took the link over").isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - closedAt)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void connect_sameDomainTwice_secondFailsWithConflict() throws Exception {
        try (ComponentConnection first = new ComponentConnection(ComponentConfig.from(
                settings(prosody.componentPort(), "other.example.test", "x")))) {
            first.connect(s -> { });
            ComponentConnection second = new ComponentConnection(ComponentConfig.from(
                    settings(prosody.componentPort(), "other.example.test", "x")));
            assertThatThrownBy(() -> second.connect(s -> { }))
                    .isInstanceOf(ComponentException.class)
                    .hasMessageContaining("other.example.test");
            assertThat(first.isReady()).isTrue();
        }
    }

    @Test
    void from_emptySecret_namesTheKey() {
        assertThatThrownBy(() -> ComponentConfig.from(settings(5275, "muc.example.test", "")))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("mucscale.standalone.component-secret must be set");
    }

    @Test
    void fromText_badPortAndDomain_namesKeyValueAndRule() {
        Map<String, String> text = new HashMap<>();
        text.put("mucscale.standalone.server-port", "70000");
        text.put("mucscale.standalone.component-domain", "user@host");
        assertThatThrownBy(() -> Settings.fromText(StandaloneSettings.ALL, text))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("mucscale.standalone.server-port must be a whole number between 1 and 65535, "
                        + "was 70000")
                .hasMessageContaining("mucscale.standalone.component-domain must be a domain name")
                .hasMessageContaining("was 'user@host'");
    }

    @Test
    void deliver_whileDisconnected_isCountedNotSilent() {
        ComponentConnection c = new ComponentConnection(ComponentConfig.from(
                settings(FreePort.next(), "muc.example.test", "s3cret")));
        c.deliver(RenderedStanza.render(XmlElement.builder("message").textChild("body", "x").build()),
                Jid.parse("a@example.test/r"));
        assertThat(c.stats().outboundDroppedDisconnected()).isEqualTo(1);
        c.close();
    }

    static Duration seconds(long s) {
        return Duration.ofSeconds(s);
    }
}
