package org.mucscale.engine.cluster;

import java.util.List;

import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Structural comparison of {@link XmlElement} trees for the codec tests. {@code XmlElement.equals} compares
 * serializations, which cannot tell a null namespace from one equal to the parent's, nor "a" + "b" text children from
 * one "ab"; the codec must keep both apart.
 */
final class Trees {
    private Trees() {
    }

    static void assertSameTree(XmlElement actual, XmlElement expected) {
        assertSameTree(actual, expected, "/");
    }

    private static void assertSameTree(XmlElement actual, XmlElement expected, String path) {
        if (expected == null) {
            assertThat(actual).as(path).isNull();
            return;
        }
        assertThat(actual).as(path).isNotNull();
        String here = path + expected.name();
        assertThat(actual.name()).as(here + " name").isEqualTo(expected.name());
        assertThat(actual.namespace()).as(here + " namespace").isEqualTo(expected.namespace());
        assertThat(actual.attributeCount()).as(here + " attribute count").isEqualTo(expected.attributeCount());
        for (int i = 0; i < expected.attributeCount(); i++) {
            assertThat(actual.attributeName(i)).as(here + " attribute " + i).isEqualTo(expected.attributeName(i));
            assertThat(actual.attributeValue(i)).as(here + " @" + expected.attributeName(i))
                    .isEqualTo(expected.attributeValue(i));
        }
        List<Object> a = actual.children();
        List<Object> e = expected.children();
        assertThat(a).as(here + " children").hasSameSizeAs(e);
        for (int i = 0; i < e.size(); i++) {
            if (e.get(i) instanceof XmlElement ee) {
                assertThat(a.get(i)).as(here + " child " + i).isInstanceOf(XmlElement.class);
                assertSameTree((XmlElement) a.get(i), ee, here + "/");
            } else {
                assertThat(a.get(i)).as(here + " text child " + i).isInstanceOf(String.class).isEqualTo(e.get(i));
            }
        }
    }

    /** A message stanza with a bit of everything: namespaces (null, inherited, own), escapes, mixed content. */
    static XmlElement sampleStanza() {
        return XmlElement.builder("message", "jabber:client")
                .attribute("from", "room@conference.example.org/nick")
                .attribute("to", "user@example.org/res")
                .attribute("type", "groupchat")
                .attribute("id", "a<b>&c\"d'e\n\t")
                .child(XmlElement.builder("body").text("hello <world> & \"friends\" 😀").build())
                .child(XmlElement.builder("x", "http://jabber.org/protocol/muc#user")
                        .child(XmlElement.builder("item", null).attribute("affiliation", "owner")
                                .attribute("role", "moderator").build())
                        .child(XmlElement.builder("status", "http://jabber.org/protocol/muc#user")
                                .attribute("code", "110").build())
                        .build())
                .text("tail text")
                .child(XmlElement.builder("stanza-id", "urn:xmpp:sid:0").attribute("id", "42")
                        .attribute("by", "room@conference.example.org").build())
                .build();
    }
}
