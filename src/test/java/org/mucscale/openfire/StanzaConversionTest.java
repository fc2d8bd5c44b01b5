package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;

import org.dom4j.DocumentHelper;
import org.dom4j.Element;
import org.mucscale.engine.stanza.XmlElement;
import org.junit.jupiter.api.Test;

/** Conversion at the adapter's edge, on real dom4j elements as Openfire's stream parser produces them. */
class StanzaConversionTest {

    static Element parse(String xml) throws Exception {
        return DocumentHelper.parseText(xml).getRootElement();
    }

    @Test
    void fromElement_clientStanza_streamNamespaceAndInheritedChildNamespacesBecomeNull() throws Exception {
        Element e = parse("<message xmlns='jabber:client' to='room@muc.example.org' from='a@example.org/r' "
                + "type='groupchat' id='m1' xml:lang='en'><body>hi &amp; &lt;bye&gt;</body>"
                + "<x xmlns='http://jabber.org/protocol/muc#user'><item role='moderator'/></x></message>");

        XmlElement x = StanzaConversion.fromElement(e);

        assertThat(x.name()).isEqualTo("message");
        assertThat(x.namespace()).isNull();
        assertThat(x.attribute("to")).isEqualTo("room@muc.example.org");
        assertThat(x.attribute("type")).isEqualTo("groupchat");
        assertThat(x.attribute("xml:lang")).isEqualTo("en");
        assertThat(x.child("body").namespace()).isNull();
        assertThat(x.childText("body")).isEqualTo("hi & <bye>");
        XmlElement ext = x.child("x");
        assertThat(ext.namespace()).isEqualTo("http://jabber.org/protocol/muc#user");
        assertThat(ext.child("item").namespace()).isNull();
        assertThat(ext.child("item").attribute("role")).isEqualTo("moderator");
    }

    @Test
    void toElement_thenFromElement_roundTripsStructureTextAndNamespaces() throws Exception {
        XmlElement original = XmlElement.builder("presence")
                .attribute("to", "u@example.org/res").attribute("from", "room@mucscale.example.org/nick")
                .child(XmlElement.builder("x", "http://jabber.org/protocol/muc#user")
                        .child(XmlElement.builder("item").attribute("affiliation", "none").attribute("role", "participant").build())
                        .child(XmlElement.builder("status").attribute("code", "110").build())
                        .build())
                .child(XmlElement.builder("status").text("away <now>").build())
                .build();

        Element dom = StanzaConversion.toElement(original);
        XmlElement back = StanzaConversion.fromElement(parse(dom.asXML()));

        assertThat(back.toXml()).isEqualTo(original.toXml());
        assertThat(dom.element("x").getNamespaceURI()).isEqualTo("http://jabber.org/protocol/muc#user");
        assertThat(dom.element("x").element("item").getNamespaceURI()).isEqualTo("http://jabber.org/protocol/muc#user");
    }

    @Test
    void toElement_xmlLangAttribute_isWrittenInTheXmlNamespace() {
        XmlElement m = XmlElement.builder("message").attribute("xml:lang", "de").textChild("body", "x").build();

        Element dom = StanzaConversion.toElement(m);

        assertThat(dom.asXML()).contains("xml:lang=\"de\"");
    }

    /**
     * A client's stanza nested 200,000 levels deep (dom4j holds it fine, built without recursion) converts without
     * overflowing the calling Openfire thread's stack: one level past the engine's limit, the rest skipped, so the
     * engine refuses it with an error to the sender.
     */
    @Test
    void fromElement_hugelyNestedStanza_isCutOneLevelPastTheLimit_withoutDeepRecursion() {
        Element message = DocumentHelper.createElement("message");
        message.addAttribute("from", "evil@example.org/x").addAttribute("to", "r@mucscale.example.org")
                .addAttribute("id", "deep").addAttribute("type", "groupchat");
        message.addElement("body").setText("hi");
        Element e = message.addElement("a", "urn:test:deep");
        for (int i = 0; i < 200_000; i++) {
            e = e.addElement("a", "urn:test:deep");
        }
        e.setText("bottom");
        XmlElement converted = StanzaConversion.fromElement(message);
        assertThat(converted.depth()).isEqualTo(XmlElement.MAX_DEPTH + 1);
        assertThat(converted.attribute("id")).isEqualTo("deep");
        assertThat(converted.childText("body")).isEqualTo("hi");
        assertThat(converted.toXml()).doesNotContain("bottom");
    }

    @Test
    void isStreamNamespace_knowsTheThreeStreamNamespaces() {
        assertThat(StanzaConversion.isStreamNamespace("jabber:client")).isTrue();
        assertThat(StanzaConversion.isStreamNamespace("jabber:server")).isTrue();
        assertThat(StanzaConversion.isStreamNamespace("jabber:component:accept")).isTrue();
        assertThat(StanzaConversion.isStreamNamespace("urn:xmpp:sid:0")).isFalse();
    }
}
