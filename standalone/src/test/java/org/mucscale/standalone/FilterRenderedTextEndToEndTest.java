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
 * Issue 40's escapes end to end, through a real Prosody to the standalone service with an operator list in the stock
 * content-filter plugin's comma format: a word reversed under a right-to-left override, upside down, as a compound of
 * a plain entry, in a XEP-0172 nick, in a thread, unbalanced bidi controls, and a room address. Each was delivered
 * (or the room created) before.
 */
class FilterRenderedTextEndToEndTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String ROOM = "lobby@" + E2eFixture.MUC;

    @TempDir
    Path dir;

    private static void join(RawXmppClient c, String nick, boolean unlock) throws Exception {
        c.write("<presence to='" + ROOM + "/" + nick + "'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
        c.expect(e -> e.name().equals("presence") && (ROOM + "/" + nick).equals(e.attribute("from")), "joined");
        if (unlock) {
            c.write("<iq type='set' to='" + ROOM + "' id='unlock'><query xmlns='http://jabber.org/protocol/muc#owner'>"
                    + "<x xmlns='jabber:x:data' type='submit'/></query></iq>");
            c.expect(e -> "unlock".equals(e.attribute("id")), "instant room");
        }
    }

    /** Sends a groupchat message from b; returns what a receives. */
    private static XmlElement relayed(RawXmppClient from, RawXmppClient to, String id, String children)
            throws Exception {
        from.write("<message to='" + ROOM + "' type='groupchat' id='" + id + "'>" + children + "</message>");
        return to.expect(e -> e.name().equals("message") && id.equals(e.attribute("id")), "message " + id, WAIT);
    }

    @Test
    void everyEscape_maskedOrRefused_asShownToOccupants() throws Exception {
        Path list = dir.resolve("contentfilter.txt");
        Files.writeString(list, "zorblax,glorp\n", StandardCharsets.UTF_8);
        try (E2eFixture fx = new E2eFixture(2, Map.of("mucscale.filter.default-action", "MASK",
                "mucscale.filter.extra-lists", list.toString()))) {
            RawXmppClient a = fx.raw(0);
            RawXmppClient b = fx.raw(1);
            join(a, "a", true);
            join(b, "b", false);

            XmlElement bidi = relayed(b, a, "bidi", "<body>hi \u202Exalbroz\u202C there</body>");
            assertThat(bidi.childText("body")).isEqualTo("hi \u202E*******\u202C there");

            XmlElement upsideDown = relayed(b, a, "turned", "<body>xɐlqɹoz</body>");
            assertThat(upsideDown.childText("body")).isEqualTo("*******");

            XmlElement compound = relayed(b, a, "compound", "<body>zorblaxface and glorps</body>");
            assertThat(compound.childText("body")).isEqualTo("*********** and ******");

            XmlElement thread = relayed(b, a, "thread", "<body>hello</body><thread>zorblax talk</thread>"
                    + "<nick xmlns='http://jabber.org/protocol/nick'>glorp b</nick>");
            assertThat(thread.childText("thread")).isEqualTo("******* talk");
            assertThat(thread.child("nick", "http://jabber.org/protocol/nick").text()).isEqualTo("***** b");

            b.write("<message to='" + ROOM + "' type='groupchat' id='open'><body>\u202Eopen ended</body></message>");
            XmlElement refused = b.expect(e -> "open".equals(e.attribute("id")), "refusal of open bidi", WAIT);
            assertThat(refused.attribute("type")).isEqualTo("error");
            assertThat(refused.child("error").childText("text")).contains("does not close");

            String badRoom = "zorblax-r-1@" + E2eFixture.MUC;
            a.write("<presence to='" + badRoom + "/a'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
            XmlElement noRoom = a.expect(e -> e.name().equals("presence") && (badRoom + "/a").equals(e.attribute("from")),
                    "answer to creating " + badRoom, WAIT);
            assertThat(noRoom.attribute("type")).isEqualTo("error");
            assertThat(noRoom.child("error").child("not-acceptable")).isNotNull();
            assertThat(noRoom.child("error").childText("text")).isEqualTo("the room address 'zorblax-r-1' contains"
                    + " words that are not allowed on this service; choose another address");

            XmlElement last = relayed(b, a, "after", "<body>fine words</body>");
            assertThat(last.childText("body")).as("the refused message never reached the room").isEqualTo("fine words");
        }
    }
}
