package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Bad input on the component stream itself, from a server-side peer on a real socket (a real server never sends
 * malformed XML, so Prosody cannot produce these): the component answers with the right stream error, reconnects,
 * and the service keeps answering; bad addresses and unknown payloads get error replies, not a crash.
 */
class ComponentStreamBadInputTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String USER = "alice@example.test/r";
    private FakeComponentServer xmpp;
    private StandaloneServer server;

    @BeforeEach
    void start() throws Exception {
        xmpp = new FakeComponentServer("s");
        Map<String, String> text = new HashMap<>();
        text.put(StandaloneSettings.SERVER_PORT.key(), Integer.toString(xmpp.port()));
        text.put(StandaloneSettings.COMPONENT_DOMAIN.key(), "muc.example.test");
        text.put(StandaloneSettings.COMPONENT_SECRET.key(), "s");
        text.put("mucscale.store.jdbc-url", "jdbc:hsqldb:mem:bad" + System.nanoTime());
        text.put("mucscale.metrics.http-port", "0");
        text.put(StandaloneSettings.MAX_STANZA_BYTES.key(), "4096");
        text.put(StandaloneSettings.RECONNECT_INITIAL_DELAY.key(), "20");
        text.put(StandaloneSettings.RECONNECT_MAX_DELAY.key(), "100");
        server = StandaloneServer.start(Settings.fromText(StandaloneServer.catalog(), text));
        xmpp.awaitHandshakes(1, WAIT);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        xmpp.close();
    }

    private void assertServiceAnswers(String id) throws Exception {
        xmpp.send("<iq type='get' id='" + id + "' from='" + USER + "' to='muc.example.test'>"
                + "<query xmlns='http://jabber.org/protocol/disco#info'/></iq>");
        XmlElement reply = xmpp.expect(e -> id.equals(e.attribute("id")), "disco reply " + id, WAIT);
        assertThat(reply.attribute("type")).isEqualTo("result");
        assertThat(reply.attribute("to")).isEqualTo(USER);
    }

    private static boolean isStreamError(XmlElement e, String condition) {
        return e.name().equals("error") && XmppStreamDecoder.STREAM_NS.equals(e.namespace())
                && e.child(condition) != null;
    }

    private static String errorCondition(XmlElement stanza) {
        XmlElement error = stanza.child("error");
        if (error == null) {
            return null;
        }
        for (XmlElement c : error.elements()) {
            if ("urn:ietf:params:xml:ns:xmpp-stanzas".equals(c.namespace()) && !c.name().equals("text")) {
                return c.name();
            }
        }
        return null;
    }

    /**
     * One client's stanza nested 500 deep must not cut the link every other user's stanzas share: it is refused with
     * a policy-violation error to its sender, and the same stream goes on.
     */
    @Test
    void deeplyNestedStanza_getsPolicyViolation_andTheLinkStaysUp() throws Exception {
        xmpp.send("<message type='groupchat' id='deep' from='" + USER + "' to='r1@muc.example.test'><body>x</body>"
                + "<a>".repeat(500) + "</a>".repeat(500) + "</message>");
        XmlElement reply = xmpp.expect(e -> "deep".equals(e.attribute("id")), "the error for the deep stanza", WAIT);
        assertThat(errorCondition(reply)).isEqualTo("policy-violation");
        assertThat(reply.attribute("to")).isEqualTo(USER);
        assertServiceAnswers("after-deep");
        assertThat(xmpp.handshakes.get()).isEqualTo(1);
    }

    @Test
    void malformedXml_notWellFormedStreamError_thenReconnectsAndServes() throws Exception {
        assertServiceAnswers("before");
        xmpp.send("<message from='" + USER + "' to='r@muc.example.test'><body></message>");
        xmpp.expect(e -> isStreamError(e, "not-well-formed"), "not-well-formed stream error", WAIT);
        xmpp.awaitHandshakes(2, WAIT);
        assertServiceAnswers("after");
        assertThat(server.stats().streamErrorsSent()).isEqualTo(1);
    }

    @Test
    void oversizedStanza_policyViolationStreamError_thenReconnectsAndServes() throws Exception {
        xmpp.send("<message from='" + USER + "' to='r@muc.example.test' type='groupchat'><body>" + "x".repeat(10_000)
                + "</body></message>");
        xmpp.expect(e -> isStreamError(e, "policy-violation"), "policy-violation stream error", WAIT);
        xmpp.awaitHandshakes(2, WAIT);
        assertServiceAnswers("after");
    }

    @Test
    void invalidFromAddresses_droppedWithoutHarm_serviceKeepsAnswering() throws Exception {
        xmpp.send("<iq type='get' id='nofrom' to='muc.example.test'><query xmlns='http://jabber.org/protocol/disco#info'/></iq>");
        xmpp.send("<iq type='get' id='badfrom' from='a@b@c/\u00e9' to='muc.example.test'>"
                + "<query xmlns='http://jabber.org/protocol/disco#info'/></iq>");
        xmpp.send("<presence from='@example.test' to='r@muc.example.test/n'/>");
        assertServiceAnswers("after");
        assertThat(server.stats().handlerFailures()).isZero();
    }

    @Test
    void invalidToAddress_errorReply() throws Exception {
        xmpp.send("<iq type='get' id='badto' from='" + USER + "' to='a b@muc.example.test'>"
                + "<query xmlns='http://jabber.org/protocol/disco#info'/></iq>");
        XmlElement reply = xmpp.expect(e -> "badto".equals(e.attribute("id")), "reply to bad address", WAIT);
        assertThat(reply.attribute("type")).isEqualTo("error");
        assertThat(errorCondition(reply)).isIn("jid-malformed", "item-not-found", "bad-request");
        assertServiceAnswers("after");
    }

    @Test
    void invalidNicknames_joinRefusedWithError() throws Exception {
        String[] nicks = {" ", "\u200b", "x".repeat(2000), "a\u0085b"};
        for (int i = 0; i < nicks.length; i++) {
            xmpp.send("<presence id='nick" + i + "' from='" + USER + "' to='nicks@muc.example.test/" + nicks[i]
                    + "'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
            String id = "nick" + i;
            XmlElement reply = xmpp.expect(e -> id.equals(e.attribute("id")), "reply to nickname " + i, WAIT);
            assertThat(reply.attribute("type")).as("nickname %d", i).isEqualTo("error");
            assertThat(errorCondition(reply)).as("nickname %d", i).isIn("jid-malformed", "not-acceptable",
                    "bad-request");
        }
        assertServiceAnswers("after");
    }

    @Test
    void unknownNamespaces_errorReplies_unknownTopLevelIgnored() throws Exception {
        xmpp.send("<iq type='get' id='unk1' from='" + USER + "' to='muc.example.test'><query xmlns='urn:nobody:knows'/></iq>");
        XmlElement r1 = xmpp.expect(e -> "unk1".equals(e.attribute("id")), "unknown ns to service", WAIT);
        assertThat(r1.attribute("type")).isEqualTo("error");
        assertThat(errorCondition(r1)).isIn("service-unavailable", "feature-not-implemented");
        xmpp.send("<iq type='set' id='unk2' from='" + USER + "' to='room@muc.example.test'><x xmlns='urn:nobody:knows'/></iq>");
        XmlElement r2 = xmpp.expect(e -> "unk2".equals(e.attribute("id")), "unknown ns to room", WAIT);
        assertThat(r2.attribute("type")).isEqualTo("error");
        xmpp.send("<foo xmlns='urn:nobody:knows' from='" + USER + "' to='muc.example.test'/>");
        assertServiceAnswers("after");
    }

    @Test
    void iqFlood_everyIqAnswered_otherRoomStillChats() throws Exception {
        xmpp.send("<presence from='bob@example.test/b' to='calm@muc.example.test/bob'>"
                + "<x xmlns='http://jabber.org/protocol/muc'/></presence>");
        xmpp.expect(e -> e.name().equals("presence") && "calm@muc.example.test/bob".equals(e.attribute("from"))
                && "bob@example.test/b".equals(e.attribute("to")), "bob's self presence", WAIT);
        int flood = 5000;
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < flood; i++) {
            sb.append("<iq type='get' id='f").append(i).append("' from='").append(USER)
                    .append("' to='busy@muc.example.test'><query xmlns='http://jabber.org/protocol/disco#info'/></iq>");
            if (sb.length() > 60_000) {
                xmpp.send(sb.toString());
                sb.setLength(0);
            }
        }
        xmpp.send(sb.toString());
        xmpp.send("<message from='bob@example.test/b' to='calm@muc.example.test' type='groupchat' id='calm1'>"
                + "<body>still here</body></message>");
        int replies = 0;
        boolean chatted = false;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while ((replies < flood || !chatted) && System.nanoTime() < deadline) {
            XmlElement e = xmpp.received.poll(1, java.util.concurrent.TimeUnit.SECONDS);
            if (e == null) {
                continue;
            }
            String id = e.attribute("id");
            if (e.name().equals("iq") && id != null && id.startsWith("f") && USER.equals(e.attribute("to"))) {
                replies++;
            } else if (e.name().equals("message") && "still here".equals(e.childText("body"))) {
                chatted = true;
            }
        }
        assertThat(replies).as("replies to the flood (result or error)").isEqualTo(flood);
        assertThat(chatted).as("the other room's message was reflected").isTrue();
        assertServiceAnswers("after");
    }
}
