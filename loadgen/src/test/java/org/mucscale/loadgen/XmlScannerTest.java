package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class XmlScannerTest {

    private static final class Recording implements XmlScanner.Sink {
        final List<String> events = new ArrayList<>();
        XmlScanner scanner;
        String resetAfter;

        @Override
        public void streamOpened(byte[] buf, int start, int end) {
            events.add("open " + Bytes.text(buf, start, end));
        }

        @Override
        public void stanza(byte[] buf, int start, int end, int nameStart, int nameEnd, int startTagEnd) {
            String name = Bytes.text(buf, nameStart, nameEnd);
            events.add(name + " " + Bytes.text(buf, start, end) + " | " + Bytes.text(buf, start, startTagEnd));
            if (name.equals(resetAfter)) {
                scanner.reset();
            }
        }

        @Override
        public void streamClosed() {
            events.add("closed");
        }
    }

    private static void feedInPieces(XmlScanner s, String text, int piece) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < b.length; i += piece) {
            s.feed(b, i, Math.min(piece, b.length - i));
        }
    }

    private static final String STREAM = "<?xml version='1.0'?><stream:stream xmlns='jabber:client' "
            + "xmlns:stream='http://etherx.jabber.org/streams' id='x' version='1.0'>";

    @Test
    void feed_stanzasSplitAcrossReads_emitsEachWholeStanzaOnce() {
        String body = STREAM
                + "<stream:features><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>PLAIN</mechanism></mechanisms></stream:features>"
                + "<message from='r@c/a' type='groupchat'><body>~lg~1.2.3~ a &gt; b</body></message>"
                + "<presence from='r@c/b'/>"
                + "<iq id='q' title='a>b' type='result'><!-- c > d --><x><![CDATA[<not a tag>]]></x></iq>";
        for (int piece : new int[] {1, 3, 7, 64, 4096}) {
            Recording r = new Recording();
            XmlScanner s = new XmlScanner(r, 16);
            feedInPieces(s, body, piece);
            assertThat(r.events).as("piece size " + piece).hasSize(5);
            assertThat(r.events.get(0)).startsWith("open <stream:stream");
            assertThat(r.events.get(1)).startsWith("stream:features <stream:features>");
            assertThat(r.events.get(2)).isEqualTo("message <message from='r@c/a' type='groupchat'><body>~lg~1.2.3~ a &gt; b</body></message>"
                    + " | <message from='r@c/a' type='groupchat'>");
            assertThat(r.events.get(3)).isEqualTo("presence <presence from='r@c/b'/> | <presence from='r@c/b'/>");
            assertThat(r.events.get(4)).startsWith("iq <iq id='q' title='a>b' type='result'>").endsWith("</iq> | <iq id='q' title='a>b' type='result'>");
        }
    }

    @Test
    void reset_afterSaslSuccess_nextStreamHeaderAndFeaturesAreSeen() {
        Recording r = new Recording();
        XmlScanner s = new XmlScanner(r, 16);
        r.scanner = s;
        r.resetAfter = "success";
        feedInPieces(s, STREAM + "<success xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>dj0=</success>", 4096);
        feedInPieces(s, STREAM + "<stream:features><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></stream:features>", 4096);
        assertThat(r.events).hasSize(4);
        assertThat(r.events.get(2)).startsWith("open ");
        assertThat(r.events.get(3)).startsWith("stream:features ");
    }

    @Test
    void feed_streamEnd_reportsClosed() {
        Recording r = new Recording();
        XmlScanner s = new XmlScanner(r, 16);
        feedInPieces(s, STREAM + "<presence/></stream:stream>", 5);
        assertThat(r.events).last().isEqualTo("closed");
    }

    @Test
    void feed_stanzaBeyondLimit_failsInsteadOfGrowingForever() {
        Recording r = new Recording();
        XmlScanner s = new XmlScanner(r, 16);
        s.feed(STREAM.getBytes(StandardCharsets.UTF_8), 0, STREAM.length());
        byte[] chunk = new byte[64 * 1024];
        java.util.Arrays.fill(chunk, (byte) 'x');
        s.feed("<message><body>".getBytes(StandardCharsets.UTF_8), 0, 15);
        assertThatThrownBy(() -> {
            for (int i = 0; i < 40; i++) {
                s.feed(chunk, 0, chunk.length);
            }
        }).isInstanceOf(IllegalStateException.class).hasMessageContaining("stanza larger than");
    }
}
