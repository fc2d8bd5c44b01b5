package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * {@link CsiDelay} says of the engine's rendered stanzas what Openfire 5.1.1's {@code CsiManager.canDelay} says of the
 * same stanzas as packets (its rules, case by case), and "not delayed" wherever the text alone cannot tell.
 */
class CsiDelayTest {
    private static final String MUC_USER = "http://jabber.org/protocol/muc#user";

    private static RenderedStanza rendered(XmlElement stanza) {
        return RenderedStanza.render(stanza);
    }

    private static XmlElement.Builder message(String type) {
        return XmlElement.builder("message").attribute("from", "room@mucscale.example/nick").attribute("type", type)
                .attribute("id", "m1");
    }

    private static XmlElement.Builder presence() {
        return XmlElement.builder("presence").attribute("from", "room@mucscale.example/nick");
    }

    private static XmlElement mucUser(String... codes) {
        XmlElement.Builder x = XmlElement.builder("x", MUC_USER)
                .child(XmlElement.builder("item").attribute("affiliation", "none").attribute("role", "participant")
                        .build());
        for (String code : codes) {
            x.child(XmlElement.builder("status").attribute("code", code).build());
        }
        return x.build();
    }

    @Test
    void aMessageWithABody_isNeverDelayed() {
        assertThat(CsiDelay.openfireMayDelay(rendered(message("groupchat").textChild("body", "hello").build())))
                .isFalse();
        assertThat(CsiDelay.openfireMayDelay(rendered(message("chat").textChild("body", "").build()))).isFalse();
    }

    @Test
    void aMessageWithoutABody_isDelayed() {
        XmlElement chatState = message("groupchat")
                .child(XmlElement.builder("composing", "http://jabber.org/protocol/chatstates").build()).build();
        assertThat(CsiDelay.openfireMayDelay(rendered(chatState))).isTrue();
    }

    @Test
    void aBodyMentionedInText_isNotABody() {
        XmlElement chatState = message("groupchat")
                .child(XmlElement.builder("x", "urn:example").text("<body> body /body").build())
                .child(XmlElement.builder("bodyguard", "urn:example").build()).build();
        assertThat(CsiDelay.openfireMayDelay(rendered(chatState))).as("escaped text and a longer name").isTrue();
    }

    @Test
    void aSubjectAnInvitationEncryptionOrJingleMessage_isNotDelayed() {
        assertThat(CsiDelay.openfireMayDelay(rendered(message("groupchat").textChild("subject", "").build())))
                .isFalse();
        XmlElement invite = message("normal").child(XmlElement.builder("x", MUC_USER)
                .child(XmlElement.builder("invite").attribute("from", "a@example").build()).build()).build();
        assertThat(CsiDelay.openfireMayDelay(rendered(invite))).isFalse();
        XmlElement omemo = message("groupchat")
                .child(XmlElement.builder("encrypted", "eu.siacs.conversations.axolotl").build()).build();
        assertThat(CsiDelay.openfireMayDelay(rendered(omemo))).isFalse();
        XmlElement propose = message("chat")
                .child(XmlElement.builder("propose", "urn:xmpp:jingle-message:0").attribute("id", "j").build()).build();
        assertThat(CsiDelay.openfireMayDelay(rendered(propose))).isFalse();
    }

    @Test
    void anOccupantsPresence_isDelayed_butASelfPresenceIsNot() {
        assertThat(CsiDelay.openfireMayDelay(rendered(presence().child(mucUser()).build()))).isTrue();
        assertThat(CsiDelay.openfireMayDelay(rendered(presence().attribute("type", "unavailable")
                .child(mucUser("307")).build()))).isTrue();
        assertThat(CsiDelay.openfireMayDelay(rendered(presence().child(mucUser("110", "100")).build()))).isFalse();
        assertThat(CsiDelay.openfireMayDelay(rendered(presence().attribute("type", "unavailable")
                .child(mucUser("303", "110")).build()))).isFalse();
    }

    @Test
    void presencesOfOtherTypes_areNotDelayed() {
        for (String type : new String[] {"error", "subscribe", "subscribed", "unsubscribe", "probe"}) {
            assertThat(CsiDelay.openfireMayDelay(rendered(presence().attribute("type", type).build())))
                    .as(type).isFalse();
        }
    }

    @Test
    void theTypeIsReadFromTheRootOnly() {
        XmlElement nested = presence().child(XmlElement.builder("x", "urn:example").attribute("type", "error").build())
                .build();
        assertThat(CsiDelay.openfireMayDelay(rendered(nested))).as("a type attribute of a child").isTrue();
        XmlElement quoted = presence().attribute("status", "a type=\"error\" inside").child(mucUser()).build();
        assertThat(CsiDelay.openfireMayDelay(rendered(quoted))).as("type=\"error\" inside another value").isTrue();
    }

    @Test
    void anIq_isNeverDelayed() {
        assertThat(CsiDelay.openfireMayDelay(rendered(XmlElement.builder("iq").attribute("type", "result").build())))
                .isFalse();
    }
}
