package org.mucscale.engine.muc;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/** XEP-0421 occupant ids. */
class MucOccupantIdTest extends MucTestBase {
    static final String NS_OID = "urn:xmpp:occupant-id:0";

    private static String oid(XmlElement stanza) {
        List<XmlElement> ids = stanza.elements("occupant-id");
        assertThat(ids).as(stanza.toXml()).hasSize(1);
        return ids.get(0).attribute("id");
    }

    @Test
    void occupantId_sameForPresenceAndMessages_stableAcrossRejoin_distinctPerUser() {
        createInstant(alice, "r1", "Alice");
        XmlElement alicePresence = join(bob, "r1", "Bob").get(0);
        String aliceId = oid(alicePresence);
        out.clear();
        send(groupchat(bob, "r1", "hi"));
        String bobId = oid(only(out.take(alice)));
        assertThat(bobId).isNotEqualTo(aliceId).hasSizeGreaterThanOrEqualTo(20);
        leave(bob, "r1", "Bob");
        out.clear();
        XmlElement bobAgain = selfPresence(join(bob, "r1", "Robert"));
        assertThat(oid(bobAgain)).isEqualTo(bobId);
        // another room gives another id
        createInstant(bob, "r2", "Bob");
        send(groupchat(bob, "r2", "x"));
        assertThat(oid(only(out.take(bob)))).isNotEqualTo(bobId);
    }

    @Test
    void occupantId_spoofedByClient_isReplaced_andAdvertised() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        send(groupchat(bob, "r1", "fake").toBuilder()
                .child(XmlElement.builder("occupant-id", NS_OID).attribute("id", "alice-s-id").build()).build());
        assertThat(oid(only(out.take(alice)))).isNotEqualTo("alice-s-id");
        send(message(bob, occ("r1", "Alice"), "chat", "pm").toBuilder()
                .child(XmlElement.builder("occupant-id", NS_OID).attribute("id", "spoof").build()).build());
        assertThat(oid(only(out.take(alice)))).isNotEqualTo("spoof");
        XmlElement info = iq(bob, room("r1"), "get", XmlElement.builder("query",
                "http://jabber.org/protocol/disco#info").build());
        assertThat(info.toXml()).contains(NS_OID);
    }

    @Test
    void occupantIds_off_noneAdded() {
        start(Map.of("mucscale.muc.occupant-ids", "false"), b -> { });
        createInstant(alice, "r1", "Alice");
        send(groupchat(alice, "r1", "plain"));
        assertThat(only(out.take(alice)).elements("occupant-id")).isEmpty();
        XmlElement info = iq(bob, room("r1"), "get", XmlElement.builder("query",
                "http://jabber.org/protocol/disco#info").build());
        assertThat(info.toXml()).doesNotContain(NS_OID);
    }
}
