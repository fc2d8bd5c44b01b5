package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The parts of {@link WebSocketFraming} a real server does not check one by one (the Prosody test runs the whole). */
class WebSocketFramingTest {

    @Test
    void stanzaNamespaceAt_stanzasWithoutXmlns_getJabberClientAfterTheirName() {
        assertThat(at("<message to='r@muc' type='groupchat'><body>x</body></message>")).isEqualTo(8);
        assertThat(at("<presence to='r@muc/n'/>")).isEqualTo(9);
        assertThat(at("<presence/>")).isEqualTo(9);
        assertThat(at("<iq type='set' id='bind'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></iq>")).isEqualTo(3);
    }

    @Test
    void stanzaNamespaceAt_nonzasOrStanzasWithXmlns_leftAsTheyAre() {
        assertThat(at("<iq xmlns='jabber:client' type='get' id='1'/>")).isEqualTo(-1);
        assertThat(at("<inactive xmlns='urn:xmpp:csi:0'/>")).isEqualTo(-1);
        assertThat(at("<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>AA==</auth>")).isEqualTo(-1);
        assertThat(at("<a xmlns='urn:xmpp:sm:3' h='5'/>")).isEqualTo(-1);
        // an xmlns inside the stanza's children does not count: only its own start tag
        assertThat(at("<iq type='result' id='x'><ping xmlns='urn:xmpp:ping'/></iq>")).isEqualTo(3);
        // a '>' inside an attribute value does not end the start tag early
        assertThat(at("<message to='a>b' xmlns='jabber:client'/>")).isEqualTo(-1);
    }

    @Test
    void expectedAccept_rfc6455Example() {
        // RFC 6455 section 1.3
        assertThat(WebSocketFraming.expectedAccept("dGhlIHNhbXBsZSBub25jZQ==")).isEqualTo("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    }

    private static int at(String xml) {
        byte[] b = Bytes.ascii(xml);
        return WebSocketFraming.stanzaNamespaceAt(b, 0, b.length);
    }
}
