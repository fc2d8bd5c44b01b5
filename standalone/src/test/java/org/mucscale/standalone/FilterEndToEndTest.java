package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The content filter applied once per message before the broadcast, end to end through Prosody: MASK changes what
 * every occupant (the sender's reflection included) receives; REJECT answers the sender with an error carrying the
 * configured text and nobody else sees the message.
 */
class FilterEndToEndTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String ROOM = "filtered@" + E2eFixture.MUC;

    @TempDir
    Path dir;

    private E2eFixture fixture(String action) throws Exception {
        Path list = dir.resolve("words.txt");
        Files.writeString(list, "# test list\nzorblax;severity=HIGH;force\n", StandardCharsets.UTF_8);
        return new E2eFixture(2, Map.of("mucscale.filter.default-action", action,
                "mucscale.filter.extra-lists", list.toString(),
                "mucscale.filter.reject-message", "not here, please"));
    }

    private static void join(RawXmppClient c, String nick, boolean unlock) throws Exception {
        c.write("<presence to='" + ROOM + "/" + nick + "'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
        c.expect(e -> e.name().equals("presence") && (ROOM + "/" + nick).equals(e.attribute("from")), "joined");
        if (unlock) {
            c.write("<iq type='set' to='" + ROOM + "' id='unlock'><query xmlns='http://jabber.org/protocol/muc#owner'>"
                    + "<x xmlns='jabber:x:data' type='submit'/></query></iq>");
            c.expect(e -> "unlock".equals(e.attribute("id")), "instant room");
        }
    }

    @Test
    void mask_matchingWord_everyOccupantGetsMaskedBody() throws Exception {
        try (E2eFixture fx = fixture("MASK")) {
            RawXmppClient a = fx.raw(0);
            RawXmppClient b = fx.raw(1);
            join(a, "a", true);
            join(b, "b", false);
            b.write("<message to='" + ROOM + "' type='groupchat' id='m1'><body>hello zorblax friend</body></message>");
            for (RawXmppClient c : new RawXmppClient[] {a, b}) {
                XmlElement got = c.expect(e -> e.name().equals("message") && e.childText("body") != null, "message",
                        WAIT);
                assertThat(got.attribute("type")).isEqualTo("groupchat");
                assertThat(got.childText("body")).isEqualTo("hello ******* friend");
            }
        }
    }

    @Test
    void reject_matchingWord_senderGetsErrorWithText_othersNothing() throws Exception {
        try (E2eFixture fx = fixture("REJECT")) {
            RawXmppClient a = fx.raw(0);
            RawXmppClient b = fx.raw(1);
            join(a, "a", true);
            join(b, "b", false);
            b.write("<message to='" + ROOM + "' type='groupchat' id='bad'><body>zorblax!</body></message>");
            XmlElement err = b.expect(e -> "bad".equals(e.attribute("id")), "reply to a rejected message", WAIT);
            assertThat(err.attribute("type")).isEqualTo("error");
            assertThat(err.child("error").childText("text")).isEqualTo("not here, please");
            b.write("<message to='" + ROOM + "' type='groupchat' id='ok'><body>fine words</body></message>");
            XmlElement first = a.expect(e -> e.name().equals("message") && e.childText("body") != null,
                    "the next message", WAIT);
            assertThat(first.childText("body")).as("the rejected message never reached the room").isEqualTo("fine words");
        }
    }
}
