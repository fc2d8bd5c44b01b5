package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.XmlElement;

class XmppStreamDecoderTest {
    private static final String HEADER = "<?xml version='1.0'?><stream:stream xmlns:stream='http://etherx.jabber.org/streams'"
            + " xmlns='jabber:component:accept' from='muc.example.test' id='abc123'>";

    private final List<Object> events = new ArrayList<>();
    private final XmppStreamDecoder.Listener listener = new XmppStreamDecoder.Listener() {
        @Override
        public void streamOpened(Map<String, String> attributes) {
            events.add(attributes);
        }

        @Override
        public void element(XmlElement element) {
            events.add(element);
        }

        @Override
        public void streamClosed() {
            events.add("closed");
        }
    };

    private void feed(XmppStreamDecoder d, String text) throws Exception {
        d.feed(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), listener);
    }

    @Test
    void feed_oneByteAtATime_yieldsHeaderStanzasAndClose() throws Exception {
        XmppStreamDecoder d = new XmppStreamDecoder(4096);
        String all = HEADER + "<message to='r@muc.example.test' from='a@example.test/x' type='groupchat'>"
                + "<body>h\u00e9llo \uD83D\uDE00 &amp; &lt;</body><x xmlns='urn:other'><y/></x></message>  "
                + "<handshake/></stream:stream>";
        for (byte b : all.getBytes(StandardCharsets.UTF_8)) {
            d.feed(ByteBuffer.wrap(new byte[] {b}), listener);
        }
        assertThat(events).hasSize(4);
        @SuppressWarnings("unchecked")
        Map<String, String> header = (Map<String, String>) events.get(0);
        assertThat(header).containsEntry("id", "abc123").containsEntry("from", "muc.example.test");
        XmlElement message = (XmlElement) events.get(1);
        assertThat(message.namespace()).isNull();
        assertThat(message.attribute("type")).isEqualTo("groupchat");
        assertThat(message.childText("body")).isEqualTo("h\u00e9llo \uD83D\uDE00 & <");
        assertThat(message.child("x").namespace()).isEqualTo("urn:other");
        assertThat(message.child("x").child("y").namespace()).isNull();
        assertThat(message.toXml()).isEqualTo("<message to=\"r@muc.example.test\" from=\"a@example.test/x\" "
                + "type=\"groupchat\"><body>h\u00e9llo \uD83D\uDE00 &amp; &lt;</body><x xmlns=\"urn:other\"><y/></x>"
                + "</message>");
        assertThat(((XmlElement) events.get(2)).name()).isEqualTo("handshake");
        assertThat(events.get(3)).isEqualTo("closed");
        assertThat(d.isClosed()).isTrue();
    }

    @Test
    void feed_streamError_isReportedAsElementInStreamNamespace() throws Exception {
        XmppStreamDecoder d = new XmppStreamDecoder(4096);
        feed(d, HEADER + "<stream:error><not-authorized xmlns='urn:ietf:params:xml:ns:xmpp-streams'/></stream:error>");
        XmlElement error = (XmlElement) events.get(1);
        assertThat(error.name()).isEqualTo("error");
        assertThat(error.namespace()).isEqualTo(XmppStreamDecoder.STREAM_NS);
        assertThat(error.child("not-authorized").namespace()).isEqualTo("urn:ietf:params:xml:ns:xmpp-streams");
    }

    @Test
    void feed_stanzaOverLimitInOneChunk_failsWithPolicyViolation() throws Exception {
        XmppStreamDecoder d = new XmppStreamDecoder(1000);
        feed(d, HEADER);
        assertThatThrownBy(() -> feed(d, "<message><body>" + "x".repeat(2000) + "</body></message>"))
                .isInstanceOfSatisfying(XmppStreamDecoder.StreamErrorException.class,
                        e -> assertThat(e.condition()).isEqualTo("policy-violation"));
    }

    @Test
    void feed_unfinishedStanzaGrowingPastLimit_failsBeforeItEnds() throws Exception {
        XmppStreamDecoder d = new XmppStreamDecoder(1000);
        feed(d, HEADER + "<message><body>");
        for (int i = 0; i < 9; i++) {
            feed(d, "x".repeat(100));
        }
        assertThatThrownBy(() -> feed(d, "x".repeat(100)))
                .isInstanceOfSatisfying(XmppStreamDecoder.StreamErrorException.class,
                        e -> assertThat(e.condition()).isEqualTo("policy-violation"));
        assertThat(events).hasSize(1);
    }

    @Test
    void feed_hugeUnfinishedStartTag_failsWithPolicyViolation() throws Exception {
        XmppStreamDecoder d = new XmppStreamDecoder(1000);
        feed(d, HEADER + "<message a='");
        assertThatThrownBy(() -> feed(d, "y".repeat(2000)))
                .isInstanceOfSatisfying(XmppStreamDecoder.StreamErrorException.class,
                        e -> assertThat(e.condition()).isEqualTo("policy-violation"));
    }

    @Test
    void feed_manyStanzasEachUnderLimit_totalOverLimit_allAccepted() throws Exception {
        XmppStreamDecoder d = new XmppStreamDecoder(1000);
        feed(d, HEADER);
        for (int i = 0; i < 100; i++) {
            feed(d, "<message><body>" + "x".repeat(500) + "</body></message> ");
        }
        assertThat(events).hasSize(101);
    }

    @Test
    void feed_malformedXml_failsWithNotWellFormed() throws Exception {
        XmppStreamDecoder d = new XmppStreamDecoder(4096);
        feed(d, HEADER + "<message><body>ok</body></message>");
        assertThatThrownBy(() -> feed(d, "<message><body></message>"))
                .isInstanceOfSatisfying(XmppStreamDecoder.StreamErrorException.class,
                        e -> assertThat(e.condition()).isEqualTo("not-well-formed"));
        assertThat(events).hasSize(2);
    }

    @Test
    void feed_invalidUtf8_failsWithNotWellFormed() throws Exception {
        XmppStreamDecoder d = new XmppStreamDecoder(4096);
        feed(d, HEADER + "<message><body>");
        assertThatThrownBy(() -> d.feed(ByteBuffer.wrap(new byte[] {(byte) 0xC3, (byte) 0x28, '<', '/'}), listener))
                .isInstanceOfSatisfying(XmppStreamDecoder.StreamErrorException.class,
                        e -> assertThat(e.condition()).isEqualTo("not-well-formed"));
    }

    /**
     * A read can end inside any character. aalto's async parser loses a 4-byte character of an attribute value when a
     * feed ends inside it, so the decoder holds back an incomplete UTF-8 sequence until the rest arrives: cut at every
     * byte, attributes and text read back exactly (found by StanzaFuzzTest).
     */
    @Test
    void feed_cutInsideAnyCharacter_attributesAndTextReadBackExactly() throws Exception {
        String nick = "n\uD83D\uDDA9\u00e9\u4e2d\uD83D\uDE00";
        String stanza = "<presence from='u@example.test/r' to='r@muc.example.test/" + nick + "' id='\uD83C\uDF89'>"
                + "<status>\uD83D\uDDA9 \u00e9</status></presence>";
        byte[] head = HEADER.getBytes(StandardCharsets.UTF_8);
        byte[] body = stanza.getBytes(StandardCharsets.UTF_8);
        for (int cut = 1; cut < body.length; cut++) {
            events.clear();
            XmppStreamDecoder d = new XmppStreamDecoder(4096);
            d.feed(ByteBuffer.wrap(head), listener);
            d.feed(ByteBuffer.wrap(body, 0, cut), listener);
            d.feed(ByteBuffer.wrap(body, cut, body.length - cut), listener);
            XmlElement got = (XmlElement) events.get(1);
            assertThat(got.attribute("to")).as("cut at byte %d", cut).isEqualTo("r@muc.example.test/" + nick);
            assertThat(got.attribute("id")).as("cut at byte %d", cut).isEqualTo("\uD83C\uDF89");
            assertThat(got.childText("status")).as("cut at byte %d", cut).isEqualTo("\uD83D\uDDA9 \u00e9");
        }
    }

    /**
     * A stanza nested 20,000 levels deep (a hostile client's, relayed by the server) is built down to one level below
     * the limit, so the engine refuses it and answers its sender; the link stays up and the next stanza arrives.
     */
    @Test
    void feed_deepNesting_buildsOneLevelPastTheLimit_skipsTheRest_andTheStreamGoesOn() throws Exception {
        int levels = 20_000;
        XmppStreamDecoder d = new XmppStreamDecoder(1_000_000);
        feed(d, HEADER);
        feed(d, "<message from='evil@example.test/x' to='r@muc.example.test' id='deep1'>"
                + "<a>".repeat(levels) + "text deep down" + "</a>".repeat(levels) + "<body>after</body></message>");
        feed(d, "<message from='ok@example.test/x' to='r@muc.example.test' id='next'><body>hi</body></message>");
        assertThat(events).hasSize(3);
        XmlElement deep = (XmlElement) events.get(1);
        assertThat(deep.attribute("id")).isEqualTo("deep1");
        assertThat(deep.attribute("from")).isEqualTo("evil@example.test/x");
        assertThat(deep.depth()).isEqualTo(XmlElement.MAX_DEPTH + 1);
        assertThat(deep.childText("body")).isEqualTo("after");
        assertThat(deep.toXml()).doesNotContain("text deep down");
        assertThat(((XmlElement) events.get(2)).attribute("id")).isEqualTo("next");
        assertThat(d.isClosed()).isFalse();
    }

    @Test
    void feed_comment_failsWithRestrictedXml() throws Exception {
        XmppStreamDecoder d = new XmppStreamDecoder(4096);
        feed(d, HEADER);
        assertThatThrownBy(() -> feed(d, "<message><!-- hi --></message>"))
                .isInstanceOfSatisfying(XmppStreamDecoder.StreamErrorException.class,
                        e -> assertThat(e.condition()).isEqualTo("restricted-xml"));
    }

    @Test
    void feed_doctype_failsBeforeAnyEntityExpansion() throws Exception {
        XmppStreamDecoder d = new XmppStreamDecoder(4096);
        assertThatThrownBy(() -> feed(d, "<?xml version='1.0'?><!DOCTYPE lol [<!ENTITY a 'aaaa'>]>"
                + "<stream:stream xmlns:stream='http://etherx.jabber.org/streams'>"))
                .isInstanceOf(XmppStreamDecoder.StreamErrorException.class);
    }

    @Test
    void feed_wrongRootElement_failsWithInvalidNamespace() throws Exception {
        XmppStreamDecoder d = new XmppStreamDecoder(4096);
        assertThatThrownBy(() -> feed(d, "<html>"))
                .isInstanceOfSatisfying(XmppStreamDecoder.StreamErrorException.class,
                        e -> assertThat(e.condition()).isEqualTo("invalid-namespace"));
    }

    @Test
    void feed_prefixedAttribute_keepsItsDeclarationSoItCanBeWrittenAgain() throws Exception {
        XmppStreamDecoder d = new XmppStreamDecoder(4096);
        feed(d, HEADER + "<message xml:lang='en'><x xmlns='urn:a' xmlns:p='urn:p' p:q='1'/></message>");
        XmlElement m = (XmlElement) events.get(1);
        assertThat(m.attribute("xml:lang")).isEqualTo("en");
        assertThat(m.child("x").attribute("p:q")).isEqualTo("1");
        assertThat(m.child("x").attribute("xmlns:p")).isEqualTo("urn:p");
    }
}
