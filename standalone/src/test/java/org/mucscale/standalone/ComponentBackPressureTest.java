package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * A server that stops reading, on a real loopback socket: the component link pushes back on the room threads that
 * feed it (they pause above the high-water mark and go on below low water) instead of dropping stanzas, so a bounded
 * load arrives whole once the server reads again; and a paused room thread goes on at once when the link closes.
 */
class ComponentBackPressureTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String MUC = "muc.example.test";
    private static final String ROOM = "r@" + MUC;
    private static final int OCCUPANTS = 20;
    private static final int MESSAGES = 400;

    private static Map<String, String> linkSettings(FakeComponentServer xmpp) {
        Map<String, String> text = new HashMap<>();
        text.put(StandaloneSettings.SERVER_PORT.key(), Integer.toString(xmpp.port()));
        text.put(StandaloneSettings.COMPONENT_DOMAIN.key(), MUC);
        text.put(StandaloneSettings.COMPONENT_SECRET.key(), "s");
        text.put(StandaloneSettings.WRITE_QUEUE_MAX_BYTES.key(), Integer.toString(256 * 1024));
        text.put(StandaloneSettings.WRITE_QUEUE_HIGH_WATER_BYTES.key(), Integer.toString(64 * 1024));
        text.put(StandaloneSettings.WRITE_QUEUE_MAX_WAIT.key(), Long.toString(Duration.ofMinutes(10).toMillis()));
        return text;
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline).as("waited for " + what).isTrue();
            Thread.sleep(10);
        }
    }

    private static String user(int i) {
        return "u" + i + "@example.test/r";
    }

    @Test
    void serverStopsReading_roomThreadsPauseInsteadOfDropping_everyStanzaArrivesOnceItReads() throws Exception {
        try (FakeComponentServer xmpp = new FakeComponentServer("s")) {
            Map<String, String> text = linkSettings(xmpp);
            text.put("mucscale.store.enabled", "false");
            text.put("mucscale.metrics.http-port", "0");
            try (StandaloneServer server = StandaloneServer.start(Settings.fromText(StandaloneServer.catalog(),
                    text))) {
                xmpp.awaitHandshakes(1, WAIT);
                xmpp.send("<presence from='" + user(0) + "' to='" + ROOM + "/n0'>"
                        + "<x xmlns='http://jabber.org/protocol/muc'/></presence>");
                xmpp.expect(e -> "presence".equals(e.name()), "the owner's self-presence", WAIT);
                xmpp.send("<iq type='set' id='cfg' from='" + user(0) + "' to='" + ROOM + "'>"
                        + "<query xmlns='http://jabber.org/protocol/muc#owner'><x xmlns='jabber:x:data' "
                        + "type='submit'/></query></iq>");
                xmpp.expect(e -> "cfg".equals(e.attribute("id")), "the instant room", WAIT);
                for (int i = 1; i < OCCUPANTS; i++) {
                    xmpp.send("<presence from='" + user(i) + "' to='" + ROOM + "/n" + i + "'>"
                            + "<x xmlns='http://jabber.org/protocol/muc'/></presence>");
                }
                String last = user(OCCUPANTS - 1);
                xmpp.expect(e -> "presence".equals(e.name()) && last.equals(e.attribute("to"))
                        && (ROOM + "/n" + (OCCUPANTS - 1)).equals(e.attribute("from")), "the last join", WAIT);

                // the server stops reading while the room sends ~34 MB: far beyond socket buffers and the
                // 256 KiB write queue, which alone would drop most of it
                xmpp.paused = true;
                String body = "b".repeat(4000);
                for (int m = 0; m < MESSAGES; m++) {
                    xmpp.send("<message type='groupchat' from='" + user(0) + "' to='" + ROOM + "'><body>" + m + ":"
                            + body + "</body></message>");
                }
                await(() -> server.stats().backPressurePauses() > 0 || server.stats().outboundDroppedQueueFull() > 0,
                        "a room thread to pause for the link (or the link to drop)");
                assertThat(server.stats().outboundDroppedQueueFull()).as("nothing dropped while the server did not "
                        + "read").isZero();
                assertThat(server.stats().queuedBytes()).isLessThanOrEqualTo(256 * 1024);
                xmpp.paused = false;

                int expected = MESSAGES * OCCUPANTS;
                int got = 0;
                int[] next = new int[OCCUPANTS];
                while (got < expected) {
                    XmlElement e = xmpp.expect(x -> "message".equals(x.name()) && x.childText("body") != null,
                            "message " + got + " of " + expected + " (stats " + server.stats() + ")", WAIT);
                    int to = Integer.parseInt(Jid.parse(e.attribute("to")).local().substring(1));
                    String b = e.childText("body");
                    assertThat(b).as("each occupant gets every message in order").startsWith(next[to] + ":");
                    next[to]++;
                    got++;
                }
                ComponentStats s = server.stats();
                assertThat(s.outboundDroppedQueueFull()).isZero();
                assertThat(s.outboundDroppedDisconnected()).isZero();
                assertThat(s.backPressureTimeouts()).isZero();
            }
        }
    }

    @Test
    void roomThreadPausedForTheLink_serviceStops_goesOnAtOnceAndNeverPausesAgain() throws Exception {
        try (FakeComponentServer xmpp = new FakeComponentServer("s")) {
            ComponentConnection c = new ComponentConnection(ComponentConfig.from(
                    Settings.fromText(StandaloneSettings.ALL, linkSettings(xmpp))));
            c.connect(s -> { });
            xmpp.awaitHandshakes(1, WAIT);
            xmpp.paused = true;
            RenderedStanza big = RenderedStanza.render(XmlElement.builder("message").attribute("type", "groupchat")
                    .attribute("from", ROOM + "/n").textChild("body", "x".repeat(10_000)).build());
            Jid to = Jid.parse(user(1));
            Thread roomThread = new Thread(() -> {
                c.flush(); // from now on this thread batches, as a room thread does
                while (c.isReady()) {
                    for (int i = 0; i < 10; i++) {
                        c.deliver(big, to);
                    }
                    c.flush();
                }
            }, "room-thread-stand-in");
            roomThread.setDaemon(true); // a failed run must not keep the test JVM alive
            roomThread.start();
            await(() -> c.stats().backPressurePauses() > 0 && roomThread.getState() == Thread.State.TIMED_WAITING,
                    "the thread to pause for the link");
            assertThat(c.stats().outboundDroppedQueueFull()).as("it paused rather than dropped").isZero();

            // what StandaloneServer.close does before it stops the engine: the paused thread goes on (the server
            // still reads nothing, and max-wait is 10 minutes), and what no longer fits meets the queue's limit
            c.stopBackPressure();
            await(() -> c.stats().outboundDroppedQueueFull() > 0, "the thread to go on and meet the limit");
            c.close();
            roomThread.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(roomThread.isAlive()).isFalse();
        }
    }

    @Test
    void highWaterNotBelowMax_refusedWithBothKeys() {
        Map<String, String> text = new HashMap<>();
        text.put(StandaloneSettings.COMPONENT_SECRET.key(), "s");
        text.put(StandaloneSettings.WRITE_QUEUE_MAX_BYTES.key(), "1048576");
        text.put(StandaloneSettings.WRITE_QUEUE_HIGH_WATER_BYTES.key(), "1048576");
        assertThatThrownBy(() -> ComponentConfig.from(Settings.fromText(StandaloneSettings.ALL, text)))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining(StandaloneSettings.WRITE_QUEUE_HIGH_WATER_BYTES.key())
                .hasMessageContaining(StandaloneSettings.WRITE_QUEUE_MAX_BYTES.key());
        text.put(StandaloneSettings.WRITE_QUEUE_HIGH_WATER_BYTES.key(), "0");
        assertThat(ComponentConfig.from(Settings.fromText(StandaloneSettings.ALL, text)).writeQueueHighWaterBytes())
                .as("0: a quarter of the queue's limit").isEqualTo(262_144);
    }
}
