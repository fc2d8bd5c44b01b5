package org.mucscale.openfire;

import org.jivesoftware.openfire.Connection;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.Xml;

/**
 * A rendered stanza's text for one recipient as its connection must carry it.
 *
 * <p>On a c2s TCP stream the stream header makes {@code jabber:client} the default namespace, so the rendered text
 * goes as it is. A WebSocket frame (RFC 7395) and a BOSH body (XEP-0206) have no such header: there each stanza must
 * name its namespace itself, or a client reads it as an element of no namespace (or of the BOSH body's). Openfire's
 * own {@code WebSocketConnection.deliver} and BOSH {@code Deliverable} insert it for packets; raw text is written as
 * given, so it is inserted here.
 */
final class StanzaText {
    static final String CLIENT_NAMESPACE = " xmlns=\"jabber:client\"";

    private StanzaText() {
    }

    static String forConnection(Connection connection, RenderedStanza stanza, Jid recipient) {
        return NettyChannels.isTcp(connection)
                ? stanza.forRecipient(recipient)
                : namespaced(stanza, Xml.escapeAttribute(recipient.toString()));
    }

    /** The stanza with {@code xmlns="jabber:client"} on its root, unless the rendered start tag declares one. */
    static String namespaced(RenderedStanza stanza, String escapedTo) {
        String prefix = stanza.prefix();
        String suffix = stanza.suffix();
        int startTagEnd = suffix.indexOf('>');
        boolean declared = startTagEnd >= 0 && suffix.lastIndexOf(" xmlns=", startTagEnd) >= 0;
        if (declared) {
            return prefix + escapedTo + suffix;
        }
        int nameEnd = prefix.indexOf(' ');
        StringBuilder sb = new StringBuilder(prefix.length() + CLIENT_NAMESPACE.length() + escapedTo.length()
                + suffix.length());
        sb.append(prefix, 0, nameEnd).append(CLIENT_NAMESPACE).append(prefix, nameEnd, prefix.length())
                .append(escapedTo).append(suffix);
        return sb.toString();
    }
}
