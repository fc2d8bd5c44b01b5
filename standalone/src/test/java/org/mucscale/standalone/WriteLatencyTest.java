package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;

/**
 * The in-server latency figures say what they measure: {@code mucscale.muc.handoff.latency.ns} when a message's copies
 * were handed to the component link (before its batched write), and {@code mucscale.muc.write.latency.ns} when MINA
 * reports the write holding them done, on a real socket to a server that reads them.
 */
class WriteLatencyTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String DOMAIN = "muc.example.test";

    @Test
    void groupchatMessages_areTimedAtHandOff_andAgainWhenTheirBytesAreWritten() throws Exception {
        try (FakeComponentServer xmpp = new FakeComponentServer("s")) {
            Map<String, String> text = new HashMap<>();
            text.put(StandaloneSettings.SERVER_PORT.key(), Integer.toString(xmpp.port()));
            text.put(StandaloneSettings.COMPONENT_DOMAIN.key(), DOMAIN);
            text.put(StandaloneSettings.COMPONENT_SECRET.key(), "s");
            text.put("mucscale.store.enabled", "false");
            text.put("mucscale.metrics.http-port", "0");
            try (StandaloneServer server = StandaloneServer.start(Settings.fromText(StandaloneServer.catalog(), text))) {
                xmpp.awaitHandshakes(1, WAIT);
                for (String user : new String[] {"a", "b", "c"}) {
                    xmpp.send("<presence from='" + user + "@example.test/r' to='room@" + DOMAIN + "/" + user
                            + "'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
                    xmpp.expect(e -> e.name().equals("presence") && (user + "@example.test/r").equals(e.attribute("to"))
                            && e.toXml().contains("code=\"110\""), user + "'s self-presence", WAIT);
                    if (user.equals("a")) {
                        xmpp.send("<iq type='set' id='cfg' from='a@example.test/r' to='room@" + DOMAIN + "'><query"
                                + " xmlns='http://jabber.org/protocol/muc#owner'><x xmlns='jabber:x:data'"
                                + " type='submit'/></query></iq>");
                        xmpp.expect(e -> "cfg".equals(e.attribute("id")), "room configured", WAIT);
                    }
                }
                MetricRegistry registry = server.engine().metrics().registry();
                Histogram handoff = registry.histogram("mucscale.muc.handoff.latency.ns");
                Histogram write = registry.histogram("mucscale.muc.write.latency.ns");
                long handoffBefore = handoff.getCount();
                int messages = 20;
                for (int i = 0; i < messages; i++) {
                    String id = "m" + i;
                    xmpp.send("<message type='groupchat' id='" + id + "' from='b@example.test/r' to='room@" + DOMAIN
                            + "'><body>hello " + i + "</body></message>");
                    for (String user : new String[] {"a", "b", "c"}) {
                        xmpp.expect(e -> id.equals(e.attribute("id")) && (user + "@example.test/r")
                                .equals(e.attribute("to")), "message " + i + " to " + user, WAIT);
                    }
                }
                assertThat(handoff.getCount() - handoffBefore).isEqualTo(messages);
                // every message's bytes reached the server, so each had at least one write reported done (the
                // listener runs on MINA's I/O thread just after the server could read them: wait for it)
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (write.getCount() < messages && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(write.getCount()).isGreaterThanOrEqualTo(messages);
                assertThat(write.getSnapshot().getMax()).isPositive();
            }
        }
    }
}
