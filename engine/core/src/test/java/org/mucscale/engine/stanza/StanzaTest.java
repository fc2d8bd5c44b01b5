package org.mucscale.engine.stanza;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StanzaTest {

    @Test
    void escapeAttribute_escapesMarkupCharacters_andReturnsCleanStringsUncopied() {
        assertThat(Xml.escapeAttribute("a&b<c>d\"e'f")).isEqualTo("a&amp;b&lt;c&gt;d&quot;e&apos;f");
        String clean = "user@example.org/phone";
        assertThat(Xml.escapeAttribute(clean)).isSameAs(clean);
        assertThat(Xml.escapeAttribute(new StringBuilder(clean))).isEqualTo(clean);
    }

    @Test
    void jid_parsesParts_andLowerCasesDomain() {
        Jid j = Jid.parse("room@Conference.Example.org/Nick Name");
        assertThat(j.local()).isEqualTo("room");
        assertThat(j.domain()).isEqualTo("conference.example.org");
        assertThat(j.resource()).isEqualTo("Nick Name");
        assertThat(j.bare().toString()).isEqualTo("room@conference.example.org");
    }

    @Test
    void jid_invalid_saysWhy() {
        assertThatThrownBy(() -> Jid.parse("a b@x")).hasMessageContaining("local part must not contain ' '");
        assertThatThrownBy(() -> Jid.parse("@x")).hasMessageContaining("local part must not be empty");
        assertThatThrownBy(() -> Jid.parse("a@")).hasMessageContaining("domain must not be empty");
        assertThatThrownBy(() -> Jid.parse("a@x/")).hasMessageContaining("resource must not be empty");
        assertThatThrownBy(() -> Jid.parse("a\uD800@x")).hasMessageContaining("lone surrogate");
        assertThat(Jid.tryParse("")).isNull();
    }

    @Test
    void element_roundTripsToEscapedXml() {
        XmlElement m = XmlElement.builder("message")
                .attribute("from", "r@muc/a\"b").attribute("type", "groupchat")
                .textChild("body", "1 < 2 & <script>")
                .child(XmlElement.builder("stanza-id", "urn:xmpp:sid:0").attribute("id", "x").build())
                .build();
        assertThat(m.toXml()).isEqualTo("<message from=\"r@muc/a&quot;b\" type=\"groupchat\"><body>1 &lt; 2 &amp; "
                + "&lt;script&gt;</body><stanza-id xmlns=\"urn:xmpp:sid:0\" id=\"x\"/></message>");
        assertThat(m.childText("body")).isEqualTo("1 < 2 & <script>");
        assertThat(m.child("stanza-id", "urn:xmpp:sid:0").attribute("id")).isEqualTo("x");
    }

    @Test
    void rendered_splicesRecipient_andIgnoresOriginalTo() {
        XmlElement m = XmlElement.builder("message").attribute("to", "old@x").attribute("from", "r@muc/n")
                .attribute("type", "groupchat").textChild("body", "hi").build();
        RenderedStanza r = RenderedStanza.render(m);
        assertThat(r.forRecipient(Jid.parse("u@x/res&1")))
                .isEqualTo("<message to=\"u@x/res&amp;1\" from=\"r@muc/n\" type=\"groupchat\"><body>hi</body></message>");
        assertThat(new String(r.prefixUtf8(), java.nio.charset.StandardCharsets.UTF_8) + "u@x"
                + new String(r.suffixUtf8(), java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo(m.withAttribute("to", "u@x").toXml());
    }
}
