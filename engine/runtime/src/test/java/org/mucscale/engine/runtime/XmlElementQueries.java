package org.mucscale.engine.runtime;

import org.mucscale.engine.stanza.XmlElement;

final class XmlElementQueries {
    private XmlElementQueries() {
    }

    static XmlElement discoItems(String from, String to) {
        return XmlElement.builder("iq").attribute("type", "get").attribute("id", "items").attribute("from", from)
                .attribute("to", to).child(XmlElement.builder("query", "http://jabber.org/protocol/disco#items").build())
                .build();
    }
}
